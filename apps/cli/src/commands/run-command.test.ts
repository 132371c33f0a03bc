// `muster run -p` and `muster demo --run -p` as real processes (the built CLI). The only fake is
// the model: @muster/scripted-model, a TEST DOUBLE of the Messages API — in process for the
// demo, and as its own `muster-scripted-model --script <file>` server for the run that never
// finishes. The team, its files, git, the tests it runs and the processes are real.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { PERMISSION_MODES } from '@muster/protocol';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADLESS_PERMISSION_MODES } from '../run/headless-flags.js';
import { assertBuilt, builtCli, repositoryRoot } from '../test-support/reference.js';
import { runMuster } from '../test-support/run-cli.js';
import { streamStory } from '../test-support/stream-story.js';

beforeAll(assertBuilt);

const KEYS = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_BASE_URL'];
/** The demo runs outside tmux here (inside it, carol would get a tmux pane instead of a PTY). */
const DEMO_UNSET = [...KEYS, 'TMUX', 'TMUX_PANE'];
const kept: string[] = [];
afterAll(async () => {
  for (const folder of kept) await rm(folder, { recursive: true, force: true });
});

/** The folder the demo says it kept (stderr), registered for removal. */
function demoFolder(stderr: string): string {
  const folder = /remove it with rm -rf (\S+)/.exec(stderr)?.[1];
  if (folder === undefined) throw new Error(`the demo named no folder; stderr:\n${stderr}`);
  kept.push(folder);
  return folder;
}

type Line = Record<string, unknown> & { type: string };

/** Live processes whose command line contains `text`. */
function processesRunning(text: string): string[] {
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(text));
}

/**
 * Live processes whose command line, environment (a teammate's MUSTER_HOME) or working
 * directory names `folder`: what is left of a team run in it.
 */
