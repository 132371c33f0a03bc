import { statSync, watch } from 'node:fs';
import path from 'node:path';
import {
  acquireFileLock,
  defaultDeadlineMs,
  FileLockError,
  type HeldLock,
  type LockOptions,
} from '@muster/file-lock';
import type { InboxPaths } from './inbox-paths.js';
import { MailboxError } from './mailbox-error.js';
import { spoolState, withdrawSpoolFile } from './spool.js';

/** How a sender waits for its queued operation to be committed. */
export interface AwaitCommitOptions extends Omit<LockOptions, 'signal'> {
  /** The inbox's lock directory (as `resolveLockPath` gives it). */
  lockPath: string;
  /** Commits the queue while holding the lock; `'lost'` when the lock was taken meanwhile. */
  commit: (lock: HeldLock) => Promise<unknown>;
  /** Runs after a commit by this sender, once the lock is released. */
  afterRelease?: () => Promise<void>;
}

const firstCheckMs = 1;
const slowestCheckMs = 25;
/** Fallback check while the inboxes folder is watched (events normally wake us). */
const watchedCheckMs = 250;
/**
 * A lock held longer than this may belong to a dead (or stopped) process: try it once, which
 * lets `@muster/file-lock` recover it if its holder is gone. At most one such try per sender
 * per interval, so a slow but live committer is not stormed.
 */
const suspectAfterMs = 250;
const maximumLostLocks = 5;
/** Spread (ms) of the pause before taking a lock that just became free. */
const herdSpreadMs = 3;

/**
 * Waits until the spool file `name` has been committed into the inbox.
 *
 * Senders never queue up on the lock. While someone holds it, a sender sleeps, woken by
 * changes in the inboxes folder: whoever holds the lock commits every queued file. When the lock
 * is free — or has been held suspiciously long — the sender makes one attempt to take it
 * (recovering a dead holder's lock) and, if it wins, commits the whole queue itself.
 *
 * At the deadline the sender withdraws its file (a rename that races fairly with a
 * committer's claim): withdrawn means the message was not delivered (`LOCK_TIMEOUT`, safe to
 * retry). If a committer claimed it first, it is on its way in: the sender waits one more
 * deadline before reporting `LOCK_TIMEOUT` with `details.queued: true` (do not resend).
 */
export async function awaitCommit(
  paths: InboxPaths,
  name: string,
  options: AwaitCommitOptions,
): Promise<void> {
  const deadlineMs = options.deadlineMs ?? defaultDeadlineMs;
  let deadlineAt = Date.now() + deadlineMs;
  let withdrawable = true;
  let lostLocks = 0;
  let lastTimeout: unknown;
  let lastAttemptAt = 0;
  for (;;) {
    const state = spoolState(paths, name);
    if (state === 'committed') return;
    if (state === 'rejected') throw rejectedError(paths, name);
    if (Date.now() >= deadlineAt) {
      if (withdrawable) {
        if (withdrawSpoolFile(paths, name)) {
          throw timeoutError(paths, deadlineMs, lastTimeout, false);
        }
        withdrawable = false;
        deadlineAt = Date.now() + deadlineMs;
        continue;
      }
      throw timeoutError(paths, 2 * deadlineMs, lastTimeout, true);
    }
    const waited = await waitWhileBusy(paths, name, options.lockPath, deadlineAt, lastAttemptAt);
    if (waited === 'changed' || waited === 'deadline') continue;
    lastAttemptAt = Date.now();
    const attempt = await tryLockOnce(paths, options.staleMs);
    if (attempt.kind === 'busy') {
      lastTimeout = attempt.error;
      continue;
    }
    let outcome: unknown;
    try {
      outcome = await options.commit(attempt.lock);
    } finally {
      await attempt.lock.release().catch((error: unknown) => {
        if (!FileLockError.hasCode(error, 'LOCK_LOST')) throw error;
      });
    }
    if (outcome !== 'lost') await options.afterRelease?.();
    if (outcome === 'lost' && ++lostLocks >= maximumLostLocks) {
      throw new MailboxError({
        code: 'LOCK_LOST',
        message:
          `Lost the lock on ${paths.inbox} ${lostLocks} times in a row while committing a ` +
          'message; it is still queued and the next writer or reader of this inbox will ' +
          'deliver it, so do not send it again. Raise lock.staleMs on a heavily loaded machine.',
        details: { inboxPath: paths.inbox, queued: true },
      });
    }
  }
}

