import { mkdir, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  FileLockError,
  acquireFileLock,
  currentProcessIdentity,
  isProcessAlive,
  isRecordedProcessDead,
  parseOwnerRecord,
  withFileLock,
} from './index.js';

const fixture = (name: string) =>
  fileURLToPath(new URL(`./test-fixtures/${name}`, import.meta.url));

async function catchError(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

describe('acquireFileLock', () => {
  it('creates <file>.lock and an owner record beside it, and removes both on release', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    await writeFile(file, '[]');
    const lock = await acquireFileLock(file);
    expect(lock.lockPath).toBe(`${file}.lock`);
    expect((await stat(lock.lockPath)).isDirectory()).toBe(true);
    expect(await readdir(lock.lockPath)).toEqual([]);
    const record = parseOwnerRecord(await readFile(`${file}.lock.owner`, 'utf8'));
    expect(record?.pid).toBe(process.pid);
    expect(await lock.isHeld()).toBe(true);
    await lock.release();
    expect(await lock.isHeld()).toBe(false);
    expect((await readdir(folder)).sort()).toEqual(['inbox.json']);
    await lock.release(); // a second release is a no-op
  });

  it('refreshes the lock directory mtime while held, keeping its stamp', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'config.json');
    const lock = await acquireFileLock(file, { staleMs: 200 });
    const first = await stat(lock.lockPath, { bigint: true });
    let later = first;
    for (let waited = 0; later.mtimeNs === first.mtimeNs && waited < 5_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      later = await stat(lock.lockPath, { bigint: true });
    }
    expect(later.mtimeNs).toBeGreaterThan(first.mtimeNs);
    expect((later.mtimeNs / 1000n) % 1000n).toBe((first.mtimeNs / 1000n) % 1000n);
    expect(await lock.isHeld()).toBe(true);
    await lock.release();
  });

  it('takes over the lock of a SIGKILLed holder at once by the pid rule, not the 10 s mtime rule', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    const holder = startNodeProcess(fixture('hold-lock.mjs'), [file, 'forever', '10000']);
    await holder.waitForLine((line) => line.startsWith('locked'));
    holder.child.kill('SIGKILL');
    await holder.exited;
    // staleMs 10 s and a 2 s deadline: only the dead-pid rule can free the lock in time.
    const lock = await acquireFileLock(file, { staleMs: 10_000, deadlineMs: 2_000 });
    const record = parseOwnerRecord(await readFile(`${file}.lock.owner`, 'utf8'));
    expect(record?.pid).toBe(process.pid);
    await lock.release();
  });

  it('fails with LOCK_TIMEOUT naming the file and the live holder', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'tasks.json');
    const holder = startNodeProcess(fixture('hold-lock.mjs'), [file, 'forever', '10000']);
    try {
      const line = await holder.waitForLine((text) => text.startsWith('locked'));
      const error = await catchError(acquireFileLock(file, { deadlineMs: 300 }));
      expect(FileLockError.hasCode(error, 'LOCK_TIMEOUT')).toBe(true);
      const timeout = error as FileLockError;
      expect(timeout.message).toContain(file);
      expect(timeout.message).toContain(`process ${holder.child.pid}`);
      expect(timeout.details.holderPid).toBe(Number(line.split(' ')[1]));
      expect(await stat(`${file}.lock`)).toBeDefined(); // the holder's lock is untouched
    } finally {
      holder.child.kill('SIGKILL');
      await holder.exited;
    }
  });

  it('lets exactly one of many waiters hold the lock at a time while they take it over from dead holders', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    const log = path.join(folder, 'holders.log');
    const count = 10;
    const waiters = Array.from({ length: count }, () =>
      startNodeProcess(fixture('die-holding.mjs'), [file, log]),
    );
    const results = await Promise.all(waiters.map((waiter) => waiter.exited));
    for (const result of results) expect(result.signal, result.stderr).toBe('SIGKILL');
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(count * 2);
    const holders = new Set<string>();
    for (let index = 0; index < lines.length; index += 2) {
      const [enter, pid] = lines[index]!.split(' ');
      expect(enter).toBe('enter');
      expect(lines[index + 1]).toBe(`exit ${pid}`);
      holders.add(pid!);
    }
    expect(holders.size).toBe(count);
  }, 120_000);

  it.runIf(process.platform === 'linux')(
    'takes over a lock whose owner record names a recycled pid',
    async () => {
      const folder = await makeTempDirectory();
      const file = path.join(folder, 'inbox.json');
      const lock = await acquireFileLock(file);
      // Forge the record: our own pid, but a start time that is not ours (pid reused).
      const ownerPath = `${file}.lock.owner`;
      const record = parseOwnerRecord(await readFile(ownerPath, 'utf8'))!;
      expect(record.startTime).toMatch(/^\d+$/);
      await writeFile(ownerPath, JSON.stringify({ ...record, startTime: '1' }));
      const second = await acquireFileLock(file, { deadlineMs: 2_000 });
      expect(await lock.isHeld()).toBe(false);
      expect(await second.isHeld()).toBe(true);
      const lost = await catchError(lock.release());
      expect(FileLockError.hasCode(lost, 'LOCK_LOST')).toBe(true);
      expect(await second.isHeld()).toBe(true); // the stale holder's release left it alone
      await second.release();
    },
  );

  it('recovers a lock left by a crashed Claude Code (no owner record) within the default deadline', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    // proper-lockfile's lock: a bare directory, no muster owner record.
    await mkdir(`${file}.lock`);
    const startedAt = Date.now();
    const waiting = acquireFileLock(file).then(
      (lock) => ({ lock, waitedMs: Date.now() - startedAt }),
      (error: unknown) => ({ error }),
    );
    // It was still alive and refreshed its lock (as proper-lockfile does every 5 s) 1.5 s
    // after we started waiting, then crashed: from here it takes the 10 s stale period.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const refreshed = new Date();
    await utimes(`${file}.lock`, refreshed, refreshed);
    const outcome = await waiting;
    if ('error' in outcome) throw outcome.error;
    expect(outcome.waitedMs).toBeGreaterThanOrEqual(10_000);
    await outcome.lock.release();
    expect(await readdir(folder)).toEqual([]);
  }, 60_000);

  it('takes a lock with no owner record and an old mtime at once', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    await mkdir(`${file}.lock`);
    const old = new Date(Date.now() - 60_000);
    await utimes(`${file}.lock`, old, old);
    const lock = await acquireFileLock(file, { deadlineMs: 2_000 });
    expect(await lock.isHeld()).toBe(true);
    await lock.release();
  });

  it('removes a steal guard left behind by a waiter that died inside it', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    const holder = startNodeProcess(fixture('hold-lock.mjs'), [file, 'forever']);
    await holder.waitForLine((line) => line.startsWith('locked'));
    holder.child.kill('SIGKILL');
    await holder.exited;
    const guard = `${file}.lock.steal`;
    await mkdir(guard);
    const old = new Date(Date.now() - 5_000);
    await utimes(guard, old, old);
    const lock = await acquireFileLock(file, { deadlineMs: 3_000 });
    await lock.release();
    expect(await readdir(folder)).toEqual([]);
  });

  it('reports a lost lock from release() and never removes the new holder’s lock', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    const lock = await acquireFileLock(file);
    await rm(`${file}.lock.owner`);
    await rm(lock.lockPath, { recursive: true });
    const other = await acquireFileLock(file, { deadlineMs: 1_000 });
    const error = await catchError(lock.release());
    expect(FileLockError.hasCode(error, 'LOCK_LOST')).toBe(true);
    expect(await other.isHeld()).toBe(true);
    await other.release();
  });

  it('removes its lock when the process exits normally while holding it', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    const holder = await startNodeProcess(fixture('hold-lock.mjs'), [file, 'exit']).exited;
    expect(holder.stdout).toContain('locked');
    expect(await readdir(folder)).toEqual([]);
  });

  it('stops waiting when the signal aborts', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    const lock = await acquireFileLock(file);
    const controller = new AbortController();
    const waiting = acquireFileLock(file, { signal: controller.signal, deadlineMs: 30_000 });
    setTimeout(() => controller.abort(new Error('stop waiting')), 50);
    const error = await catchError(waiting);
    expect((error as Error).message).toBe('stop waiting');
    await lock.release();
  });

  it('fails with IO_ERROR when the folder does not exist', async () => {
    const folder = await makeTempDirectory();
    const error = await catchError(acquireFileLock(path.join(folder, 'missing', 'inbox.json')));
    expect(FileLockError.hasCode(error, 'IO_ERROR')).toBe(true);
    expect((error as Error).message).toContain('folder does not exist');
  });
});

