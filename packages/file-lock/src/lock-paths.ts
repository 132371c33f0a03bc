import { realpathSync } from 'node:fs';
import path from 'node:path';
import { errorCode } from './file-lock-error.js';

/** Every path that belongs to one file's lock. */
export interface LockPaths {
  /** The canonical path of the locked file (symlinks resolved). */
  file: string;
  /** `<file>.lock`: the lock directory itself, exactly where proper-lockfile puts it. */
  lock: string;
  /** `<file>.lock.owner`: muster's record of who holds the lock (beside it, not in it). */
  owner: string;
  /** `<file>.lock.steal`: a short-lived guard so only one waiter removes a dead lock. */
  stealGuard: string;
}

/**
 * The lock directory path for `file`, named the way proper-lockfile names it: the file's
 * real path (symlinks resolved) plus `.lock`. proper-lockfile refuses to lock a missing file
 * (its realpath fails); for a missing file we resolve the folder instead, which gives the
 * same name the file will have once it exists.
 */
export async function resolveLockPath(file: string): Promise<string> {
  return resolveLockPaths(file).lock;
}

/** Resolves the canonical file path and derives all lock-related paths from it. */
export function resolveLockPaths(file: string): LockPaths {
  const canonical = canonicalPath(file);
  const lock = `${canonical}.lock`;
  return { file: canonical, lock, owner: `${lock}.owner`, stealGuard: `${lock}.steal` };
}

function canonicalPath(file: string): string {
  const absolute = path.resolve(file);
  try {
    return realpathSync(absolute);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
  try {
    return path.join(realpathSync(path.dirname(absolute)), path.basename(absolute));
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
    return absolute;
  }
}