function processesInvolving(folder: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const environment = readFileSync(`/proc/${pid}/environ`, 'utf8');
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if ([commandLine, environment, cwd].some((text) => text.includes(folder)))
        found.push(`${pid} ${commandLine}`);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

describe('muster demo --run -p', () => {
  it('stream-json: every line parses, says it is a scripted demo and tells the whole story; exit 0', async () => {
    const home = await makeTempDirectory('muster-cli-run-home-');
    const run = await runMuster(['demo', '--run', '-p', '--output-format', 'stream-json'], {
      home,
      unset: DEMO_UNSET,
      timeoutMs: 120_000,
    });
    const folder = demoFolder(run.stderr);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);
    expect(lines[0]).toMatchObject({
      type: 'notice',
      text: expect.stringContaining('[scripted demo: @muster/scripted-model, not a model]'),
    });
    expect(
      lines.every(
        (line) => line.scriptedDemo === 'scripted demo: @muster/scripted-model, not a model',
      ),
    ).toBe(true);

    const of = (type: string) => lines.filter((line) => line.type === type);
    const story = streamStory(lines);
    // --teammate-mode auto (the demo's default): alice and bob in-process, carol in a pane.
    expect(
      of('spawn')
        .map((line) => [line.agentName, line.agentType, line.backendType])
        .sort(),
      story,
    ).toEqual([
      ['alice', 'implementer', 'in-process'],
      ['bob', 'general-purpose', 'in-process'],
      ['carol', 'Explore', 'pty'],
    ]);
    // alice (the repository's `implementer`, isolation: worktree) worked in a worktree of her own.
    const worktree = String(of('spawn').find((line) => line.agentName === 'alice')?.worktreePath);
    expect(worktree).toContain(
      `${path.sep}.muster${path.sep}worktrees${path.sep}agents${path.sep}`,
    );
    const messages = of('message');
    expect(
      messages.some(
        (line) =>
          line.from === 'alice' && line.to === 'team-lead' && line.protocolType === undefined,
      ),
    ).toBe(true);
    expect(
      messages.some((line) => line.from === 'bob' && line.protocolType === 'plan_approval_request'),
    ).toBe(true);
    // carol, read-only, reviewed the implementation and told the lead.
    expect(
      messages.find(
        (line) =>
          line.from === 'carol' && line.protocolType === undefined && line.to === 'team-lead',
      ),
      story,
    ).toMatchObject({ text: expect.stringContaining('Review of src/slugify.js') });
    expect(
      messages
        .filter((line) => line.protocolType === 'shutdown_approved')
        .map((line) => line.from)
        .sort(),
    ).toEqual(['alice', 'bob', 'carol']);
    // alice's `npm test` is asked and denied headless; nothing else is asked (bob's `node --test`
    // and the edits in src/, test/ and README.md are allowed by the demo's rules).
    const asks = of('ask');
    const npmTest = asks.find(
      (line) => (line.input as { command?: string } | undefined)?.command === 'npm test',
    );
    expect(npmTest).toMatchObject({ agentName: 'alice', toolName: 'Bash' });
    expect(asks, story).toHaveLength(1);
    expect(of('ask_answer').find((line) => line.askId === npmTest?.askId)).toMatchObject({
      behavior: 'deny',
      by: 'headless policy',
    });
    expect(
      of('spawn_end')
        .map((line) => [line.agentName, line.status])
        .sort(),
    ).toEqual([
      ['alice', 'completed'],
      ['bob', 'completed'],
      ['carol', 'completed'],
    ]);

    const result = lines.at(-1) as Line & {
      status: string;
      exitCode: number;
      usage: Record<string, { outputTokens: number }>;
      denials: { agentName: string; toolName?: string }[];
      shutdown: { killed: string[] };
    };
    expect(result).toMatchObject({ type: 'result', status: 'completed', exitCode: 0 });
    expect(result.text).toContain('The team has been shut down and deleted.');
    for (const member of ['team-lead', 'alice', 'bob'])
      expect(result.usage[member]?.outputTokens, member).toBeGreaterThan(0);
    expect(result.denials).toContainEqual(
      expect.objectContaining({ agentName: 'alice', toolName: 'Bash' }),
    );
    expect(result.shutdown.killed).toEqual([]);
    expect(processesInvolving(folder)).toEqual([]);

    // The real repository: slugify is there and its tests pass; the team deleted itself.
    const repository = path.join(folder, 'repo');
    const tests = execFileSync(process.execPath, ['--test'], { cwd: repository, encoding: 'utf8' });
    expect(tests).toMatch(/# pass 4/);
    // alice's commit, merged by the lead, is in the main branch; her clean worktree is gone.
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: repository, encoding: 'utf8' }).trim();
    expect(git('log', '--format=%s')).toBe('Add slugify(text)\ndemo-strings: capitalize');
    expect(existsSync(worktree)).toBe(false);
    expect(git('worktree', 'list', '--porcelain')).not.toContain('teammate-alice');
    expect(of('notice').map((line) => line.text)).toContainEqual(
      expect.stringContaining(`its worktree ${worktree} held nothing new and was removed`),
    );
    expect(existsSync(path.join(folder, 'muster-home', 'teams', 'slugify-team'))).toBe(false);
    const doctor = await runMuster(['doctor', '--root', path.join(folder, 'muster-home')]);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
  }, 150_000);

  it("text: the lead's final text, each line marked as the scripted demo, denials on stderr", async () => {
    const run = await runMuster(['demo', '--run', '-p'], {
      unset: DEMO_UNSET,
      timeoutMs: 120_000,
    });
    demoFolder(run.stderr);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => line.startsWith('[scripted demo] '))).toBe(true);
    expect(run.stderr).toContain('[scripted demo: @muster/scripted-model, not a model]');
    // Every line on stderr says it is the scripted demo, the denial too.
    const stderrLines = run.stderr.trim().split('\n');
    expect(stderrLines.filter((line) => !line.includes('scripted demo'))).toEqual([]);
    expect(run.stderr).toMatch(
      /\[scripted demo\] muster: denied alice's Bash \{"command":"npm test"/,
    );
    expect(run.stderr).toContain(
      'muster: scripted demo teammates: alice, bob: in-process; carol: pty (--teammate-mode auto;',
    );
    // The story on stderr: spawns, the plan, messages, shutdowns, ends.
    for (const step of [
      '[scripted demo] muster: team-lead spawned alice (implementer, in-process, in its own git worktree ',
      '[scripted demo] muster: alice runs git add -A && git commit -m "Add slugify(text)"',
      '[scripted demo] muster: team-lead runs git merge --ff-only ',
      'held nothing new and was removed.',
      '[scripted demo] muster: team-lead spawned carol (Explore, pty)',
      '[scripted demo] muster: bob asks team-lead to approve a plan',
      '[scripted demo] muster: carol → team-lead: Task #4 done: review of slugify()',
      '[scripted demo] muster: alice agreed to shut down',
      '[scripted demo] muster: bob ended (completed)',
    ])
      expect(run.stderr).toContain(step);
  }, 150_000);
});

describe('muster demo --run -p --teammate-mode in-process', () => {
  it('puts all three teammates in-process and says so', async () => {
    const run = await runMuster(
      ['demo', '--run', '-p', '--teammate-mode', 'in-process', '--output-format', 'stream-json'],
      { unset: DEMO_UNSET, timeoutMs: 120_000 },
    );
    demoFolder(run.stderr);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'muster: scripted demo teammates: alice, bob, carol: in-process (--teammate-mode in-process)',
    );
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);
    expect(
      lines
        .filter((line) => line.type === 'spawn')
        .map((line) => [line.agentName, line.backendType])
        .sort(),
      streamStory(lines),
    ).toEqual([
      ['alice', 'in-process'],
      ['bob', 'in-process'],
      ['carol', 'in-process'],
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'result', status: 'completed', exitCode: 0 });
  }, 150_000);
});

