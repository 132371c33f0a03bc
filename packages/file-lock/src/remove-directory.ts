import type { BigIntStats } from 'node:fs';
import { lstat, rename, rmdir, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { errorCode } from './file-lock-error.js';

/** What {@link removeDirectoryIfSame} found. */
export type RemovalResult = 'removed' | 'missing' | 'different';

/**
 * Removes an (empty) lock directory only if it is still the one the caller judged.
 *
 * A plain `stat` then `rmdir` could delete a directory that another process created in
 * between. Instead the directory is first renamed to a private name (atomic), then checked:
 * if it is the expected one it is removed; if not, it is put back (when its name is still
 * free) and `different` is returned, so the caller never silently takes a live lock away.
 */
export async function removeDirectoryIfSame(
  directory: string,
  isExpected: (stats: BigIntStats) => boolean,
): Promise<RemovalResult> {
  const aside = `${directory}.removing-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(directory, aside);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 'missing';
    throw error;
  }
  const stats = await stat(aside, { bigint: true });
  if (isExpected(stats)) {
    await rmdir(aside);
    return 'removed';
  }
  if (await isMissing(directory)) {
    await rename(aside, directory);
  } else {
    // Someone created a new lock meanwhile; the displaced holder will see it lost its lock.
    await rmdir(aside);
  }
  return 'different';
}

async function isMissing(target: string): Promise<boolean> {
  try {
    await lstat(target);
    return false;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return true;
    throw error;
  }
}