describe('withFileLock', () => {
  it('releases the lock after the action, also when it throws', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'config.json');
    expect(await withFileLock(file, async (lock) => lock.isHeld())).toBe(true);
    await expect(
      withFileLock(file, async () => {
        throw new Error('action failed');
      }),
    ).rejects.toThrow('action failed');
    expect(await readdir(folder)).toEqual([]);
  });
});

describe('isRecordedProcessDead', () => {
  it('judges only processes it can see: same host, boot and pid namespace', () => {
    const self = currentProcessIdentity();
    expect(isRecordedProcessDead(self)).toBe(false);
    expect(isRecordedProcessDead({ ...self, hostname: `not-${self.hostname}` })).toBe(false);
    expect(isRecordedProcessDead({ ...self, pidNamespace: 'pid:[1]' })).toBe(false);
    if (process.platform === 'linux') {
      expect(isRecordedProcessDead({ ...self, startTime: '1' })).toBe(true); // pid reused
    }
  });
});

describe('isProcessAlive', () => {
  it('tells running processes from finished ones', async () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    const child = startNodeProcess(fixture('hold-lock.mjs'), ['/nonexistent/folder/x', '0']);
    const pid = child.child.pid!;
    await child.exited;
    expect(isProcessAlive(pid)).toBe(false);
    expect(isProcessAlive(-1)).toBe(false);
  });
});
