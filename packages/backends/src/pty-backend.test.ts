// The pty backend with real PTYs (node-pty 1.1.0, built here) and real processes. Members with
// `readiness: 'external'` run plain shell commands; the connect-back members are in
// pty-connect-back.test.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { BackendError } from './backend-error.js';
import { registeredCleanups, runRegisteredCleanups } from './cleanup-registry.js';
import type { MemberSpec } from './backend-types.js';
import { createPtyBackend, type PtyBackend } from './pty-backend.js';
import { isProcessAlive, sessionMembers, waitUntil } from './pty-test-support.js';

const backends: PtyBackend[] = [];

function track(backend: PtyBackend): PtyBackend {
  backends.push(backend);
  return backend;
}

afterEach(async () => {
  await Promise.allSettled(backends.splice(0).map((backend) => backend.close()));
});

async function shellSpec(script: string, extra: Partial<MemberSpec> = {}): Promise<MemberSpec> {
  const root = await makeTempDirectory('muster-pty-');
  return {
    root,
    teamName: 'alpha',
    agentName: 'worker',
    agentId: 'worker@alpha',
    cwd: root,
    command: { file: 'sh', args: ['-c', script] },
    readiness: 'external',
    ...extra,
  };
}

describe('createPtyBackend: availability (R26)', () => {
  it('says node-pty is not built, with the fix, when it cannot load, and refuses to spawn', async () => {
    const backend = track(
      createPtyBackend({
        loadPty: () => Promise.reject(new Error('Cannot find module pty.node')),
      }),
    );
    const availability = await backend.availability();
    expect(availability.available).toBe(false);
    if (availability.available) return;
    expect(availability.reason).toMatch(/node-pty is not built \(Cannot find module pty\.node\)/);
    expect(availability.fix).toMatch(/make, g\+\+/);
    const error = await backend.spawn(await shellSpec('exit 0')).catch((caught: unknown) => caught);
    expect(BackendError.hasCode(error, 'UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/node-pty is not built.*reinstall/);
  });

  it('imports fine in a process where node-pty cannot be resolved at all', async () => {
    const fixture = fileURLToPath(
      new URL('../test-fixtures/pty-without-node-pty.mjs', import.meta.url),
    );
    const result = await startNodeProcess(fixture, [], { cwd: await makeTempDirectory() }).exited;
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      availability: { available: boolean; reason?: string };
      spawnError?: { code: string; message: string };
    };
    expect(report.availability.available).toBe(false);
    expect(report.availability.reason).toMatch(/^node-pty is not built \(Cannot find package/);
    expect(report.spawnError?.code).toBe('UNAVAILABLE');
    expect(report.spawnError?.message).toMatch(/make, g\+\+/);
  });

  it('is available here, where node-pty is built', async () => {
    const availability = await track(createPtyBackend()).availability();
    expect(availability.available).toBe(true);
  });
});

describe('createPtyBackend: spawn', () => {
  it('refuses a bad spec or a missing program with what to fix', async () => {
    const backend = track(createPtyBackend());
    const spec = await shellSpec('exit 0');
    await expect(backend.spawn({ ...spec, command: undefined })).rejects.toThrow(
      /command must be \{ file: string, args: string\[\] \}/,
    );
    await expect(backend.spawn({ ...spec, cwd: 'relative' })).rejects.toThrow(
      /cwd must be an absolute path/,
    );
    await expect(
      backend.spawn({ ...spec, command: { file: 'no-such-program-here', args: [] } }),
    ).rejects.toThrow(/no executable "no-such-program-here" on its PATH/);
    await expect(backend.spawn({ ...spec, cwd: path.join(spec.cwd, 'missing') })).rejects.toThrow(
      /is not a folder/,
    );
  });

  it('runs the member in its cwd with the link variables and without model credentials', async () => {
    const backend = track(
      createPtyBackend({
        environment: { ...process.env, ANTHROPIC_API_KEY: 'sk-secret-value', KEPT: 'from lead' },
      }),
    );
    // The member waits for a line after printing: output written just before a PTY closes
    // can be lost by the kernel, so the test reads it while the member still runs.
    const spec = await shellSpec(
      'echo "id=$MUSTER_AGENT_ID key=${ANTHROPIC_API_KEY:-none} kept=$KEPT extra=$EXTRA dir=$(pwd) term=$TERM"; read line',
      { environment: { EXTRA: 'from spec' } },
    );
    const member = await backend.spawn(spec);
    const logFile = member.describe().logFile as string;
    expect(logFile).toBe(
      path.join(spec.root, 'teams', 'alpha', '.muster', 'pty-logs', 'worker.log'),
    );
    const expected = `id=worker@alpha key=none kept=from lead extra=from spec dir=${spec.cwd} term=xterm-256color`;
    await waitUntil(
      async () => (await member.screen()).lines.some((line) => line.includes(expected)),
      10_000,
    );
    member.write('\r');
    const exit = await member.exited;
    expect(exit).toMatchObject({ reason: 'exited', code: 0, signal: null });
    expect(readFileSync(logFile, 'utf8')).toContain(expected);
  });

  it('reports the exit code, keeps the screen, and ignores write and resize after exit (R25)', async () => {
    const backend = track(createPtyBackend({ columns: 40, rows: 5 }));
    const member = await backend.spawn(
      await shellSpec('read line; printf "step 1\\rgot %s\\n" "$line"; read line; exit 3'),
    );
    member.markReady();
    await member.ready;
    member.write('hello\r');
    await waitUntil(async () => (await member.screen()).lines.includes('got hello'), 10_000);
    member.write('\r');
    const exit = await member.exited;
    expect(exit).toMatchObject({ reason: 'exited', code: 3, signal: null });
    expect(exit.message).toMatch(/exited with code 3/);
    expect(member.isAlive()).toBe(false);
    const screen = await member.screen();
    expect(screen.lines).toContain('got hello');
    // node-pty itself throws EBADF here; the handle must not.
    expect(() => member.resize(80, 24)).not.toThrow();
    expect(() => member.write('more')).not.toThrow();
    expect(() => member.resize(0, 24)).toThrow(/columns must be a whole number/);
    expect(await member.kill()).toBe(exit);
  });

  it('resizes a running member and its screen', async () => {
    const backend = track(createPtyBackend({ columns: 40, rows: 5 }));
    const member = await backend.spawn(await shellSpec('read line; stty size; read line; exit 0'));
    member.resize(100, 30);
    member.write('\r');
    await waitUntil(async () => (await member.screen()).lines.includes('30 100'), 10_000);
    expect((await member.screen()).columns).toBe(100);
    member.write('\r');
    expect((await member.exited).code).toBe(0);
  });

  it('rejects ready and kills the member when it is not confirmed in time', async () => {
    const backend = track(createPtyBackend());
    const member = await backend.spawn(await shellSpec('sleep 1000', { readyTimeoutMs: 300 }));
    const error = await member.ready.catch((caught: unknown) => caught);
    expect(BackendError.hasCode(error, 'NOT_READY')).toBe(true);
    expect((await member.exited).reason).toBe('not-ready');
  });

  it('rejects ready when the member ends before it is confirmed', async () => {
    const backend = track(createPtyBackend());
    const member = await backend.spawn(await shellSpec('exit 7'));
    await expect(member.ready).rejects.toThrow(/ended before it said so.*code 7/);
  });

  it('kills the whole session, HUP- and TERM-ignoring grandchildren included (R24)', async () => {
    const backend = track(createPtyBackend());
    const member = await backend.spawn(
      await shellSpec('(trap "" HUP TERM; exec sleep 1000) & sleep 1000 & echo started; wait'),
    );
    const pid = member.describe().pid as number;
    await waitUntil(() => sessionMembers(pid).length >= 3, 10_000);
    const everyone = sessionMembers(pid);
    const exit = await member.kill({ graceful: true, deadlineMs: 500 });
    expect(exit.reason).toBe('killed');
    await waitUntil(() => everyone.every((each) => !isProcessAlive(each)), 10_000);
    expect(everyone.filter((each) => isProcessAlive(each))).toEqual([]);
  });

  it('ends and reports as vanished a member whose PTY host died, and starts a new host', async () => {
    const backend = track(createPtyBackend());
    const member = await backend.spawn(await shellSpec('sleep 1000'));
    const pid = member.describe().pid as number;
    process.kill(member.hostPid, 'SIGKILL');
    const exit = await member.exited;
    expect(exit.reason).toBe('vanished');
    expect(exit.message).toMatch(/the PTY host \(pid \d+\) ended with SIGKILL/);
    await waitUntil(() => !isProcessAlive(pid), 10_000);
    const next = await backend.spawn(await shellSpec('exit 0'));
    expect(next.hostPid).not.toBe(member.hostPid);
    expect((await next.exited).code).toBe(0);
  });

  it('registers a process-wide cleanup once it has a helper, which ends its members (R32)', async () => {
    const backend = track(createPtyBackend());
    const member = await backend.spawn(await shellSpec('sleep 1000'));
    expect(registeredCleanups()).toContain('pty backend');
    await runRegisteredCleanups('shutdown');
    expect((await member.exited).reason).toBe('killed');
    expect(isProcessAlive(member.hostPid)).toBe(false);
    expect(registeredCleanups()).not.toContain('pty backend');
    await expect(backend.spawn(await shellSpec('exit 0'))).rejects.toThrow(/after close\(\)/);
  });

  it('close() kills its members and refuses later spawns', async () => {
    const backend = createPtyBackend();
    const spec = await shellSpec('sleep 1000');
    const member = await backend.spawn(spec);
    expect(member.isAlive()).toBe(true);
    await backend.close();
    expect((await member.exited).reason).toBe('killed');
    expect(member.isAlive()).toBe(false);
    await expect(backend.spawn(spec)).rejects.toThrow(/after close\(\)/);
  });
});
