import { mkdirSync, rmdirSync, statSync, utimesSync } from 'node:fs';
import { FileLockError, errorCode, ioError } from './file-lock-error.js';
import { resolveLockPaths, type LockPaths } from './lock-paths.js';
import { inspectLock, tryStealLock, type LockInspection } from './steal-lock.js';
import {
  makeOwnerRecord,
  newStamp,
  removeOwnerRecord,
  stampOf,
  stampedNowSeconds,
  writeOwnerRecord,
  type LockDirectoryIdentity,
} from './owner-record.js';
import { currentProcessIdentity } from './process-identity.js';
import { HeldFileLock } from './held-file-lock.js';
import { abortReason, sleep, yieldToEventLoop } from './sleep.js';

/** How long to wait for a lock and when to call a silent lock abandoned. */
export interface LockOptions {
  /** Total time to wait for the lock before failing with `LOCK_TIMEOUT`. Default 10 000 ms. */
  deadlineMs?: number;
  /**
   * proper-lockfile's stale rule: a lock whose directory mtime is older than this is
   * abandoned and may be taken. Holders refresh the mtime every `staleMs / 2` (at most every
   * 5 s, so Claude Code's own 10 s rule never fires on a live muster lock). Default 10 000 ms.
   */
  staleMs?: number;
  /** Stops waiting; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** A lock this process holds. */
export interface HeldLock {
  /** The locked file's real path (symlinks resolved): read and write this path. */
  file: string;
  /** The lock directory, `<real path of the file>.lock`. */
  lockPath: string;
  /**
   * Removes the lock (and its owner record). Throws `LOCK_LOST` if another process took the
   * lock away meanwhile (then work done under it may have raced). Calling it twice is a no-op.
   */
  release(): Promise<void>;
  /** True while the lock directory on disk is still the one this holder created. */
  isHeld(): Promise<boolean>;
  /** The synchronous form of {@link HeldLock.isHeld}, for the last check before a rename. */
  isHeldNow(): boolean;
}

/** Default for {@link LockOptions.deadlineMs}. */
export const defaultDeadlineMs = 10_000;
/** Default for {@link LockOptions.staleMs}. */
export const defaultStaleMs = 10_000;

const firstBackoffMs = 2;
const maximumBackoffMs = 40;

/**
 * Takes the proper-lockfile-compatible lock on `file` (`mkdir <file>.lock`), waiting with
 * jittered backoff up to `deadlineMs`. A holder whose process has died is detected from its
 * owner record and its lock taken at once; a lock without a record (Claude Code's) is taken
 * once its mtime is older than `staleMs`. Fails with `LOCK_TIMEOUT` naming the holder.
 */
export async function acquireFileLock(file: string, options: LockOptions = {}): Promise<HeldLock> {
  const deadlineMs = options.deadlineMs ?? defaultDeadlineMs;
  const staleMs = options.staleMs ?? defaultStaleMs;
  const { signal } = options;
  const startedAt = Date.now();
  let paths: LockPaths;
  try {
    paths = resolveLockPaths(file);
  } catch (error) {
    throw ioError('resolve the real path of', file, error);
  }
  let backoffMs = firstBackoffMs;
  let lastInspection: LockInspection | undefined;
  for (;;) {
    if (signal?.aborted) throw abortReason(signal);
    if (tryCreateLockDirectory(paths)) {
      return establishLock(paths, staleMs);
    }
    lastInspection = inspectOrThrow(paths, staleMs);
    const abandoned = lastInspection.state === 'dead' || lastInspection.state === 'stale';
    if (lastInspection.state === 'missing' || (abandoned && stealOrThrow(paths, staleMs))) {
      // The lock just went away: race for it again at once (after letting the loop breathe).
      await yieldToEventLoop();
      continue;
    }
    const remainingMs = startedAt + deadlineMs - Date.now();
    if (remainingMs <= 0) throw lockTimeout(file, paths, deadlineMs, lastInspection);
    const jittered = backoffMs / 2 + (Math.random() * backoffMs) / 2;
    await sleep(Math.min(jittered, remainingMs), signal);
    backoffMs = Math.min(backoffMs * 2, maximumBackoffMs);
  }
}

/**
 * Runs `action` while holding the lock on `file` and releases it afterwards, also when
 * `action` throws. Keep `action` short: Claude Code gives up at once on a held lock.
 */
export async function withFileLock<T>(
  file: string,
  action: (lock: HeldLock) => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const lock = await acquireFileLock(file, options);
  let result: T;
  try {
    result = await action(lock);
  } catch (error) {
    await lock.release().catch(() => {
      // The action's own error is the one the caller needs; a lost lock adds nothing to it.
    });
    throw error;
  }
  await lock.release();
  return result;
}

function tryCreateLockDirectory(paths: LockPaths): boolean {
  try {
    mkdirSync(paths.lock);
    return true;
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST') return false;
    if (code === 'ENOENT') {
      throw new FileLockError({
        code: 'IO_ERROR',
        message:
          `Cannot lock ${paths.file}: its folder does not exist. ` +
          'Create the folder first (updateFile does this when it is about to write).',
        cause: error,
        details: { file: paths.file, lockPath: paths.lock, systemCode: code, folderMissing: true },
      });
    }
    throw ioError('create the lock directory', paths.lock, error);
  }
}

/** Stamps the fresh lock directory and writes the owner record beside it. */
function establishLock(paths: LockPaths, staleMs: number): HeldLock {
  try {
    const created = statSync(paths.lock, { bigint: true });
    const identity: LockDirectoryIdentity = {
      device: created.dev,
      inode: created.ino,
      birthtimeNs: created.birthtimeNs,
      stamp: newStamp(),
    };
    // The record goes first: until the stamp lands, a waiter sees a record that does not
    // match the directory, falls back to the mtime rule, and (the lock being fresh) waits.
    writeOwnerRecord(paths.owner, makeOwnerRecord(currentProcessIdentity(), identity, new Date()));
    const seconds = stampedNowSeconds(identity.stamp);
    utimesSync(paths.lock, seconds, seconds);
    const stamped = statSync(paths.lock, { bigint: true });
    if (stampOf(stamped) !== identity.stamp) {
      // This file system keeps coarser times than microseconds: identify by inode alone.
      identity.stamp = null;
      writeOwnerRecord(
        paths.owner,
        makeOwnerRecord(currentProcessIdentity(), identity, new Date()),
      );
    }
    return new HeldFileLock(paths, identity, staleMs);
  } catch (error) {
    try {
      removeOwnerRecord(paths.owner);
      rmdirSync(paths.lock);
    } catch {
      // Leave it: without a matching record, waiters treat it by the mtime rule.
    }
    throw ioError('set up the lock directory', paths.lock, error);
  }
}

function inspectOrThrow(paths: LockPaths, staleMs: number): LockInspection {
  try {
    return inspectLock(paths, staleMs);
  } catch (error) {
    throw ioError('inspect the lock', paths.lock, error);
  }
}

/** True when the abandoned lock was removed. */
function stealOrThrow(paths: LockPaths, staleMs: number): boolean {
  try {
    return tryStealLock(paths, staleMs) === 'stolen';
  } catch (error) {
    throw ioError('take over the abandoned lock', paths.lock, error);
  }
}

function lockTimeout(
  file: string,
  paths: LockPaths,
  deadlineMs: number,
  inspection: LockInspection,
): FileLockError {
  const holder = inspection.holder;
  const holderText =
    holder === undefined
      ? 'by a process that left no owner record (Claude Code, or a muster process still ' +
        'setting up)'
      : `by process ${holder.pid} on ${holder.hostname} since ${holder.acquiredAt}`;
  return new FileLockError({
    code: 'LOCK_TIMEOUT',
    message:
      `Timed out after ${deadlineMs} ms waiting for the lock on ${file}; it is held ${holderText}. ` +
      'Retry later or pass a larger deadlineMs; if that process is stuck, stop it, and if no ' +
      `process holds the lock any more, remove the folder ${paths.lock}.`,
    details: {
      file: paths.file,
      lockPath: paths.lock,
      deadlineMs,
      holderPid: holder?.pid,
      holderHostname: holder?.hostname,
      lockAgeMs: inspection.ageMs,
    },
  });
}
