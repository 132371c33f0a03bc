import { statSync, watch, type FSWatcher } from 'node:fs';
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
import { isUnclaimed, spoolState, withdrawSpoolFile } from './spool.js';

/** How a sender waits for its queued message to be committed. */
export interface AwaitCommitOptions extends Omit<LockOptions, 'signal'> {
  /** The inbox's lock directory (as `resolveLockPath` gives it). */
  lockPath: string;
  /** Commits the queue while holding the lock; `'lost'` when the lock was taken meanwhile. */
  commit: (lock: HeldLock) => Promise<unknown>;
}

const firstCheckMs = 1;
const slowestCheckMs = 25;
/** Fallback check while a committer has the file (its own events normally wake us). */
const claimedCheckMs = 100;
const maximumLostLocks = 5;
/**
 * A lock younger than this belongs to a committer at work: wait for it rather than
 * contend. Older ones go through the full acquisition (which recovers dead holders).
 */
const busyPatienceMs = 250;

/**
 * Waits until the spool file `name` has been committed into the inbox. While the lock is
 * busy the sender only watches its own file (and the lock directory): whoever holds the lock
 * commits every queued file, so most senders never take the lock at all. When the lock is
 * free, or has been held suspiciously long, the sender takes it (recovering a dead holder's
 * lock at once) and commits the queue itself.
 *
 * At the deadline the sender withdraws its file (a rename that races fairly with a
 * committer's claim): withdrawn means the message was not delivered (`LOCK_TIMEOUT`, safe to
 * retry). If a committer claimed it first, the message is on its way in and the sender waits
 * one more deadline before reporting `LOCK_TIMEOUT` with `details.queued: true`.
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
  for (;;) {
    const state = spoolState(paths, name);
    if (state === 'committed') return;
    if (state === 'rejected') throw rejectedError(paths, name);
    const remainingMs = deadlineAt - Date.now();
    if (remainingMs <= 0) {
      if (withdrawable) {
        if (await withdrawSpoolFile(paths, name))
          throw timeoutError(paths, deadlineMs, lastTimeout, false);
        withdrawable = false;
        deadlineAt = Date.now() + deadlineMs;
        continue;
      }
      throw timeoutError(paths, 2 * deadlineMs, lastTimeout, true);
    }
    const waited = await waitWhileBusy(paths, name, options.lockPath, deadlineAt);
    if (waited === 'changed' || waited === 'deadline') continue;
    // A free lock: one attempt (if another sender wins, it commits this file too). A lock
    // held suspiciously long: the full acquisition, which recovers a dead holder's lock.
    const attempt = await acquireUnlessCommitted(
      paths,
      name,
      waited === 'free' ? 0 : Math.max(1, deadlineAt - Date.now()),
      options.staleMs,
    );
    if (attempt.kind === 'timeout') lastTimeout = attempt.error;
    if (attempt.kind !== 'locked') continue;
    let outcome: unknown;
    try {
      outcome = await options.commit(attempt.lock);
    } finally {
      await attempt.lock.release().catch((error: unknown) => {
        if (!FileLockError.hasCode(error, 'LOCK_LOST')) throw error;
      });
    }
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
 * Sleeps while another process holds a fresh lock. `changed`: the spool file is no longer
 * pending; `free`: no lock; `suspect`: the lock is older than the patience.
 *
 * A file-system watch on the spool file itself wakes the sender when a committer claims it
 * (a move) and when it deletes it (committed): two wake-ups per message instead of a
 * polling loop per waiting sender. The lock is polled (backing off to 25 ms) only while the
 * file is still unclaimed; without a watch (e.g. no inotify instances left) everything is
 * polled.
 */
async function waitWhileBusy(
  paths: InboxPaths,
  name: string,
  lockPath: string,
  deadlineAt: number,
): Promise<'changed' | 'free' | 'suspect' | 'deadline'> {
  let wake: (() => void) | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path.join(paths.spoolDirectory, name), { persistent: false }, () => wake?.());
    watcher.on('error', () => wake?.());
  } catch {
    watcher = undefined; // Already moved on, or no watches left: polling alone.
  }
  let checkMs = firstCheckMs;
  try {
    for (;;) {
      const state = spoolState(paths, name);
      if (state !== 'pending') return 'changed';
      const unclaimed = state === 'pending' && isUnclaimed(paths, name);
      if (unclaimed) {
        const lock = statSync(lockPath, { throwIfNoEntry: false });
        if (lock === undefined) return 'free';
        if (Date.now() - lock.mtimeMs > busyPatienceMs) return 'suspect';
      }
      const now = Date.now();
      if (now >= deadlineAt) return 'deadline';
      const sleepMs = unclaimed || watcher === undefined ? checkMs : claimedCheckMs;
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

type Attempt =
  { kind: 'locked'; lock: HeldLock } | { kind: 'changed' } | { kind: 'timeout'; error: unknown };

/** Takes the inbox lock, giving up as soon as the spool file is no longer pending. */
async function acquireUnlessCommitted(
  paths: InboxPaths,
  name: string,
  deadlineMs: number,
  staleMs: number | undefined,
): Promise<Attempt> {
  const controller = new AbortController();
  let checkMs = firstCheckMs;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    if (spoolState(paths, name) !== 'pending') return controller.abort();
    checkMs = Math.min(checkMs * 1.5, slowestCheckMs);
    timer = setTimeout(check, checkMs);
  };
  timer = setTimeout(check, checkMs);
  try {
    const lock = await acquireFileLock(paths.inbox, {
      deadlineMs,
      ...(staleMs === undefined ? {} : { staleMs }),
      signal: controller.signal,
    });
    return { kind: 'locked', lock };
  } catch (error) {
    if (controller.signal.aborted) return { kind: 'changed' };
    if (FileLockError.hasCode(error, 'LOCK_TIMEOUT')) return { kind: 'timeout', error };
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function timeoutError(
  paths: InboxPaths,
  waitedMs: number,
  cause: unknown,
  queued: boolean,
): MailboxError {
  const holder = cause instanceof Error ? ` (${cause.message})` : '';
  return new MailboxError({
    code: 'LOCK_TIMEOUT',
    message: queued
      ? `Timed out after ${waitedMs} ms waiting for the message to reach ${paths.inbox}${holder}. ` +
        'A committer has already taken it, so it is queued and will be delivered by the next ' +
        'writer or reader of this inbox: do NOT send it again.'
      : `Timed out after ${waitedMs} ms waiting for the lock on ${paths.inbox}${holder}. The ` +
        'message was withdrawn and NOT delivered; send it again later.',
    cause,
    details: { inboxPath: paths.inbox, queued, waitedMs },
  });
}

function rejectedError(paths: InboxPaths, name: string): MailboxError {
  const file = path.join(paths.rejectedDirectory, name);
  return new MailboxError({
    code: 'CORRUPT_FILE',
    message:
      `The queued message ${file} did not parse when it was committed, so it was NOT delivered ` +
      'to ' +
      `${paths.inbox}. Something else wrote to muster's spool folder; inspect the file and send ` +
      'the message again.',
    details: { inboxPath: paths.inbox, rejectedFile: file },
  });
}
