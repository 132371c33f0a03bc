import { lstatSync, mkdirSync, type BigIntStats } from 'node:fs';
import { FileLockError, errorCode } from './file-lock-error.js';
import { linkRefusedError } from './inside-root.js';
import type { LockPaths } from './lock-paths.js';
import {
  matchesIdentity,
  readOwnerRecord,
  recordIdentity,
  removeOwnerRecordFor,
  type OwnerRecord,
} from './owner-record.js';
import {
  isProcessStopped,
  isRecordedProcessDead,
  isRecordedProcessHere,
} from './process-identity.js';
import { removeDirectoryIfSame } from './remove-directory.js';

/** A steal guard older than this belongs to a waiter that died inside it. */
export const stealGuardStaleMs = 2_000;

/** What a waiter sees when it looks at a lock it could not take. */
export interface LockInspection {
  /**
   * `missing`: the lock went away meanwhile; `live`: someone holds it; `dead`: its owner
   * record names a process that is gone; `stale`: no live muster holder can be seen and its
   * mtime is older than `staleMs`.
   */
  state: 'missing' | 'live' | 'dead' | 'stale';
  /** The holder is a live muster process on this machine: never taken, only waited for. */
  holderAlive?: boolean;
  /** That live holder is stopped (SIGSTOP, a debugger): resume it (`kill -CONT`) or end it. */
  holderStopped?: boolean;
  /** The holder, when an owner record describes the current lock directory. */
  holder?: OwnerRecord;
  /** Milliseconds since the lock directory's mtime. */
  ageMs?: number;
  /** The directory as stat'ed (to make sure a steal removes exactly this one). */
  stats?: BigIntStats;
}

/**
 * Looks at the current lock directory and its owner record. The rules: a record naming a
 * process that is gone makes the lock `dead`; a record naming a live process on this machine
 * (stopped ones included) keeps it `live` however old its mtime, because that process may
 * resume and write; only a lock without such a record (Claude Code's, or one whose holder
 * is on another machine) goes `stale` by mtime. A lock path that is a link or a file is
 * refused (nothing is followed or removed).
 */
export function inspectLock(paths: LockPaths, staleMs: number): LockInspection {
  let stats: BigIntStats;
  try {
    stats = lstatSync(paths.lock, { bigint: true });
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { state: 'missing' };
    throw error;
  }
  if (stats.isSymbolicLink()) throw linkRefusedError(paths.lock, paths.root);
  if (!stats.isDirectory()) throw notALockFolder(paths);
  const record = readOwnerRecord(paths.owner);
  const holder =
    record !== undefined && matchesIdentity(stats, recordIdentity(record)) ? record : undefined;
  const ageMs = Date.now() - Number(stats.mtimeNs / 1_000_000n);
  if (holder !== undefined && isRecordedProcessDead(holder)) {
    return { state: 'dead', holder, ageMs, stats };
  }
  if (holder !== undefined && isRecordedProcessHere(holder)) {
    const holderStopped = isProcessStopped(holder.pid);
    return { state: 'live', holder, ageMs, stats, holderAlive: true, holderStopped };
  }
  if (ageMs > staleMs) return { state: 'stale', ageMs, stats, ...(holder ? { holder } : {}) };
  return { state: 'live', ageMs, stats, ...(holder ? { holder } : {}) };
}

function notALockFolder(paths: LockPaths): FileLockError {
  return new FileLockError({
    code: 'IO_ERROR',
    message:
      `Cannot lock ${paths.file}: ${paths.lock} is a file, not a lock folder, so no process ` +
      'can ever take the lock. Nothing was written. Move that file away, then retry.',
    details: { file: paths.file, lockPath: paths.lock, systemCode: 'ENOTDIR' },
  });
}

/** What {@link tryStealLock} did. */
export type StealOutcome = 'stolen' | 'not-abandoned' | 'guard-busy';

/**
 * Removes an abandoned lock so waiters can race for it with `mkdir` again. Only one waiter
 * at a time gets here (`mkdir <file>.lock.steal` is the guard), and it re-inspects the lock
 * inside the guard, so a lock that another waiter already replaced is never removed.
 */
export function tryStealLock(paths: LockPaths, staleMs: number): StealOutcome {
  const guard = enterGuard(paths.stealGuard);
  if (guard === undefined) return 'guard-busy';
  try {
    const inspection = inspectLock(paths, staleMs);
    if (inspection.state !== 'dead' && inspection.state !== 'stale') return 'not-abandoned';
    const judged = inspection.stats!;
    // The record goes first: a lock directory without a record only ever makes waiters
    // wait (mtime rule), while a record outliving its directory could mislead them.
    if (inspection.holder !== undefined) {
      removeOwnerRecordFor(paths.owner, recordIdentity(inspection.holder));
    }
    const removal = removeDirectoryIfSame(paths.lock, (stats) => isSameStat(stats, judged));
    return removal === 'removed' ? 'stolen' : 'not-abandoned';
  } finally {
    removeDirectoryIfSame(paths.stealGuard, (stats) => isSameStat(stats, guard));
  }
}

/** Creates the guard; undefined when another live waiter is in it. */
function enterGuard(guardPath: string): BigIntStats | undefined {
  try {
    mkdirSync(guardPath);
    return lstatSync(guardPath, { bigint: true });
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
  }
  let existing: BigIntStats;
  try {
    existing = lstatSync(guardPath, { bigint: true });
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  const ageMs = Date.now() - Number(existing.mtimeNs / 1_000_000n);
  if (ageMs > stealGuardStaleMs) {
    removeDirectoryIfSame(guardPath, (stats) => isSameStat(stats, existing));
  }
  return undefined;
}

function isSameStat(stats: BigIntStats, expected: BigIntStats): boolean {
  return (
    stats.dev === expected.dev &&
    stats.ino === expected.ino &&
    stats.birthtimeNs === expected.birthtimeNs &&
    stats.mtimeNs === expected.mtimeNs
  );
}
