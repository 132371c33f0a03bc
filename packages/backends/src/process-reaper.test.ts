// R31 for what in-process members' tools start: a lead SIGKILLed with members whose tools left
// `&` and `setsid` grandchildren leaves nothing of them running; processes without the lead
// run's marker (or with another run's) are never touched; the reaper itself is gone afterwards.
// Real processes only (Linux /proc).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLeadLinkVariable, isModelCredentialVariable, LEAD_RUN_VARIABLE } from '@muster/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { isSameProcess, readProcessIdentity, type ProcessIdentity } from './process-control.js';
import { createInProcessBackend } from './in-process-backend.js';
import type { InProcessMemberContext } from './backend-types.js';
import { processReaperAvailability, startProcessReaper } from './process-reaper.js';
import {
  environmentHoldsEntry,
  findMarkedProcesses,
  signalIfSameProcess,
} from './process-reaper-sweep.js';

const leadFixture = fileURLToPath(new URL('../test-fixtures/reaper-lead.mjs', import.meta.url));
const onLinux = process.platform === 'linux';
const strays: number[] = [];
const folders: string[] = [];

afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 50 ms until it is true or `limitMs` passed; resolves with the time taken, or undefined. */
async function waitFor(check: () => boolean, limitMs: number): Promise<number | undefined> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    if (check()) return Date.now() - started;
    await sleep(50);
  }
  return check() ? Date.now() - started : undefined;
}

/** Starts `sleep 1000` detached with `extra` in its environment; tracked for cleanup. */
function startSleeper(extra: Record<string, string>, command = 'sleep 1000'): ProcessIdentity {
  const child: ChildProcess = spawn('/bin/sh', ['-c', `exec ${command}`], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, ...extra },
  });
  child.unref();
  const pid = child.pid as number;
  strays.push(pid);
  const identity = readProcessIdentity(pid);
  if (identity === undefined) throw new Error(`sleeper ${pid} is not in /proc`);
  return identity;
}

describe.skipIf(!onLinux)('process reaper', () => {
  it('the marker is kept in tool environments: neither a credential nor a lead link variable', () => {
    expect(LEAD_RUN_VARIABLE).toBe('MUSTER_LEAD_RUN');
    expect(isLeadLinkVariable(LEAD_RUN_VARIABLE)).toBe(false);
    expect(isModelCredentialVariable(LEAD_RUN_VARIABLE)).toBe(false);
  });

  it('matches the marker only as a whole environment entry', () => {
    const needle = Buffer.from('MUSTER_LEAD_RUN=abcdefgh\0');
    const block = (...entries: string[]) => Buffer.from(entries.map((e) => `${e}\0`).join(''));
    expect(environmentHoldsEntry(block('A=1', 'MUSTER_LEAD_RUN=abcdefgh'), needle)).toBe(true);
    expect(environmentHoldsEntry(block('MUSTER_LEAD_RUN=abcdefgh', 'B=2'), needle)).toBe(true);
    expect(environmentHoldsEntry(block('XMUSTER_LEAD_RUN=abcdefgh'), needle)).toBe(false);
    expect(environmentHoldsEntry(block('MUSTER_LEAD_RUN=abcdefgh-more'), needle)).toBe(false);
    expect(
      environmentHoldsEntry(
        block('X=MUSTER_LEAD_RUN=abcdefgh', 'MUSTER_LEAD_RUN=abcdefgh'),
        needle,
      ),
    ).toBe(true);
  });

  it('never signals a pid whose start time is not the one recorded', () => {
    const sleeper = startSleeper({});
    expect(signalIfSameProcess({ ...sleeper, startTime: '1' }, 'SIGKILL')).toBe(false);
    expect(isSameProcess(sleeper)).toBe(true);
  });

  it('close() sweeps marked processes (SIGKILL after the grace for a SIGTERM-deaf one) and spares the rest', async () => {
    const reaper = await startProcessReaper({ graceMs: 300, settleMs: 2_000 });
    try {
      const marked = startSleeper({ ...reaper.environment });
      const deaf = startSleeper(
        { ...reaper.environment },
        `/bin/sh -c 'trap "" TERM; while :; do sleep 1; done'`,
      );
      const unmarked = startSleeper({});
      const otherRun = startSleeper({ [LEAD_RUN_VARIABLE]: 'another-lead-run-1234' });
      expect(findMarkedProcesses(LEAD_RUN_VARIABLE, reaper.runId).map((p) => p.pid)).toEqual(
        expect.arrayContaining([marked.pid, deaf.pid]),
      );
      const report = await reaper.close();
      expect(report?.found).toEqual(expect.arrayContaining([marked.pid, deaf.pid]));
      expect(report?.forced).toContain(deaf.pid);
      expect(report?.survivors).toEqual([]);
      expect(isSameProcess(marked)).toBe(false);
      expect(isSameProcess(deaf)).toBe(false);
      expect(isSameProcess(unmarked)).toBe(true);
      expect(isSameProcess(otherRun)).toBe(true);
      expect(reaper.isRunning()).toBe(false);
      expect((await reaper.ended).code).toBe(0);
    } finally {
      await reaper.close();
    }
  }, 30_000);

  it('a SIGKILLed lead with in-process members leaves none of their tool processes (& and setsid grandchildren) running', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'muster-reaper-'));
    folders.push(folder);
    const unmarked = startSleeper({});
    const otherRun = startSleeper({ [LEAD_RUN_VARIABLE]: 'another-lead-run-5678' });
    const lead = spawn(process.execPath, [leadFixture, folder, '2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    strays.push(lead.pid as number);
    let stderr = '';
    lead.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const line = await new Promise<string>((resolve, reject) => {
      let output = '';
      lead.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('\n')) resolve(output.split('\n')[0] as string);
      });
      lead.once('exit', (code) => reject(new Error(`the lead ended (${code}): ${stderr}`)));
    });
    const started = JSON.parse(line) as { runId: string; reaperPid: number; toolPids: number[] };
    strays.push(started.reaperPid, ...started.toolPids);
    const reaper = readProcessIdentity(started.reaperPid);
    expect(reaper).toBeDefined();
    // Each tool is bash + a background sleep + a setsid sleep: 6 marked processes for 2 members.
    let marked: ProcessIdentity[] = [];
    const sawAll = await waitFor(() => {
      marked = findMarkedProcesses(LEAD_RUN_VARIABLE, started.runId);
      // A `setsid` child shows in /proc before it has left its parent's session: wait for both.
      return marked.length >= 6 && new Set(marked.map((identity) => identity.sid)).size >= 4;
    }, 10_000);
    expect(sawAll, `marked processes seen: ${marked.length}`).toBeDefined();
    strays.push(...marked.map((identity) => identity.pid));
    expect(new Set(marked.map((identity) => identity.sid)).size).toBeGreaterThanOrEqual(4);

    lead.kill('SIGKILL');
    const goneAfterMs = await waitFor(
      () => marked.every((identity) => !isSameProcess(identity)),
      10_000,
    );
    const survivors = marked.filter((identity) => isSameProcess(identity)).map((p) => p.pid);
    expect(survivors, 'marked processes still running 10 s after the lead SIGKILL').toEqual([]);
    console.log(
      `process reaper: ${marked.length} tool processes gone ${goneAfterMs} ms after the lead's SIGKILL`,
    );
    const reaperGone = await waitFor(() => !isSameProcess(reaper as ProcessIdentity), 10_000);
    expect(reaperGone, 'the reaper is still running').toBeDefined();
    expect(isSameProcess(unmarked)).toBe(true);
    expect(isSameProcess(otherRun)).toBe(true);
  }, 40_000);
});

