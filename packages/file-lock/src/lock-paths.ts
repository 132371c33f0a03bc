import { realpathSync } from 'node:fs';
import path from 'node:path';
import { errorCode } from './file-lock-error.js';
import { resolveInsideRoot } from './inside-root.js';

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
  /** `<file>.lock.queue`: the waiters' tickets, oldest first (see wait-queue.ts). */
  queue: string;
  /** The root the file must stay inside, when the caller gave one. */
  root?: string;
}

/**
 * The lock directory path for `file`, named the way proper-lockfile names it: the file's
 * real path (symlinks resolved) plus `.lock`. proper-lockfile refuses to lock a missing file
 * (its realpath fails); for a missing file we resolve the folder instead, which gives the
 * same name the file will have once it exists.
 */
export async function resolveLockPath(file: string, root?: string): Promise<string> {
  return resolveLockPaths(file, root).lock;
}

/**
 * Resolves the canonical file path and derives all lock-related paths from it. With `root`,
 * no link below the root is followed (`UNSAFE_PATH` instead): the canonical path is then the
 * root's real path plus the relative rest, the same name proper-lockfile computes.
 */
export function resolveLockPaths(file: string, root?: string): LockPaths {
  const canonical = root === undefined ? canonicalPath(file) : resolveInsideRoot(root, file);
  const lock = `${canonical}.lock`;
  return {
    file: canonical,
    lock,
    owner: `${lock}.owner`,
    stealGuard: `${lock}.steal`,
    queue: `${lock}.queue`,
    ...(root === undefined ? {} : { root }),
  };
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
