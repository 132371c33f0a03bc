import { lstatSync, rmdirSync, unlinkSync, utimesSync } from 'node:fs';
import { FileLockError, errorCode, ioError } from './file-lock-error.js';
import type { HeldLock } from './acquire-file-lock.js';
import type { LockPaths } from './lock-paths.js';
import {
  matchesIdentity,
  readOwnerRecord,
  recordIdentity,
  removeOwnerRecordFor,
  sameIdentity,
  stampedNowSeconds,
  type LockDirectoryIdentity,
} from './owner-record.js';
import { removeDirectoryIfSame } from './remove-directory.js';

/** Longest gap between two mtime refreshes: well inside Claude Code's 10 s stale rule. */
const maximumRefreshMs = 5_000;
const minimumRefreshMs = 50;

/** Locks this process holds, removed on a normal process exit like proper-lockfile does. */
const heldLocks = new Set<HeldFileLock>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const lock of heldLocks) lock.releaseSynchronouslyOnExit();
  });
}

/**
 * A lock this process created. While held, a timer refreshes the lock directory's mtime
 * every `staleMs / 2` (keeping the holder's stamp), as proper-lockfile does for its locks.
 */
export class HeldFileLock implements HeldLock {
  readonly file: string;
  readonly lockPath: string;
  private released = false;
  private lost = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly paths: LockPaths,
    private readonly identity: LockDirectoryIdentity,
    staleMs: number,
  ) {
    this.file = paths.file;
    this.lockPath = paths.lock;
    const refreshMs = Math.max(minimumRefreshMs, Math.min(staleMs / 2, maximumRefreshMs));
    this.timer = setInterval(() => this.refresh(), refreshMs);
    this.timer.unref();
    heldLocks.add(this);
    installExitHook();
  }

  /** True while the lock directory on disk is still the one this holder created. */
  async isHeld(): Promise<boolean> {
    return this.isHeldNow();
  }

  /** The synchronous form of {@link isHeld}. */
  isHeldNow(): boolean {
    if (this.released || this.lost) return false;
    try {
      const stats = lstatSync(this.paths.lock, { bigint: true });
      if (matchesIdentity(stats, this.identity)) return true;
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw ioError('check the lock', this.paths.lock, error);
    }
    this.markLost();
    return false;
  }

  /** Removes the owner record, then the lock directory, if they are still ours. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.timer);
    heldLocks.delete(this);
    let removal: string;
    try {
      removeOwnerRecordFor(this.paths.owner, this.identity);
      removal = removeDirectoryIfSame(this.paths.lock, (stats) =>
        matchesIdentity(stats, this.identity),
      );
    } catch (error) {
      throw ioError('release the lock', this.paths.lock, error);
    }
    if (removal !== 'removed') {
      throw new FileLockError({
        code: 'LOCK_LOST',
        message:
          `The lock on ${this.paths.file} was taken by another process while this one held it ` +
          '(it was not refreshed within staleMs, e.g. the process was paused or its event loop ' +
          'blocked). Work done under it may have raced: re-read the file and redo the change.',
        details: { file: this.paths.file, lockPath: this.paths.lock },
      });
    }
  }

  /** Best-effort synchronous cleanup from the process `exit` event. */
  releaseSynchronouslyOnExit(): void {
    try {
      const stats = lstatSync(this.paths.lock, { bigint: true });
      if (!matchesIdentity(stats, this.identity)) return;
      const record = readOwnerRecord(this.paths.owner);
      if (record !== undefined && sameIdentity(recordIdentity(record), this.identity)) {
        unlinkSync(this.paths.owner);
      }
    } catch {
      // Nothing more can be done while the process exits; waiters recover by the pid rule.
    }
    try {
      const stats = lstatSync(this.paths.lock, { bigint: true });
      if (matchesIdentity(stats, this.identity)) rmdirSync(this.paths.lock);
    } catch {
      // As above.
    }
  }

  private refresh(): void {
    if (this.released || this.lost) return;
    try {
      const stats = lstatSync(this.paths.lock, { bigint: true });
      if (!matchesIdentity(stats, this.identity)) return this.markLost();
      const seconds = stampedNowSeconds(this.identity.stamp);
      utimesSync(this.paths.lock, seconds, seconds);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return this.markLost();
      // A transient failure: the next tick tries again; isHeld() and release() still check
      // the directory itself, so nothing relies on this refresh having worked.
    }
  }

  private markLost(): void {
    this.lost = true;
    clearInterval(this.timer);
    heldLocks.delete(this);
  }
}
