import type { BigIntStats } from 'node:fs';
import { lstatSync, renameSync, rmdirSync } from 'node:fs';
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
export function removeDirectoryIfSame(
  directory: string,
  isExpected: (stats: BigIntStats) => boolean,
): RemovalResult {
  const aside = `${directory}.removing-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(directory, aside);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 'missing';
    throw error;
  }
  // lstat: a link put in its place is never followed, only put back.
  const stats = lstatSync(aside, { bigint: true });
  if (stats.isDirectory() && isExpected(stats)) {
    rmdirSync(aside);
    return 'removed';
  }
  if (isMissing(directory)) {
    renameSync(aside, directory);
  } else {
    // Someone created a new lock meanwhile; the displaced holder will see it lost its lock.
    rmdirSync(aside);
  }
  return 'different';
}

function isMissing(target: string): boolean {
  try {
    lstatSync(target);
    return false;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return true;
    throw error;
  }
}
