import {
  mkdir,
  readFile,
  realpath,
  symlink,
  utimes,
  writeFile,
  appendFile,
} from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import lockfile from 'proper-lockfile';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { FileLockError, acquireFileLock, resolveLockPath, updateFile } from './index.js';

const fixture = (name: string) =>
  fileURLToPath(new URL(`./test-fixtures/${name}`, import.meta.url));

async function tryProperLockfile(file: string): Promise<string> {
  const result = await startNodeProcess(fixture('proper-lockfile.mjs'), ['try', file]).exited;
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

describe('compatibility with proper-lockfile (what Claude Code uses)', () => {
  it('makes lockSync fail while muster holds the lock, and succeed after release', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    await writeFile(file, '[]');
    const lock = await acquireFileLock(file);
    expect(await tryProperLockfile(file)).toBe('ELOCKED');
    expect(lockfile.checkSync(file)).toBe(true);
    await lock.release();
    expect(await tryProperLockfile(file)).toBe('acquired');
  });

  it('waits while proper-lockfile holds the lock and takes it once released', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    const log = path.join(folder, 'order.log');
    await writeFile(file, '[]');
    const claude = startNodeProcess(fixture('proper-lockfile.mjs'), ['hold', file, '200', log]);
    await claude.waitForLine((line) => line === 'locked');
    const lock = await acquireFileLock(file, { deadlineMs: 10_000 });
    await appendFile(log, 'muster\n');
    await lock.release();
    const result = await claude.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(log, 'utf8')).toBe('claude-start\nclaude-end\nmuster\n');
  });

  it('times out on a fresh lock that has no owner record, naming no pid', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    await mkdir(`${file}.lock`);
    const error = await acquireFileLock(file, { deadlineMs: 200 }).catch((caught) => caught);
    expect(FileLockError.hasCode(error, 'LOCK_TIMEOUT')).toBe(true);
    expect((error as FileLockError).details.holderPid).toBeUndefined();
    expect((error as Error).message).toContain(`${file}.lock`);
  });

  it('takes over a lock without an owner record once its mtime is older than staleMs', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    await mkdir(`${file}.lock`);
    const old = new Date(Date.now() - 20_000);
    await utimes(`${file}.lock`, old, old);
    const lock = await acquireFileLock(file, { deadlineMs: 1_000 });
    expect(await lock.isHeld()).toBe(true);
    await lock.release();
  });

  it('names the lock after the real path of a symlinked file, like proper-lockfile', async () => {
    const folder = await realpath(await makeTempDirectory());
    const target = path.join(folder, 'real.json');
    const link = path.join(folder, 'link.json');
    await writeFile(target, '{}');
    await symlink(target, link);
    expect(await resolveLockPath(link)).toBe(`${target}.lock`);
    const lock = await acquireFileLock(link);
    expect(await tryProperLockfile(target)).toBe('ELOCKED');
    await lock.release();
    // updateFile writes through to the real file and leaves the symlink in place.
    await updateFile(link, {
      parse: (text) => JSON.parse(text) as Record<string, number>,
      serialize: (value) => JSON.stringify(value),
      update: () => ({ updated: 1 }),
    });
    expect(await readFile(target, 'utf8')).toBe('{"updated":1}');
    expect(await realpath(link)).toBe(target);
  });

  it('names the lock of a missing file as it will be named once the file exists', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'later.json');
    // proper-lockfile cannot lock a missing file (its realpath fails): Claude Code creates
    // the file first. muster resolves the folder instead and gets the same name.
    expect(() => lockfile.lockSync(file)).toThrow(/ENOENT/);
    const expected = `${path.join(await realpath(folder), 'later.json')}.lock`;
    expect(await resolveLockPath(file)).toBe(expected);
    const lock = await acquireFileLock(file);
    await writeFile(file, '[]');
    expect(await tryProperLockfile(file)).toBe('ELOCKED');
    await lock.release();
  });
});