describe('muster demo --run -p --teammate-mode pty', () => {
  it('runs all three teammates as real processes on PTYs, and leaves none of them running', async () => {
    const run = await runMuster(
      ['demo', '--run', '-p', '--teammate-mode', 'pty', '--output-format', 'stream-json'],
      { unset: DEMO_UNSET, timeoutMs: 120_000 },
    );
    const folder = demoFolder(run.stderr);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);
    // A failure below prints the run's story: who said what, asked what, and what was delivered when.
    const story = streamStory(lines);
    expect(
      lines
        .filter((line) => line.type === 'spawn')
        .map((line) => [line.agentName, line.backendType])
        .sort(),
      story,
    ).toEqual([
      ['alice', 'pty'],
      ['bob', 'pty'],
      ['carol', 'pty'],
    ]);
    expect(lines.at(-1), story).toMatchObject({ type: 'result', status: 'completed', exitCode: 0 });
    // alice's npm test is denied by the lead's headless policy, bob's node --test allowed by the
    // rule (a process teammate asks the lead even for what the rules allow).
    const asks = new Map(
      lines.filter((line) => line.type === 'ask').map((line) => [line.askId, line]),
    );
    const answers = lines
      .filter((line) => line.type === 'ask_answer' && asks.get(line.askId)?.toolName === 'Bash')
      .map((line) => [asks.get(line.askId)?.agentName, line.behavior]);
    // alice's commit in her worktree is allowed by the demo's git rule.
    expect(answers, story).toEqual([
      ['alice', 'deny'],
      ['alice', 'allow'],
      ['bob', 'allow'],
    ]);
    expect(processesInvolving(folder)).toEqual([]);
    const tests = execFileSync(process.execPath, ['--test'], {
      cwd: path.join(folder, 'repo'),
      encoding: 'utf8',
    });
    expect(tests).toMatch(/# pass 4/);
  }, 150_000);
});