/**
 * Sleeps while the spool file is pending and someone else holds the lock. `changed`: the
 * file is no longer pending; `free`: no lock; `suspect`: the lock is older than
 * {@link suspectAfterMs} and the last attempt is that long ago.
 *
 * Wake-ups come from a watch on the sender's own spool file: it fires when a committer
 * claims the file and when it deletes it after the commit. Every muster committer drains
 * the queue again after releasing the lock, so a sender rarely has to notice a free lock
 * itself; it still looks every 250 ms (for a drain that ended, a lock held by Claude Code,
 * a dead or a stopped process). Without a watch (e.g. inotify instances exhausted) it polls,
 * backing off from 1 ms to 25 ms.
 */
async function waitWhileBusy(
  paths: InboxPaths,
  name: string,
  lockPath: string,
  deadlineAt: number,
  lastAttemptAt: number,
): Promise<'changed' | 'free' | 'suspect' | 'deadline'> {
  let wake: (() => void) | undefined;
  let pending: boolean;
  // Watch the spool file itself: the watch follows its inode when a committer moves it to
  // `claimed/` and fires again when the committer deletes it (committed) — two wake-ups per
  // message, and none for commits that do not include it.
  const watcher = watchSpoolFile(paths, name, () => {
    pending = true;
    wake?.();
  });
  let checkMs = firstCheckMs;
  try {
    for (;;) {
      pending = false;
      if (spoolState(paths, name) !== 'pending') return 'changed';
      const lock = statSync(lockPath, { throwIfNoEntry: false });
      if (lock === undefined) {
        // Every sender whose file missed the last commit sees the lock go at the same
        // moment. A short random pause and a second look let one of them take it while the
        // rest see it held again — instead of all of them colliding on it.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * herdSpreadMs));
        if (statSync(lockPath, { throwIfNoEntry: false }) === undefined) return 'free';
        continue;
      }
      const now = Date.now();
      if (now - lock.mtimeMs > suspectAfterMs && now - lastAttemptAt > suspectAfterMs) {
        return 'suspect';
      }
      if (now >= deadlineAt) return 'deadline';
      if (pending) continue;

      const sleepMs = watcher !== undefined ? watchedCheckMs : checkMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(sleepMs * (0.5 + Math.random()), deadlineAt - now));
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
      checkMs = Math.min(checkMs * 1.5, slowestCheckMs);
    }
  } finally {
    watcher?.close();
  }
}

/** A watch on the spool file (or, if already claimed, its claimed copy); undefined if neither. */
function watchSpoolFile(paths: InboxPaths, name: string, onChange: () => void) {
  for (const folder of [paths.spoolDirectory, paths.claimedDirectory]) {
    try {
      const watcher = watch(path.join(folder, name), { persistent: false }, onChange);
      watcher.on('error', onChange);
      return watcher;
    } catch {
      // Not there (moved on), or no inotify watches left: try the next place, then poll.
    }
  }
  return undefined;
}

type Attempt = { kind: 'locked'; lock: HeldLock } | { kind: 'busy'; error: unknown };

/**
 * One attempt at the inbox lock. `@muster/file-lock` still inspects a held lock and takes
 * it over when its holder is dead or it is stale; a live holder makes this `busy`.
 */
async function tryLockOnce(paths: InboxPaths, staleMs: number | undefined): Promise<Attempt> {
  try {
    const lock = await acquireFileLock(paths.inbox, {
      root: paths.guard.root,
      deadlineMs: 0,
      ...(staleMs === undefined ? {} : { staleMs }),
    });
    return { kind: 'locked', lock };
  } catch (error) {
    if (FileLockError.hasCode(error, 'LOCK_TIMEOUT')) return { kind: 'busy', error };
    throw error;
  }
}

function timeoutError(
  paths: InboxPaths,
  waitedMs: number,
  cause: unknown,
  queued: boolean,
): MailboxError {
  const holder = cause instanceof Error ? ` (last attempt: ${cause.message})` : '';
  return new MailboxError({
    code: 'LOCK_TIMEOUT',
    message: queued
      ? `Timed out after ${waitedMs} ms waiting for the message to reach ${paths.inbox}${holder}. ` +
        'A committer has already taken it, so it is queued and will be delivered by the next ' +
        'writer or reader of this inbox: do NOT send it again.'
      : `Timed out after ${waitedMs} ms waiting for the lock on ${paths.inbox}${holder}. The ` +
        'message was withdrawn and NOT delivered; send it again later.',
    cause,
    details: {
      inboxPath: paths.inbox,
      queued,
      waitedMs,
      ...(queued ? {} : { delivered: false }),
    },
  });
}

function rejectedError(paths: InboxPaths, name: string): MailboxError {
  const file = path.join(paths.rejectedDirectory, name);
  return new MailboxError({
    code: 'CORRUPT_FILE',
    message:
      `The queued message ${file} did not parse when it was committed, so it was NOT ` +
      `delivered to ${paths.inbox}. Something else wrote to muster's spool folder; inspect ` +
      'the file and send the message again.',
    details: { inboxPath: paths.inbox, rejectedFile: file },
  });
}
