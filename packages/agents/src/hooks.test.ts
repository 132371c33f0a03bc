import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { loadHooks } from './hooks.js';
import { taskCompletionHooks } from './hooks-task-completion.js';

interface Layout {
  cwd: string;
  home: string;
  out: string;
}

async function layout(): Promise<Layout> {
  const root = await makeTempDirectory('muster-agents-hooks-');
  const layout = {
    cwd: path.join(root, 'project'),
    home: path.join(root, 'home'),
    out: path.join(root, 'out'),
  };
  await Promise.all(Object.values(layout).map((folder) => mkdir(folder, { recursive: true })));
  return layout;
}

async function settings(file: string, hooks: unknown): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, typeof hooks === 'string' ? hooks : JSON.stringify({ hooks }));
}

const command = (line: string, timeout?: number) => ({
  hooks: [{ type: 'command', command: line, ...(timeout === undefined ? {} : { timeout }) }],
});

/** True while `pid` is a live (non-zombie) process. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, boundMs: number): Promise<boolean> {
  const end = Date.now() + boundMs;
  while (Date.now() < end) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

describe('loadHooks', () => {
  it('reads command hooks from .claude and .muster settings, user then project, and reports bad files', async () => {
    const { cwd, home } = await layout();
    await settings(path.join(home, '.claude', 'settings.json'), {
      TeammateIdle: [command('echo user-claude')],
    });
    await settings(path.join(home, '.muster', 'settings.json'), {
      TeammateIdle: [command('echo user-muster', 5)],
      PreToolUse: [command('echo not-run')],
    });
    await settings(path.join(cwd, '.claude', 'settings.json'), {
      SubagentStart: [{ matcher: 'Explore|Plan', ...command('echo project-claude') }],
      TaskCompleted: [
        {
          hooks: [
            { type: 'prompt', prompt: 'x' },
            { type: 'command' },
            { type: 'command', command: 'x', timeout: -1 },
          ],
        },
      ],
      SubagentStop: [{ matcher: '(', ...command('echo bad-matcher') }],
    });
    await settings(path.join(cwd, '.muster', 'settings.json'), '{ not json');
    await settings(path.join(cwd, '.claude', 'settings.local.json'), { TeammateIdle: 'nope' });
    const hooks = await loadHooks({ cwd, home });
    expect(
      hooks.commands.map((hook) => [hook.event, hook.command, hook.timeoutSeconds, hook.matcher]),
    ).toEqual([
      ['TeammateIdle', 'echo user-claude', 60, undefined],
      ['TeammateIdle', 'echo user-muster', 5, undefined],
      ['SubagentStart', 'echo project-claude', 60, 'Explore|Plan'],
    ]);
    expect(hooks.has('TeammateIdle')).toBe(true);
    expect(hooks.has('TaskCompleted')).toBe(false);
    const messages = hooks.problems.map(
      (problem) => `${path.relative(cwd, problem.path)}: ${problem.message}`,
    );
    expect(messages).toEqual([
      expect.stringMatching(
        /^\.claude\/settings\.json: hooks\.TaskCompleted\[0\]\.hooks\[0\] is not \{"type": "command"/,
      ),
      expect.stringMatching(
        /^\.claude\/settings\.json: hooks\.TaskCompleted\[0\]\.hooks\[1\] has no `command` text/,
      ),
      expect.stringMatching(
        /^\.claude\/settings\.json: hooks\.TaskCompleted\[0\]\.hooks\[2\] has a `timeout` -1/,
      ),
      expect.stringMatching(
        /^\.claude\/settings\.json: hooks\.SubagentStop\[0\] has a `matcher` "\(" that is not a valid regular expression/,
      ),
      expect.stringMatching(/^\.claude\/settings\.local\.json: hooks\.TeammateIdle must be a list/),
      expect.stringMatching(/^\.muster\/settings\.json: is not valid JSON/),
    ]);
    expect(hooks.notices).toEqual([
      {
        path: path.join(home, '.muster', 'settings.json'),
        message: expect.stringMatching(/^hooks for PreToolUse are not run by muster/),
      },
    ]);
  });
});

describe('runHook', () => {
  it('gives the command the JSON payload on stdin, without credentials in its environment', async () => {
    const { cwd, home, out } = await layout();
    const payloadFile = path.join(out, 'payload.json');
    const environmentFile = path.join(out, 'environment.txt');
    await settings(path.join(cwd, '.muster', 'settings.json'), {
      TaskCompleted: [command(`cat > '${payloadFile}'; env > '${environmentFile}'; echo looked`)],
    });
    const hooks = await loadHooks({ cwd, home });
    const result = await hooks.runHook(
      'TaskCompleted',
      {
        task_id: '3',
        task_subject: 'Write tests',
        task_description: 'All of them',
        teammate_name: 'alice',
        team_name: 'red',
      },
      {
        environment: {
          PATH: process.env['PATH'],
          ANTHROPIC_API_KEY: 'sk-ant-secret-0123456789',
          KEEP: 'yes',
        },
      },
    );
    expect(result).toMatchObject({ blocked: false, outputs: ['looked\n'], notices: [] });
    expect(JSON.parse(await readFile(payloadFile, 'utf8'))).toEqual({
      hook_event_name: 'TaskCompleted',
      cwd,
      task_id: '3',
      task_subject: 'Write tests',
      task_description: 'All of them',
      teammate_name: 'alice',
      team_name: 'red',
    });
    const environment = await readFile(environmentFile, 'utf8');
    expect(environment).toContain('KEEP=yes');
    expect(environment).toContain(`MUSTER_PROJECT_DIR=${cwd}`);
    expect(environment).not.toContain('sk-ant-secret');
  });

  it('exit 2 blocks with stderr; another code is a notice; 0 goes on', async () => {
    const { cwd, home } = await layout();
    await settings(path.join(cwd, '.muster', 'settings.json'), {
      TeammateIdle: [
        command('echo "keep going: the tests still fail" >&2; exit 2'),
        command('echo broken >&2; exit 1'),
        command('exit 0'),
      ],
    });
    const hooks = await loadHooks({ cwd, home });
    const result = await hooks.runHook('TeammateIdle', {
      teammate_name: 'alice',
      team_name: 'red',
    });
    expect(result.blocked).toBe(true);
    expect(result.message).toBe('keep going: the tests still fail');
    expect(result.notices).toEqual([
      expect.stringMatching(
        /^The TeammateIdle hook "echo broken >&2; exit 1" \(.*\) exited with 1; going on: broken$/,
      ),
    ]);
    expect(result.results.map((entry) => entry.outcome)).toEqual(['block', 'error', 'continue']);
  });

  it('runs SubagentStart hooks only for agent types their matcher names', async () => {
    const { cwd, home, out } = await layout();
    await settings(path.join(cwd, '.claude', 'settings.json'), {
      SubagentStart: [
        { matcher: 'Explore|Plan', ...command(`echo "$PPID" >> '${path.join(out, 'explore')}'`) },
        { matcher: '^gen', ...command('echo general context') },
        command('echo every agent'),
      ],
    });
    const hooks = await loadHooks({ cwd, home });
    const general = await hooks.runHook('SubagentStart', {
      agent_id: 'a1',
      agent_type: 'general-purpose',
    });
    expect(general.outputs).toEqual(['general context\n', 'every agent\n']);
    const explore = await hooks.runHook('SubagentStart', { agent_id: 'a2', agent_type: 'Explore' });
    expect(explore.outputs).toEqual(['every agent\n']);
    expect(explore.results).toHaveLength(2);
    expect((await readFile(path.join(out, 'explore'), 'utf8')).trim().split('\n')).toHaveLength(1);
  });

  it('kills the whole process group of a hook that runs past its timeout', async () => {
    const { cwd, home, out } = await layout();
    const pidFile = path.join(out, 'pids');
    await settings(path.join(cwd, '.muster', 'settings.json'), {
      SubagentStop: [
        command(`sleep 300 & echo $! > '${pidFile}'; echo $$ >> '${pidFile}'; sleep 300`, 1),
      ],
    });
    const hooks = await loadHooks({ cwd, home });
    const result = await hooks.runHook('SubagentStop', {
      agent_id: 'a',
      agent_type: 'Plan',
      agent_transcript_path: '/t.jsonl',
    });
    expect(result.blocked).toBe(false);
    expect(result.results[0]).toMatchObject({ timedOut: true, outcome: 'error' });
    expect(result.notices[0]).toMatch(/ran past its timeout; its process group was killed/);
    const pids = (await readFile(pidFile, 'utf8')).trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    expect(await waitUntil(() => pids.every((pid) => !alive(pid)), 10_000)).toBe(true);
  });

  it('ends a hook on abort, and ends what a finished hook left running', async () => {
    const { cwd, home, out } = await layout();
    const leftover = path.join(out, 'leftover');
    const running = path.join(out, 'running');
    await settings(path.join(cwd, '.muster', 'settings.json'), {
      TeammateIdle: [command(`echo $$ > '${running}'; sleep 300`)],
      TaskCompleted: [command(`sleep 300 & echo $! > '${leftover}'; exit 0`)],
    });
    const hooks = await loadHooks({ cwd, home });
    const finished = await hooks.runHook('TaskCompleted', {
      task_id: '1',
      task_subject: 's',
      task_description: 'd',
    });
    expect(finished.results[0]).toMatchObject({ outcome: 'continue', exitCode: 0 });
    const leftoverPid = Number((await readFile(leftover, 'utf8')).trim());
    expect(await waitUntil(() => !alive(leftoverPid), 10_000)).toBe(true);

    const controller = new AbortController();
    const pending = hooks.runHook(
      'TeammateIdle',
      { teammate_name: 'a', team_name: 'b' },
      { signal: controller.signal },
    );
    expect(await waitUntil(() => readFileIfPresent(running) !== '', 10_000)).toBe(true);
    controller.abort();
    const aborted = await pending;
    expect(aborted.results[0]).toMatchObject({ aborted: true, outcome: 'error' });
    expect(aborted.notices[0]).toMatch(/was stopped because the run was aborted/);
    expect(await waitUntil(() => !alive(Number(readFileIfPresent(running))), 10_000)).toBe(true);
  });

  it('as a task completion veto: exit 2 refuses with stderr, a failing hook lets it through with a notice', async () => {
    const { cwd, home, out } = await layout();
    const payloadFile = path.join(out, 'payload.json');
    const task = {
      id: '4',
      subject: 'Ship',
      description: 'Ship it',
      status: 'in_progress',
      blocks: [],
      blockedBy: [],
    } as never;
    const none = taskCompletionHooks(await loadHooks({ cwd, home }), { teamName: 'red' });
    expect(await none.beforeComplete!(task, 'alice')).toEqual({ allow: true });
    await settings(path.join(cwd, '.muster', 'settings.json'), {
      TaskCompleted: [
        command(
          `cat > '${payloadFile}'; test -e '${path.join(out, 'fail')}' && exit 1; echo "not yet" >&2; exit 2`,
        ),
      ],
    });
    const notices: string[] = [];
    const veto = taskCompletionHooks(await loadHooks({ cwd, home }), {
      teamName: 'red',
      onNotice: (notice) => notices.push(notice),
    });
    expect(await veto.beforeComplete!(task, 'alice')).toEqual({ allow: false, reason: 'not yet' });
    expect(JSON.parse(await readFile(payloadFile, 'utf8'))).toMatchObject({
      task_id: '4',
      task_subject: 'Ship',
      teammate_name: 'alice',
      team_name: 'red',
    });
    await writeFile(path.join(out, 'fail'), '');
    expect(await veto.beforeComplete!(task, undefined)).toEqual({ allow: true });
    expect(notices).toEqual([expect.stringMatching(/exited with 1; going on/)]);
    expect(JSON.parse(await readFile(payloadFile, 'utf8'))).not.toHaveProperty('teammate_name');
  });

  it('refuses an unknown event and a payload missing a field', async () => {
    const { cwd, home } = await layout();
    const hooks = await loadHooks({ cwd, home });
    await expect(
      hooks.runHook('Stop' as 'TeammateIdle', { teammate_name: 'a', team_name: 'b' }),
    ).rejects.toThrow(/"Stop" is not a hook event muster runs/);
    await expect(hooks.runHook('TeammateIdle', { teammate_name: 'a' } as never)).rejects.toThrow(
      /runHook\(TeammateIdle\): the payload's `team_name` is wrong/,
    );
    await expect(loadHooks({ cwd: 'relative', home })).rejects.toThrow(
      /`cwd` must be an absolute directory path/,
    );
    await settings(path.join(cwd, '.muster', 'settings.json'), {
      TeammateIdle: [command('exit 0')],
    });
    const missing = await (
      await loadHooks({ cwd, home })
    ).runHook(
      'TeammateIdle',
      { teammate_name: 'a', team_name: 'b' },
      { cwd: path.join(cwd, 'missing') },
    );
    expect(missing.blocked).toBe(false);
    expect(missing.notices).toEqual([
      expect.stringMatching(
        /did not finish normally: could not start \/bin\/sh for the hook in .*missing/,
      ),
    ]);
  });
});

function readFileIfPresent(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}