describe('muster run -p', () => {
  it('with a scripted model that never finishes, --timeout 2 stops the team: exit 3 and no process left', async () => {
    const cwd = await makeTempDirectory('muster-cli-run-stuck-');
    const root = await makeTempDirectory('muster-cli-run-stuck-root-');
    const server = startNodeProcess(
      path.join(repositoryRoot, 'packages/scripted-model/dist/cli.js'),
      [
        '--script',
        path.join(repositoryRoot, 'apps/cli/src/test-fixtures/never-finishing-team-script.mjs'),
      ],
    );
    try {
      const bannerLine = await server.waitForLine((line) => line.includes('ANTHROPIC_BASE_URL='));
      const url = /ANTHROPIC_BASE_URL=(\S+)/.exec(bannerLine)?.[1] ?? '';
      const marker = `2999.${process.pid}${Date.now() % 100_000}`;
      const run = await runMuster(
        [
          'run',
          '-p',
          `Wait for the job, marker ${marker}`,
          '--timeout',
          '2',
          '--output-format',
          'stream-json',
          '--root',
          root,
          '--cwd',
          cwd,
          '--allowed-tools',
          'Bash(sleep:*)',
        ],
        {
          env: { ANTHROPIC_API_KEY: 'test-key-for-the-scripted-model', ANTHROPIC_BASE_URL: url },
          timeoutMs: 60_000,
        },
      );
      expect(run.code, run.stderr).toBe(3);
      const lines = run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Line);
      expect(lines.some((line) => line.type === 'spawn' && line.agentName === 'alice')).toBe(true);
      const started = lines.filter(
        (line) =>
          line.type === 'agent' &&
          (line.event as { type: string; name?: string }).type === 'tool_call_start' &&
          (line.event as { name?: string }).name === 'Bash',
      );
      expect(started.map((line) => line.agentName).sort()).toEqual(['alice', 'team-lead']);
      expect(lines.at(-1)).toMatchObject({ type: 'result', status: 'timeout', exitCode: 3 });
      expect(processesRunning(`sleep ${marker}`)).toEqual([]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 90_000);

  it('SIGINT shuts the team down: exit 3, status aborted, and no process of the team left', async () => {
    const cwd = await makeTempDirectory('muster-cli-run-signal-');
    const root = await makeTempDirectory('muster-cli-run-signal-root-');
    const server = startNodeProcess(
      path.join(repositoryRoot, 'packages/scripted-model/dist/cli.js'),
      [
        '--script',
        path.join(repositoryRoot, 'apps/cli/src/test-fixtures/never-finishing-team-script.mjs'),
      ],
    );
    try {
      const bannerLine = await server.waitForLine((line) => line.includes('ANTHROPIC_BASE_URL='));
      const url = /ANTHROPIC_BASE_URL=(\S+)/.exec(bannerLine)?.[1] ?? '';
      const marker = `2998.${process.pid}${Date.now() % 100_000}`;
      const muster = startNodeProcess(
        builtCli,
        [
          'run',
          '-p',
          `Wait for the job, marker ${marker}`,
          '--output-format',
          'stream-json',
          '--root',
          root,
          '--cwd',
          cwd,
          '--allowed-tools',
          'Bash(sleep:*)',
        ],
        { env: { ANTHROPIC_API_KEY: 'test-key-for-the-scripted-model', ANTHROPIC_BASE_URL: url } },
      );
      // Both sleeps run (the lead's and alice's) before the signal comes.
      await muster.waitForLine(
        (line) => line.includes('"tool_call_start"') && line.includes('"agentName":"alice"'),
      );
      await muster.waitForLine(
        (line) =>
          line.includes('"tool_call_start"') &&
          line.includes('"agentName":"team-lead"') &&
          line.includes('"Bash"'),
      );
      for (let waited = 0; processesRunning(`sleep ${marker}`).length < 2; waited += 50) {
        if (waited > 20_000) throw new Error('the two sleeps never both ran');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      muster.child.kill('SIGINT');
      const ended = await muster.exited;
      expect(ended.code, ended.stderr).toBe(3);
      expect(ended.stderr).toContain('SIGINT: asking the team to shut down');
      const result = JSON.parse(ended.stdout.trim().split('\n').at(-1)!) as Line;
      expect(result).toMatchObject({ type: 'result', status: 'aborted', exitCode: 3 });
      expect(processesRunning(`sleep ${marker}`)).toEqual([]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 90_000);

  it('without a model key: one line saying how to set one or run the demo, exit 1', async () => {
    const run = await runMuster(['run', '-p', 'Hello'], { unset: KEYS });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^muster: error: No model key: set ANTHROPIC_API_KEY .*muster demo --run \(add -p to run it headless\)\.$/,
    );
  });

  it('without -p and without a terminal: a usage error saying to add -p (the key is checked first)', async () => {
    const run = await runMuster(['run', 'Hello'], {
      env: { ANTHROPIC_API_KEY: 'test-key-never-used' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /muster run without -p is interactive and needs a terminal, but stdin and stdout are not one: add -p to run it headless \(muster run -p "<prompt>"\)/,
    );
    const demo = await runMuster(['demo', '--run']);
    expect(demo.code).toBe(2);
    expect(demo.stderr).toContain(
      'muster demo --run without -p is interactive and needs a terminal',
    );
    // Refused before anything was made.
    expect(demo.stderr).not.toContain('scripted demo in');
    const noKey = await runMuster(['run'], { unset: KEYS });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('No model key');
  });

  it('a wrong flag ends with exit code 2 and names the flag', async () => {
    const cwd = await makeTempDirectory('muster-cli-run-flags-');
    const cases: [string[], string][] = [
      [['--output-format', 'xml'], '--output-format'],
      [['--permission-mode', 'yolo'], '--permission-mode'],
      [['--teammate-mode', 'screen'], '--teammate-mode'],
      [['--timeout', '0'], '--timeout'],
      [['--timeout', 'soon'], '--timeout'],
      [['--max-turns', '1.5'], '--max-turns'],
      [['--allowed-tools', 'Bash('], '--allowed-tools'],
      [['--disallowed-tools', ','], '--disallowed-tools'],
      [['--cwd', path.join(cwd, 'missing')], '--cwd'],
      [['--frobnicate'], '--frobnicate'],
    ];
    const wrong: string[] = [];
    for (const [flags, named] of cases) {
      const run = await runMuster(['run', '-p', 'Hello', ...flags], {
        env: { ANTHROPIC_API_KEY: 'test-key-never-used' },
      });
      if (run.code !== 2 || !run.stderr.includes(named) || run.stdout !== '')
        wrong.push(`${flags.join(' ')} → exit ${run.code}: ${run.stderr.slice(0, 200)}`);
    }
    const noPrint = await runMuster(['run', 'Hello'], { env: { ANTHROPIC_API_KEY: 'x' } });
    if (noPrint.code !== 2 || !noPrint.stderr.includes('-p')) wrong.push(`no -p → ${noPrint.code}`);
    const demoCwd = await runMuster(['demo', '--run', '-p', '--cwd', cwd]);
    if (demoCwd.code !== 2 || !demoCwd.stderr.includes('--cwd'))
      wrong.push(`demo --cwd → ${demoCwd.code}`);
    expect(wrong).toEqual([]);
  }, 120_000);

  it('offers the same permission modes as @muster/protocol', () => {
    expect([...HEADLESS_PERMISSION_MODES]).toEqual([...PERMISSION_MODES]);
  });
});