describe.skipIf(!onLinux)('process reaper and a lead that ends normally', () => {
  it('does not keep the lead alive, and exits after the lead has', async () => {
    const distUrl = new URL('../dist/index.js', import.meta.url).href;
    const script = `
      import { createInProcessBackend, sharedProcessReaper } from ${JSON.stringify(distUrl)};
      const backend = createInProcessBackend();
      const handle = await backend.spawn({ root: '/tmp', teamName: 't', agentName: 'a',
        agentId: 'a@t', cwd: '/tmp', run: async (context) => { context.ready(); } });
      await handle.exited;
      await backend.close();
      console.log((await sharedProcessReaper()).pid);`;
    const lead = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    strays.push(lead.pid as number);
    let output = '';
    lead.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => resolve(-1), 20_000);
      lead.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(code, 'the lead did not exit by itself within 20 s').toBe(0);
    const reaperPid = Number(output.trim());
    expect(Number.isInteger(reaperPid) && reaperPid > 0).toBe(true);
    strays.push(reaperPid);
    const gone = await waitFor(() => {
      const entry = readProcessIdentity(reaperPid);
      return entry === undefined || !isSameProcess(entry);
    }, 10_000);
    expect(gone, 'the reaper still runs 10 s after its lead exited').toBeDefined();
  }, 40_000);
});

describe('process reaper availability and the in-process backend', () => {
  it('is unavailable without /proc (macOS, Windows), saying why, and the backend says so', () => {
    const darwin = processReaperAvailability('darwin');
    expect(darwin.available).toBe(false);
    expect(darwin.available ? '' : darwin.reason).toMatch(/no \/proc\/<pid>\/environ on darwin/);
    expect(processReaperAvailability('win32').available).toBe(false);
    expect(processReaperAvailability().available).toBe(onLinux);
  });

  it('refuses a processReaper that is neither a ProcessReaper nor false', () => {
    expect(() => createInProcessBackend({ processReaper: 'yes' as never })).toThrow(
      /processReaper must be a ProcessReaper/,
    );
  });

  it.skipIf(!onLinux)(
    'gives each member the marker of the reaper it was given, and none with processReaper: false',
    async () => {
      const reaper = await startProcessReaper();
      const seen = async (option: false | typeof reaper) => {
        const backend = createInProcessBackend({ processReaper: option });
        let context: InProcessMemberContext | undefined;
        const handle = await backend.spawn({
          root: tmpdir(),
          teamName: 'marked',
          agentName: 'one',
          agentId: 'one@marked',
          cwd: tmpdir(),
          run: async (given) => {
            context = given;
            given.ready();
            await new Promise((resolve) => given.signal.addEventListener('abort', resolve));
          },
        });
        await handle.ready;
        const availability = await backend.availability();
        const notes = availability.available ? (availability.notes ?? []) : [];
        await backend.close();
        return { environment: context?.environment, notes };
      };
      try {
        const withReaper = await seen(reaper);
        expect(withReaper.environment).toEqual({ [LEAD_RUN_VARIABLE]: reaper.runId });
        const without = await seen(false);
        expect(without.environment).toEqual({});
        expect(without.notes.join(' ')).toMatch(/no process reaper \(processReaper: false\)/);
        await reaper.close();
        await expect(seen(reaper)).rejects.toThrow(/has ended/);
      } finally {
        await reaper.close();
      }
    },
    30_000,
  );
});
