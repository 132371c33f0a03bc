// Glob as a tool: Claude Code 2.1.45's schema, picomatch patterns, newest first, a cap of 100
// with a note, the skipped folders, symbolic links never followed, and the read roots.
import { readFileSync } from 'node:fs';
import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sequence, text, toolResults, toolUse, type ScriptRequest } from '@muster/scripted-model';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createGlobTool, globFolder, GlobInputSchema } from './glob-tool.js';
import type { GlobResultData } from './glob-tool.js';
import { openScriptedToolAgent } from './scripted-agent-test-support.js';
import { createTestToolContext } from './test-support.js';

const fixtures = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../fixtures/claude-code-2.1.45-all-tools',
);

/** Writes `files` (relative path → age in minutes) under `root`; a larger age is older. */
async function writeFiles(root: string, files: Record<string, number>): Promise<void> {
  const now = Date.UTC(2026, 5, 1) / 1000;
  for (const [relative, ageMinutes] of Object.entries(files)) {
    const file = path.join(root, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `${relative}\n`);
    await utimes(file, now - ageMinutes * 60, now - ageMinutes * 60);
  }
}

/**
 * Runs one Glob call per input through a real agent (scripted model) working in `<parent>/work`
 * with `<parent>/outside/{a.conf,deep/b.conf}` beside it ("/OUTSIDE" in a pattern stands for
 * that folder; `work/link-out` links to it), under `permissions`; returns what each call gave
 * the model.
 */
async function globThroughAgent(
  inputs: Array<{ pattern: string; path?: string }>,
  permissions: NonNullable<Parameters<typeof openScriptedToolAgent>[1]['permissions']>,
): Promise<{ outside: string; results: string[] }> {
  const parent = await makeTempDirectory('muster-glob-permission-');
  const cwd = path.join(parent, 'work');
  const outside = path.join(parent, 'outside');
  await writeFiles(cwd, { 'inside.txt': 1, 'src/x.ts': 1 });
  await writeFiles(outside, { 'a.conf': 1, 'deep/b.conf': 2 });
  await symlink(outside, path.join(cwd, 'link-out'));
  const calls = inputs.map((input) =>
    toolUse('Glob', { ...input, pattern: input.pattern.replace('/OUTSIDE', outside) }),
  );
  const results: string[] = [];
  const { agent, run } = openScriptedToolAgent(
    sequence([
      calls[0]!,
      ...[...calls.slice(1), text('Done.')].map((next) => (request: ScriptRequest) => {
        results.push(toolResults(request)[0]?.content ?? '');
        return next;
      }),
    ]),
    {
      cwd,
      transcriptDirectory: await makeTempDirectory('muster-glob-permission-transcript-'),
      tools: [createGlobTool()],
      permissions,
    },
  );
  try {
    expect((await run('List the configuration files.')).result.reason).toBe('completed');
  } finally {
    await agent.close();
  }
  return { outside, results };
}

