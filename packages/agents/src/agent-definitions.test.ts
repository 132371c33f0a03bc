import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, open, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { loadAgentDefinitions } from './agent-definitions.js';
import { MAXIMUM_AGENT_DEFINITION_BYTES } from './agent-definitions-files.js';
import { BUILT_IN_AGENT_NAMES } from './built-in-agents.js';

async function place(folder: string, name: string, text: string): Promise<string> {
  await mkdir(folder, { recursive: true });
  const file = path.join(folder, name);
  await writeFile(file, text);
  return file;
}

function definitionText(fields: string, body = 'You review code.'): string {
  return `---\n${fields}\n---\n\n${body}\n`;
}

async function directories(): Promise<{ cwd: string; home: string; outside: string }> {
  const root = await makeTempDirectory('muster-agents-definitions-');
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  const outside = path.join(root, 'outside');
  await Promise.all([cwd, home, outside].map((folder) => mkdir(folder, { recursive: true })));
  return { cwd, home, outside };
}

describe('loadAgentDefinitions', () => {
  it('has the built-ins when no folder exists', async () => {
    const { cwd, home } = await directories();
    const loaded = await loadAgentDefinitions({ cwd, home });
    expect([...loaded.definitions.keys()]).toEqual(['general-purpose', 'Explore', 'Plan']);
    expect(BUILT_IN_AGENT_NAMES).toEqual(['general-purpose', 'Explore', 'Plan']);
    expect(loaded.problems).toEqual([]);
    expect(loaded.definitions.get('Explore')?.permissionMode).toBe('plan');
    expect(loaded.definitions.get('Explore')?.tools).not.toContain('Write');
  });

  it("reads Claude Code's fields, tools as a list or a comma-separated string", async () => {
    const { cwd, home } = await directories();
    const file = await place(
      path.join(cwd, '.claude', 'agents'),
      'reviewer.md',
      definitionText(
        [
          'name: reviewer',
          'description: Reviews a change',
          'tools: Read, Grep,Glob',
          'disallowedTools: [Bash]',
          'model: sonnet',
          'permissionMode: acceptEdits',
          'color: purple',
          'isolation: worktree',
          'background: true',
          'memory: project',
        ].join('\n'),
        'You review code.\n\nBe brief.',
      ),
    );
    const loaded = await loadAgentDefinitions({ cwd, home });
    expect(loaded.problems).toEqual([]);
    expect(loaded.definitions.get('reviewer')).toEqual({
      name: 'reviewer',
      description: 'Reviews a change',
      tools: ['Read', 'Grep', 'Glob'],
      disallowedTools: ['Bash'],
      model: 'sonnet',
      permissionMode: 'acceptEdits',
      color: 'purple',
      isolation: 'worktree',
      background: true,
      systemPrompt: 'You review code.\n\nBe brief.',
      source: 'project',
      path: file,
    });
    expect(loaded.notices).toEqual([{ path: file, message: expect.stringContaining('`memory`') }]);
  });

  it('project wins over user wins over built-in; .muster wins over .claude; extra wins over all', async () => {
    const { cwd, home } = await directories();
    const define = (folder: string, name: string, description: string) =>
      place(
        folder,
        `${name}-${description.replace(/\W+/g, '-')}.md`,
        definitionText(`name: ${name}\ndescription: ${description}`),
      );
    await define(path.join(home, '.claude', 'agents'), 'Explore', 'user claude');
    await define(path.join(home, '.claude', 'agents'), 'alpha', 'user claude');
    await define(path.join(home, '.muster', 'agents'), 'alpha', 'user muster');
    await define(path.join(home, '.muster', 'agents'), 'beta', 'user muster');
    await define(path.join(cwd, '.claude', 'agents'), 'beta', 'project claude');
    await define(path.join(cwd, '.claude', 'agents'), 'gamma', 'project claude');
    await define(path.join(cwd, '.muster', 'agents'), 'gamma', 'project muster');
    const loaded = await loadAgentDefinitions({
      cwd,
      home,
      extra: [{ name: 'Plan', description: 'caller', systemPrompt: 'p', source: 'caller' }],
    });
    const describe = (name: string) => {
      const definition = loaded.definitions.get(name);
      return `${definition?.source}: ${definition?.description}`;
    };
    expect(loaded.problems).toEqual([]);
    expect(describe('Explore')).toBe('user: user claude');
    expect(describe('alpha')).toBe('user: user muster');
    expect(describe('beta')).toBe('project: project claude');
    expect(describe('gamma')).toBe('project: project muster');
    expect(describe('Plan')).toBe('caller: caller');
    expect(describe('general-purpose')).toMatch(/^built-in: /);
  });

  it('reports each bad file with its path and what is wrong, and still loads the good ones', async () => {
    const { cwd, home, outside } = await directories();
    const folder = path.join(cwd, '.muster', 'agents');
    const files = {
      noFrontMatter: await place(folder, 'a-plain.md', 'Just a prompt.\n'),
      badYaml: await place(folder, 'b-yaml.md', definitionText('name: [broken\ndescription: x')),
      noName: await place(folder, 'c-noname.md', definitionText('description: x')),
      emptyFrontMatter: await place(folder, 'c-empty.md', '---\n---\nPrompt only.\n'),
      noDescription: await place(folder, 'd-nodescription.md', definitionText('name: ok-name')),
      badName: await place(
        folder,
        'e-badname.md',
        definitionText('name: ../escape\ndescription: x'),
      ),
      badMode: await place(
        folder,
        'f-mode.md',
        definitionText('name: f\ndescription: x\npermissionMode: yolo'),
      ),
      badTools: await place(
        folder,
        'g-tools.md',
        definitionText('name: g\ndescription: x\ntools: {a: 1}'),
      ),
      badModel: await place(
        folder,
        'h-model.md',
        definitionText('name: h\ndescription: x\nmodel: "no spaces allowed"'),
      ),
      badIsolation: await place(
        folder,
        'i-isolation.md',
        definitionText('name: i\ndescription: x\nisolation: container'),
      ),
      huge: await place(
        folder,
        'j-huge.md',
        definitionText('name: j\ndescription: x', 'x'.repeat(MAXIMUM_AGENT_DEFINITION_BYTES)),
      ),
      duplicate: await place(
        folder,
        'z-good-again.md',
        definitionText('name: good\ndescription: again'),
      ),
    };
    await place(folder, 'good.md', definitionText('name: good\ndescription: fine'));
    const secret = await place(
      outside,
      'secret.md',
      definitionText('name: secret\ndescription: outside'),
    );
    const linkOut = path.join(folder, 'k-link-out.md');
    await symlink(secret, linkOut);
    const inside = await place(
      folder,
      'inside.txt',
      definitionText('name: linked\ndescription: inside'),
    );
    await symlink(inside, path.join(folder, 'l-link-in.md'));
    const dangling = path.join(folder, 'm-dangling.md');
    await symlink(path.join(folder, 'missing.md'), dangling);

    const loaded = await loadAgentDefinitions({ cwd, home });
    const problemOf = (file: string) =>
      loaded.problems.find((problem) => problem.path === file)?.message;
    expect(problemOf(files.noFrontMatter)).toMatch(/no front matter/);
    expect(problemOf(files.badYaml)).toMatch(/not valid YAML/);
    expect(problemOf(files.noName)).toMatch(/no `name`/);
    expect(problemOf(files.emptyFrontMatter)).toMatch(/no `name`/);
    expect(problemOf(files.noDescription)).toMatch(/no `description`/);
    expect(problemOf(files.badName)).toMatch(/not a valid agent type/);
    expect(problemOf(files.badMode)).toMatch(
      /"yolo" is not a permission mode: use one of default, /,
    );
    expect(problemOf(files.badTools)).toMatch(/`tools` must be a list/);
    expect(problemOf(files.badModel)).toMatch(/`model`: .*not a model id/);
    expect(problemOf(files.badIsolation)).toMatch(/only value is "worktree"/);
    expect(problemOf(files.huge)).toMatch(/more than the 262144 bytes/);
    expect(problemOf(files.duplicate)).toMatch(/defines the agent type "good" again/);
    expect(problemOf(linkOut)).toMatch(/symbolic link leading outside/);
    expect(problemOf(dangling)).toMatch(/cannot resolve/);
    expect(loaded.problems).toHaveLength(14);
    expect(loaded.definitions.get('good')?.description).toBe('fine');
    expect(loaded.definitions.get('linked')?.description).toBe('inside');
    expect(loaded.definitions.has('secret')).toBe(false);
  });

  it('refuses a link to a FIFO without blocking on it, and loads the others', async () => {
    const { cwd, home } = await directories();
    const folder = path.join(cwd, '.muster', 'agents');
    await place(folder, 'good.md', definitionText('name: good\ndescription: Good.'));
    const fifo = path.join(folder, 'pipe');
    execFileSync('mkfifo', [fifo]);
    await symlink(fifo, path.join(folder, 'evil.md'));
    try {
      const loaded = await loadAgentDefinitions({ cwd, home });
      expect(loaded.definitions.has('good')).toBe(true);
      expect(loaded.problems).toEqual([
        {
          path: path.join(folder, 'evil.md'),
          message: expect.stringMatching(/not a regular file/),
        },
      ]);
    } finally {
      // On a loader that blocked, a writer opening the FIFO releases the stuck read.
      await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).then(
        (handle) => handle.close(),
        () => undefined,
      );
    }
  }, 20_000);

  it('finds definitions in subfolders, follows folder links only inside, and visits each folder once', async () => {
    const { cwd, home, outside } = await directories();
    const folder = path.join(cwd, '.claude', 'agents');
    const nested = await place(
      path.join(folder, 'review', 'deep'),
      'auditor.md',
      definitionText('name: auditor\ndescription: nested'),
    );
    await place(path.join(folder, 'review'), 'notes.txt', 'not a definition');
    await place(outside, 'stranger.md', definitionText('name: stranger\ndescription: outside'));
    await symlink(outside, path.join(folder, 'linked-out'));
    await symlink(path.join(folder, 'review'), path.join(folder, 'review', 'deep', 'loop'));
    await place(
      path.join(folder, 'other'),
      'auditor.md',
      definitionText('name: auditor\ndescription: again'),
    );
    const loaded = await loadAgentDefinitions({ cwd, home });
    expect(loaded.definitions.get('auditor')).toMatchObject({
      description: 'again',
      path: path.join(folder, 'other', 'auditor.md'),
    });
    expect(loaded.definitions.has('stranger')).toBe(false);
    expect(loaded.problems).toEqual([
      {
        path: path.join(folder, 'linked-out'),
        message: expect.stringMatching(/symbolic link leading outside its folder .*not followed/),
      },
      {
        path: nested,
        message: expect.stringMatching(
          /defines the agent type "auditor" again \(.*other\/auditor\.md defines it too\)/,
        ),
      },
    ]);
  });

  it('refuses a relative cwd and a bad extra definition', async () => {
    const { home } = await directories();
    await expect(loadAgentDefinitions({ cwd: 'relative', home })).rejects.toThrow(
      /`cwd` must be an absolute directory path/,
    );
    await expect(
      loadAgentDefinitions({
        cwd: home,
        home,
        extra: [{ name: 'a b', description: 'x', systemPrompt: 'x', source: 'caller' }],
      }),
    ).rejects.toThrow(/extra\[0\]\.name "a b" is not a valid agent type/);
  });
});
