import {
  closeSync,
  constants,
  fstatSync,
  futimesSync,
  lstatSync,
  mkdirSync,
  openSync,
} from 'node:fs';
import { FileLockError, errorCode, ioError } from './file-lock-error.js';
import type { RootOption } from './inside-root.js';
import { resolveLockPaths, type LockPaths } from './lock-paths.js';
import { inspectLock, tryStealLock, type LockInspection } from './steal-lock.js';
import {
  makeOwnerRecord,
  matchesIdentity,
  newStamp,
  removeOwnerRecordFor,
  stampOf,
  stampedNowSeconds,
  writeOwnerRecord,
  type LockDirectoryIdentity,
} from './owner-record.js';
import { currentProcessIdentity } from './process-identity.js';
import { HeldFileLock } from './held-file-lock.js';
import { removeDirectoryIfSame } from './remove-directory.js';
import { abortReason, sleep, yieldToEventLoop } from './sleep.js';

/** How long to wait for a lock and when to call a silent lock abandoned. */
export interface LockOptions extends RootOption {
  /**
   * Total time to wait for the lock before failing with `LOCK_TIMEOUT`. Default
   * `2 × staleMs` (20 000 ms): a lock left by a crashed Claude Code becomes stale at most
   * `staleMs` after its last refresh, so it is always recovered within the default deadline.
   * `0` tries once.
   */
  deadlineMs?: number;
  /**
   * proper-lockfile's stale rule, for locks without a live muster holder on this machine: a
   * lock whose directory mtime is older than this is abandoned and may be taken. Holders
   * refresh the mtime every `staleMs / 2` (at most every 5 s, so Claude Code's own 10 s rule
   * never fires on a live muster lock). Default 10 000 ms.
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

/**
 * Default for {@link LockOptions.deadlineMs} (with the default `staleMs`): twice the stale
 * period, so an abandoned lock without an owner record is always recovered in time.
 */
export const defaultDeadlineMs = 20_000;
/** Default for {@link LockOptions.staleMs}. */
export const defaultStaleMs = 10_000;

const firstBackoffMs = 2;
const maximumBackoffMs = 40;

/**
 * Takes the proper-lockfile-compatible lock on `file` (`mkdir <file>.lock`), waiting with
 * jittered backoff up to `deadlineMs`. A holder whose process has died is detected from its
 * owner record and its lock taken at once; a live muster holder on this machine (even a
 * stopped one) is only ever waited for; a lock without such a record (Claude Code's) is
 * taken once its mtime is older than `staleMs`. With `root`, nothing below the root is
 * reached through a link (`UNSAFE_PATH`). Fails with `LOCK_TIMEOUT` naming the holder.
 */
export async function acquireFileLock(file: string, options: LockOptions = {}): Promise<HeldLock> {
  const staleMs = options.staleMs ?? defaultStaleMs;
  const deadlineMs = options.deadlineMs ?? Math.max(defaultDeadlineMs, 2 * staleMs);
  const { signal } = options;
  const startedAt = Date.now();
  let paths: LockPaths;
  try {
    paths = resolveLockPaths(file, options.root);
  } catch (error) {
    if (FileLockError.isInstance(error)) throw error;
    throw ioError('resolve the real path of', file, error);
  }
  let backoffMs = firstBackoffMs;
  for (;;) {
    if (signal?.aborted) throw abortReason(signal);
    const attemptedAt = Date.now();
    if (tryCreateLockDirectory(paths)) {
      const held = establishLock(paths, staleMs, attemptedAt);
      if (held !== undefined) return held;
      continue;
    }
    const inspection = inspectOrThrow(paths, staleMs);
    const abandoned = inspection.state === 'dead' || inspection.state === 'stale';
    if (inspection.state === 'missing' || (abandoned && stealOrThrow(paths, staleMs))) {
      // The lock just went away: race for it again at once (after letting the loop breathe).
      await yieldToEventLoop();
      continue;
    }
    const remainingMs = startedAt + deadlineMs - Date.now();
    if (remainingMs <= 0) throw lockTimeout(file, paths, deadlineMs, inspection);
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

/**
 * Stamps the fresh lock directory and writes the owner record beside it. Works on the
 * directory through a descriptor opened right after `mkdir`, so it never stamps another
 * process's directory. Returns undefined (go on waiting) when the directory is not the one
 * this process made: it was paused between `mkdir` and here long enough for a waiter to
 * judge the lock abandoned and take it.
 */
function establishLock(
  paths: LockPaths,
  staleMs: number,
  attemptedAt: number,
): HeldLock | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(
      paths.lock,
      constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW,
    );
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') return undefined;
    throw ioError('open the new lock directory', paths.lock, error);
  }
  let identity: LockDirectoryIdentity | undefined;
  try {
    const created = fstatSync(descriptor, { bigint: true });
    const createdNs = created.birthtimeNs > 0n ? created.birthtimeNs : created.ctimeNs;
    if (Number(createdNs / 1_000_000n) > attemptedAt + Math.min(1_000, staleMs / 2)) {
      return undefined;
    }
    identity = {
      device: created.dev,
      inode: created.ino,
      birthtimeNs: created.birthtimeNs,
      stamp: newStamp(),
    };
    // The record goes first: until the stamp lands, a waiter sees a record that does not
    // match the directory, falls back to the mtime rule, and (the lock being fresh) waits.
    writeOwnerRecord(paths.owner, makeOwnerRecord(currentProcessIdentity(), identity, new Date()));
    const seconds = stampedNowSeconds(identity.stamp);
    futimesSync(descriptor, seconds, seconds);
    const stamped = fstatSync(descriptor, { bigint: true });
    if (stampOf(stamped) !== identity.stamp) {
      // This file system keeps coarser times than microseconds: identify by inode alone.
      identity.stamp = null;
      writeOwnerRecord(
        paths.owner,
        makeOwnerRecord(currentProcessIdentity(), identity, new Date()),
      );
    }
    // Still the directory under the lock's name? (Not if this process was paused before its
    // record landed and a waiter took the lock by the mtime rule meanwhile.)
    if (!matchesIdentity(lstatSync(paths.lock, { bigint: true }), identity)) {
      removeOwnerRecordFor(paths.owner, identity);
      return undefined;
    }
    return new HeldFileLock(paths, identity, staleMs);
  } catch (error) {
    try {
      if (identity !== undefined) {
        removeOwnerRecordFor(paths.owner, identity);
        const ours = identity;
        removeDirectoryIfSame(paths.lock, (stats) => matchesIdentity(stats, ours));
      }
    } catch {
      // Leave it: without a matching record, waiters treat it by the mtime rule.
    }
    if (FileLockError.isInstance(error)) throw error;
    throw ioError('set up the lock directory', paths.lock, error);
  } finally {
    closeSync(descriptor);
  }
}

function inspectOrThrow(paths: LockPaths, staleMs: number): LockInspection {
  try {
    return inspectLock(paths, staleMs);
  } catch (error) {
    if (FileLockError.isInstance(error)) throw error;
    throw ioError('inspect the lock', paths.lock, error);
  }
}

/** True when the abandoned lock was removed. */
function stealOrThrow(paths: LockPaths, staleMs: number): boolean {
  try {
    return tryStealLock(paths, staleMs) === 'stolen';
  } catch (error) {
    if (FileLockError.isInstance(error)) throw error;
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
  let holderText: string;
  if (inspection.state === 'missing') {
    holderText = 'by other waiters, which queued up earlier and are taking it in turn';
  } else if (holder === undefined) {
    holderText =
      'by a process that left no owner record (Claude Code, or a muster process still ' +
      'setting up); it becomes stale once its mtime is older than staleMs';
  } else if (inspection.holderStopped === true) {
    holderText =
      `by process ${holder.pid} on ${holder.hostname} since ${holder.acquiredAt}, which is ` +
      `stopped (SIGSTOP or a debugger). muster never takes the lock of a live process, since ` +
      `it could resume and write: resume it (kill -CONT ${holder.pid}) or end it`;
  } else if (inspection.holderAlive === true) {
    holderText =
      `by process ${holder.pid} on ${holder.hostname} since ${holder.acquiredAt}, which is ` +
      'still running (muster never takes the lock of a live process)';
  } else {
    holderText = `by process ${holder.pid} on ${holder.hostname} since ${holder.acquiredAt}`;
  }
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
      holderStopped: inspection.holderStopped,
      lockAgeMs: inspection.ageMs,
    },
  });
}
