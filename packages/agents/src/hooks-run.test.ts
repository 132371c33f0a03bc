import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { runHookCommand } from './hooks-run.js';

// A process started with `setsid` leaves the hook's process group, so killing the group does
// not reach it, and it keeps the hook's stdout open for as long as it runs (300 s here). The
// run must settle anyway; the bound below is far under those 300 s and far over the grace.
const HOLDER_SECONDS = 300;
const SETTLE_BOUND_MS = 20_000;

const started: number[] = [];

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

/** Shell text: start the setsid holder, and go on only once it runs in its own session. */
function holder(pidFile: string): string {
  return `setsid sh -c 'echo $$ > "$0"; exec sleep ${HOLDER_SECONDS}' '${pidFile}' & until [ -s '${pidFile}' ]; do sleep 0.05; done`;
}

/** The pid the hook wrote to `file`, once that process has left for a session of its own. */
async function holderPid(file: string): Promise<number> {
  const end = Date.now() + 10_000;
  while (Date.now() < end) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (text.trim() !== '') {
      const pid = Number(text.trim());
      if (!started.includes(pid)) started.push(pid);
      if (sessionOf(pid) === pid) return pid;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the hook's setsid child (pid in ${file}) never ran in a session of its own`);
}

function sessionOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function run(line: string, timeoutSeconds: number, signal?: AbortSignal) {
  const cwd = await makeTempDirectory('muster-agents-hooks-run-');
  const begun = Date.now();
  const result = await runHookCommand(
    { event: 'TeammateIdle', command: line, timeoutSeconds, source: 'test settings' },
    '{}',
    { cwd, environment: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, signal },
  );
  return { result, elapsed: Date.now() - begun, cwd };
}

describe('runHookCommand with a setsid child holding the output pipe', () => {
  it('settles soon after the shell exits, keeping what it printed and its exit code', async () => {
    const folder = await makeTempDirectory('muster-agents-hooks-run-pid-');
    const pidFile = path.join(folder, 'pid');
    const pending = run(`echo before; ${holder(pidFile)}; exit 2`, HOLDER_SECONDS * 2);
    const pid = await holderPid(pidFile);
    const { result, elapsed } = await pending;
    console.log(`settled ${elapsed} ms after start (setsid child still alive: ${alive(pid)})`);
    expect(alive(pid)).toBe(true);
    expect(elapsed).toBeLessThan(SETTLE_BOUND_MS);
    expect(result).toMatchObject({ outcome: 'block', exitCode: 2, timedOut: false });
    expect(result.stdout).toBe('before\n');
  }, 30_000);

  it('settles on timeout even though the pipe stays open', async () => {
    const folder = await makeTempDirectory('muster-agents-hooks-run-pid-');
    const pidFile = path.join(folder, 'pid');
    const pending = run(`${holder(pidFile)}; sleep ${HOLDER_SECONDS}`, 1);
    await holderPid(pidFile);
    const { result, elapsed } = await pending;
    expect(elapsed).toBeLessThan(SETTLE_BOUND_MS);
    expect(result).toMatchObject({ outcome: 'error', timedOut: true, aborted: false });
  }, 30_000);

  it('settles on abort even though the pipe stays open', async () => {
    const folder = await makeTempDirectory('muster-agents-hooks-run-pid-');
    const pidFile = path.join(folder, 'pid');
    const controller = new AbortController();
    const pending = run(
      `${holder(pidFile)}; sleep ${HOLDER_SECONDS}`,
      HOLDER_SECONDS * 2,
      controller.signal,
    );
    await holderPid(pidFile);
    controller.abort();
    const { result } = await pending;
    expect(result).toMatchObject({ outcome: 'error', aborted: true, timedOut: false });
  }, 30_000);
});
