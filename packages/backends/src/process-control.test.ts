import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { BackendError } from './backend-error.js';
import { createLeadLink, type LeadLink } from './lead-link.js';
import {
  deathSignalPrefix,
  isSameProcess,
  killProcessTree,
  readProcessIdentity,
  type ProcessIdentity,
} from './process-control.js';

const memberFixture = fileURLToPath(new URL('../test-fixtures/member.mjs', import.meta.url));
const started: ChildProcess[] = [];
const strays: number[] = [];
const links: LeadLink[] = [];

afterEach(async () => {
  for (const child of started.splice(0)) {
    if (child.pid !== undefined) strays.push(child.pid);
  }
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  for (const link of links.splice(0)) await link.close();
});

async function waitFor(check: () => boolean, boundMs = 10_000): Promise<boolean> {
  for (let waited = 0; waited < boundMs; waited += 50) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

interface FixtureEvent {
  event: string;
  pid?: number;
  pids?: number[];
  at: number;
}

function events(logFile: string): FixtureEvent[] {
  try {
    return readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as FixtureEvent);
  } catch {
    return [];
  }
}

async function startConnectedMember(
  mode: string,
  extraEnvironment: Record<string, string> = {},
): Promise<{ member: ProcessIdentity; tree: ProcessIdentity[] }> {
  const root = await makeTempDirectory();
  const folder = path.join(root, 'teams', 'alpha');
  await mkdir(folder, { recursive: true });
  const link = await createLeadLink({ teamFolder: folder });
  links.push(link);
  const logFile = path.join(root, 'member.log');
  const child = spawn(process.execPath, [memberFixture, mode], {
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      ...link.memberEnvironment('one@alpha'),
      MEMBER_FIXTURE_LOG: logFile,
      ...extraEnvironment,
    },
  });
  started.push(child);
  await link.waitForReady('one@alpha', { timeoutMs: 15_000 });
  const member = readProcessIdentity(child.pid as number) as ProcessIdentity;
  const grandchildren =
    events(logFile).find((entry) => entry.event === 'grandchildren')?.pids ?? [];
  strays.push(...grandchildren);
  const tree = grandchildren.map((pid) => readProcessIdentity(pid) as ProcessIdentity);
  return { member, tree };
}

describe('process identity', () => {
  it('reads pid, start time, group and session of a live process', () => {
    const self = readProcessIdentity(process.pid);
    expect(self?.pid).toBe(process.pid);
    expect(self?.startTime).toMatch(/^\d+$/);
    expect(isSameProcess(self as ProcessIdentity)).toBe(true);
    expect(readProcessIdentity(2 ** 22 + 1)).toBeUndefined();
  });

  it('deathSignalPrefix is setpriv --pdeathsig KILL here (util-linux supports it)', () => {
    expect(deathSignalPrefix()).toEqual(['setpriv', '--pdeathsig', 'KILL', '--']);
  });
});

