import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  FileLockError,
  acquireFileLock,
  quarantineFile,
  readFileSnapshot,
  writeFileAtomic,
} from './index.js';

describe('writeFileAtomic', () => {
  it('replaces the file with a new inode and leaves no temp file behind', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'config.json');
    await writeFile(file, '{"old": true}');
    const before = await stat(file);
    await writeFileAtomic(file, '{\n  "new": true\n}', { fsync: true });
    expect(await readFile(file, 'utf8')).toBe('{\n  "new": true\n}');
    expect((await stat(file)).ino).not.toBe(before.ino);
    expect(await readdir(folder)).toEqual(['config.json']);
  });

  it('removes its temp file and throws IO_ERROR when the rename fails', async () => {
    const folder = await makeTempDirectory();
    const target = path.join(folder, 'occupied');
    await mkdir(path.join(target, 'child'), { recursive: true });
    const error = await writeFileAtomic(target, 'text').catch((caught: unknown) => caught);
    expect(FileLockError.hasCode(error, 'IO_ERROR')).toBe(true);
    expect((error as Error).message).toContain(target);
    expect(await readdir(folder)).toEqual(['occupied']);
  });

  it('replaces nothing and throws LOCK_LOST when the lock it was given was taken away', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, '7.json');
    await writeFile(file, '{"owner": "first"}');
    const mine = await acquireFileLock(file);
    await writeFileAtomic(file, '{"owner": "mine"}', { heldLock: mine });
    expect(await readFile(file, 'utf8')).toBe('{"owner": "mine"}');
    // What a waiter does to a holder paused past staleMs: remove its lock, take its own.
    await rm(`${file}.lock.owner`);
    await rm(`${file}.lock`, { recursive: true });
    const other = await acquireFileLock(file);
    await writeFileAtomic(file, '{"owner": "other"}', { heldLock: other });
    const error = await writeFileAtomic(file, '{"owner": "stale copy"}', { heldLock: mine }).catch(
      (caught: unknown) => caught,
    );
    expect(FileLockError.hasCode(error, 'LOCK_LOST')).toBe(true);
    expect((error as Error).message).toContain('Nothing was written');
    expect(await readFile(file, 'utf8')).toBe('{"owner": "other"}');
    await other.release();
    expect((await readdir(folder)).sort()).toEqual(['7.json']);
  });
});

describe('readFileSnapshot', () => {
  it('returns undefined for a missing file and text plus identity otherwise', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    expect(await readFileSnapshot(file)).toBeUndefined();
    await writeFile(file, '[]');
    const snapshot = await readFileSnapshot(file);
    const stats = await stat(file);
    expect(snapshot).toEqual({
      text: '[]',
      identity: { dev: stats.dev, ino: stats.ino, size: 2, mtimeMs: stats.mtimeMs },
    });
  });
});

describe('quarantineFile', () => {
  it('moves the file to <file>.corrupt-<timestamp> without replacing an earlier one', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    await writeFile(file, 'first');
    const first = await quarantineFile(file, 'test');
    await writeFile(file, 'second');
    const second = await quarantineFile(file, 'test');
    expect(first).not.toBe(second);
    expect(path.basename(first)).toMatch(/^inbox\.json\.corrupt-/);
    expect(await readFile(first, 'utf8')).toBe('first');
    expect(await readFile(second, 'utf8')).toBe('second');
    expect((await readdir(folder)).includes('inbox.json')).toBe(false);
  });
});