describe('Glob tool', () => {
  it('declares exactly the input schema of Claude Code 2.1.45', () => {
    const expected = JSON.parse(
      readFileSync(path.join(fixtures, 'Glob.input_schema.json'), 'utf8'),
    ) as Record<string, unknown>;
    const { $schema: _ignored, ...expectedWithoutDialect } = expected;
    const tool = createGlobTool();
    expect(tool.name).toBe('Glob');
    const sent = tool.inputJsonSchema as { properties: Record<string, Record<string, unknown>> };
    const withoutDescriptions = {
      ...sent,
      properties: Object.fromEntries(
        Object.entries(sent.properties).map(([name, { description: _description, ...rest }]) => [
          name,
          rest,
        ]),
      ),
    };
    expect(withoutDescriptions).toEqual(expectedWithoutDialect);
    expect(GlobInputSchema.safeParse({ pattern: '*.ts', recursive: true }).success).toBe(false);
    expect(tool.isReadOnly({ pattern: '*' })).toBe(true);
    expect(tool.isConcurrencySafe({ pattern: '*' })).toBe(true);
  });

  it('matches with picomatch and lists the newest first, skipping .git and node_modules', async () => {
    const root = await makeTempDirectory('muster-glob-');
    await writeFiles(root, {
      'src/old.ts': 30,
      'src/new.ts': 1,
      'src/deep/middle.ts': 10,
      'src/view.tsx': 5,
      'README.md': 2,
      '.github/workflow.ts': 20,
      '.git/hooks/hook.ts': 0,
      'node_modules/pkg/index.ts': 0,
      'src/node_modules/inner.ts': 0,
    });
    const { context } = createTestToolContext({ cwd: root });
    const tool = createGlobTool();
    const all = await tool.call({ pattern: '**/*.ts' }, context);
    const expected = ['src/new.ts', 'src/deep/middle.ts', '.github/workflow.ts', 'src/old.ts'].map(
      (file) => path.join(root, file),
    );
    expect(all.content).toBe(expected.join('\n'));
    expect((all.data as GlobResultData).filenames).toEqual(expected);

    const topLevel = await tool.call({ pattern: '*.ts', path: 'src' }, context);
    expect(topLevel.content).toBe(
      [path.join(root, 'src/new.ts'), path.join(root, 'src/old.ts')].join('\n'),
    );
    const braces = await tool.call({ pattern: 'src/*.{ts,tsx}' }, context);
    expect((braces.data as GlobResultData).numFiles).toBe(3);
    const absolute = await tool.call({ pattern: `${root}/src/**/middle.ts` }, context);
    expect(absolute.content).toBe(path.join(root, 'src/deep/middle.ts'));
    const literal = await tool.call({ pattern: 'README.md' }, context);
    expect(literal.content).toBe(path.join(root, 'README.md'));
    expect((await tool.call({ pattern: '**/*.rs' }, context)).content).toBe('No files found');
    const inside = await tool.call({ pattern: '**/*.ts', path: 'node_modules' }, context);
    expect(inside.content).toBe(path.join(root, 'node_modules/pkg/index.ts'));
  });

  it('returns at most 100 paths and says how many matched', async () => {
    const root = await makeTempDirectory('muster-glob-many-');
    const files: Record<string, number> = {};
    for (let index = 0; index < 130; index += 1)
      files[`file-${String(index).padStart(3, '0')}.txt`] = index;
    await writeFiles(root, files);
    const result = await createGlobTool().call(
      { pattern: '*.txt' },
      createTestToolContext({ cwd: root }).context,
    );
    const lines = (result.content as string).split('\n');
    expect(lines).toHaveLength(101);
    expect(lines[0]).toBe(path.join(root, 'file-000.txt'));
    expect(lines[99]).toBe(path.join(root, 'file-099.txt'));
    expect(lines[100]).toBe(
      '(Showing the 100 most recently modified of 130 files. Use a more specific pattern or path to see the others.)',
    );
    expect(result.data).toMatchObject({ numFiles: 130, truncated: true });
  });

  it('never lists outside the read roots nor through a symbolic link', async () => {
    const root = await makeTempDirectory('muster-glob-roots-');
    const outside = await makeTempDirectory('muster-glob-outside-');
    await writeFiles(root, { 'inside.txt': 1 });
    await writeFiles(outside, { 'secret.txt': 1 });
    await symlink(outside, path.join(root, 'escape'));
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'secret-link.txt'));
    const { context } = createTestToolContext({ cwd: root });
    const tool = createGlobTool();
    const everything = await tool.call({ pattern: '**/*' }, context);
    expect(everything.content).toBe(path.join(root, 'inside.txt'));
    await expect(tool.call({ pattern: '*.txt', path: outside }, context)).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_ROOTS',
    });
    await expect(tool.call({ pattern: `${outside}/*.txt` }, context)).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_ROOTS',
    });
    await expect(tool.call({ pattern: '../**/*.txt' }, context)).rejects.toMatchObject({
      code: 'PATTERN_LEAVES_PATH',
    });
    await expect(tool.call({ pattern: '*.txt', path: 'escape' }, context)).rejects.toMatchObject({
      code: 'SYMLINK_ESCAPES',
    });
    await expect(tool.call({ pattern: 'escape/*.txt' }, context)).rejects.toMatchObject({
      code: 'SYMLINK_ESCAPES',
    });
  });

  it('names the folder the glob reads in pathsOf, not just path', () => {
    const tool = createGlobTool();
    const pathsOf = (input: { pattern: string; path?: string }) => tool.pathsOf!(input);
    expect(pathsOf({ pattern: '/etc/**/*.conf' })).toEqual(['/etc']);
    expect(pathsOf({ pattern: '/etc/**/*.conf', path: '/home/me' })).toEqual(['/etc']);
    expect(pathsOf({ pattern: '/etc/passwd' })).toEqual(['/etc']);
    expect(pathsOf({ pattern: '**/*.ts' })).toEqual(['.']);
    expect(pathsOf({ pattern: '*.ts', path: '/work/repo' })).toEqual(['/work/repo']);
    expect(pathsOf({ pattern: 'src/**/*.ts' })).toEqual(['src']);
    expect(pathsOf({ pattern: 'lib/*.ts', path: 'packages/a' })).toEqual(['packages/a/lib']);
    expect(pathsOf({ pattern: '../**/*.txt' })).toEqual(['..']);
    expect(pathsOf({ pattern: '../../other/*.ts', path: 'src' })).toEqual(['src/../../other']);
    expect(pathsOf({ pattern: 'README.md' })).toEqual(['.']);
    // Glob reads `~` below the working directory; the permission check must not read it as home.
    expect(pathsOf({ pattern: '~/notes/*.md' })).toEqual(['./~/notes']);
    expect(globFolder({ pattern: 'a/{b,c}/*.ts', path: '/r' })).toBe('/r/a');
  });

  it('lets an allow decision cover the folder an absolute pattern reads; a `..` pattern must name it in path', async () => {
    const { outside, results } = await globThroughAgent(
      [
        { pattern: '/OUTSIDE/**/*.conf' },
        { pattern: '../outside/*.conf' },
        { pattern: '*.conf', path: '../outside' },
      ],
      // Glob is allowed by a rule; the folders it may then read are the ones pathsOf names.
      { mode: 'default', rules: { allow: ['Glob'] } },
    );
    expect(results).toEqual([
      [path.join(outside, 'a.conf'), path.join(outside, 'deep/b.conf')].join('\n'),
      'The pattern "../outside/*.conf" climbs out of the folder it searches (".") with "..". Give that folder as path and the rest as pattern, e.g. path "../outside" and pattern "*.conf".',
      path.join(outside, 'a.conf'),
    ]);
  });

  it('never reads outside the working directory without approval, however the pattern climbs', async () => {
    const { results } = await globThroughAgent(
      [
        { pattern: '../outside/*.conf' },
        { pattern: 'src/../../outside/*.conf' },
        { pattern: 'link-out/*.conf' },
        { pattern: '*.conf', path: 'src/../../outside' },
        { pattern: '/OUTSIDE/*.conf' },
        { pattern: '*.conf', path: 'link-out' },
      ],
      { mode: 'default' },
    );
    expect(results.slice(0, 3)).toEqual([
      expect.stringContaining('climbs out of the folder it searches'),
      expect.stringContaining('climbs out of the folder it searches'),
      expect.stringMatching(
        /^The pattern "link-out\/\*\.conf" leads out of the folder it searches \("\."\): its folder part "link-out" is .*outside through a symbolic link/,
      ),
    ]);
    for (const result of results.slice(3)) {
      expect(result).toMatch(/^Glob needs approval: it works outside the working directories/);
    }
    expect(results.join('\n')).not.toContain('a.conf');
  });

  it('says what is wrong with an empty pattern, a missing folder or a file as path', async () => {
    const root = await makeTempDirectory('muster-glob-errors-');
    await writeFiles(root, { 'a.txt': 1 });
    const { context } = createTestToolContext({ cwd: root });
    const tool = createGlobTool();
    await expect(tool.call({ pattern: ' ' }, context)).rejects.toThrow(/empty\. Give one such as/u);
    await expect(tool.call({ pattern: '*', path: 'missing' }, context)).rejects.toThrow(
      /does not exist\. Give an existing folder/u,
    );
    await expect(tool.call({ pattern: 'src/*', path: '' }, context)).rejects.toMatchObject({
      code: 'INVALID_PATH',
      message: expect.stringContaining('leave path out to search the working directory'),
    });
    await expect(tool.call({ pattern: '*', path: 'a.txt' }, context)).rejects.toThrow(
      /is a file, not a folder/u,
    );
    await expect(tool.call({ pattern: '*a*a*a*a*b' }, context)).rejects.toMatchObject({
      code: 'INVALID_GLOB',
      message: expect.stringContaining('more than 3 `*` in one path segment'),
    });
    await expect(tool.call({ pattern: '**/a/**/b/**/c/**/d' }, context)).rejects.toMatchObject({
      code: 'INVALID_GLOB',
    });
  });
});