describe('killProcessTree', () => {
  it('R24: ends a member and its HUP/TERM-ignoring grandchildren, in its group and in a new session', async () => {
    // The member leaves its processes to this kill alone (no cleanup of its own).
    const { member, tree } = await startConnectedMember('grandchild', {
      MEMBER_FIXTURE_NO_CLEANUP: '1',
    });
    expect(tree).toHaveLength(3);
    expect(tree.some((entry) => entry.sid !== member.sid)).toBe(true);
    const result = await killProcessTree(member, { graceMs: 500 });
    expect(result.forced.length).toBeGreaterThan(0);
    expect(result.survivors).toEqual([]);
    expect(await waitFor(() => [member, ...tree].every((entry) => !isSameProcess(entry)))).toBe(
      true,
    );
  });

  it('a member that ends its own processes on SIGTERM: nothing left to force, nothing left at all', async () => {
    const { member, tree } = await startConnectedMember('grandchild');
    const result = await killProcessTree(member, { graceMs: 5_000 });
    expect(result.survivors).toEqual([]);
    expect(await waitFor(() => [member, ...tree].every((entry) => !isSameProcess(entry)))).toBe(
      true,
    );
  });

  it('a member that ignores SIGTERM is SIGKILLed after the grace period', async () => {
    const { member } = await startConnectedMember('ignore-term');
    const result = await killProcessTree(member, { graceMs: 300 });
    expect(result.forced).toContain(member.pid);
    expect(await waitFor(() => !isSameProcess(member))).toBe(true);
  });

  it('R16: a reused pid (same pid, other start time) is never signalled', async () => {
    const sleeper = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' });
    started.push(sleeper);
    const real = readProcessIdentity(sleeper.pid as number) as ProcessIdentity;
    const recorded: ProcessIdentity = { ...real, startTime: String(Number(real.startTime) - 1) };
    expect(isSameProcess(recorded)).toBe(false);
    const error = await killProcessTree(recorded, { graceMs: 0 }).catch(
      (caught: unknown) => caught,
    );
    expect(BackendError.hasCode(error, 'IDENTITY_CHANGED')).toBe(true);
    expect(String(error)).toMatch(
      /now belongs to another process; nothing was signalled|nothing was signalled/,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(isSameProcess(real)).toBe(true);
    // Even our own pid with a stale start time is refused.
    const self = readProcessIdentity(process.pid) as ProcessIdentity;
    const stale = await killProcessTree({ ...self, startTime: '1' }, { graceMs: 0 }).catch(
      (caught: unknown) => caught,
    );
    expect(BackendError.hasCode(stale, 'IDENTITY_CHANGED')).toBe(true);
  });

  it('a member that is already gone: nothing to signal, no error', async () => {
    const quick = spawn('true', [], { detached: true, stdio: 'ignore' });
    const identity = readProcessIdentity(quick.pid as number);
    await new Promise((resolve) => quick.once('exit', resolve));
    if (identity === undefined) return;
    const result = await killProcessTree(identity, { graceMs: 100 });
    expect(result.survivors).toEqual([]);
  });

  it('never signals a group or session the caller belongs to (a non-detached child)', async () => {
    const child = spawn('sleep', ['1000'], { stdio: 'ignore' });
    started.push(child);
    const identity = readProcessIdentity(child.pid as number) as ProcessIdentity;
    expect(identity.pgid).toBe(readProcessIdentity(process.pid)?.pgid);
    const result = await killProcessTree(identity, { graceMs: 2_000 });
    expect(result.signalled).toEqual([child.pid]);
    expect(await waitFor(() => !isSameProcess(identity))).toBe(true);
  });
});

describe('deathSignalPrefix (R31 for direct children)', () => {
  it('a child started under the prefix dies with its SIGKILLed parent; one without it survives', async () => {
    const prefix = deathSignalPrefix();
    if (prefix.length === 0) return;
    const parentScript = `
      const { spawn } = require('node:child_process');
      const guarded = spawn(${JSON.stringify(prefix[0])}, [...${JSON.stringify(prefix.slice(1))}, 'sleep', '1000'], { stdio: 'ignore' });
      const plain = spawn('sleep', ['1000'], { stdio: 'ignore', detached: true });
      setTimeout(() => process.stdout.write(JSON.stringify({ guarded: guarded.pid, plain: plain.pid }) + '\\n'), 300);
      setInterval(() => {}, 60000);`;
    const parent = spawn(process.execPath, ['-e', parentScript], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    started.push(parent);
    const pids = await new Promise<{ guarded: number; plain: number }>((resolve) => {
      let output = '';
      parent.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('\n'))
          resolve(JSON.parse(output) as { guarded: number; plain: number });
      });
    });
    strays.push(pids.guarded, pids.plain);
    const guarded = readProcessIdentity(pids.guarded) as ProcessIdentity;
    const plain = readProcessIdentity(pids.plain) as ProcessIdentity;
    parent.kill('SIGKILL');
    expect(await waitFor(() => !isSameProcess(guarded))).toBe(true);
    expect(isSameProcess(plain)).toBe(true);
  });
});
