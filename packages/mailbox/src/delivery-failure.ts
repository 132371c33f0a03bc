import { renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type { InboxPaths } from './inbox-paths.js';
import { MailboxError, systemErrorCode, toMailboxError } from './mailbox-error.js';
import { spoolState, withdrawSpoolFile } from './spool.js';

// A send that reports failure must never be delivered later: a caller that retries would
// then have it twice. So whenever a send fails, its own queued file is taken back first:
// - from `spool/` at any time (a rename that races fairly with a committer's claim);
// - from `claimed/` only while holding the lock (no committer can be using it then).
// The error then says "NOT delivered". When neither is possible (another live committer has
// claimed it), the error has code `MAYBE_DELIVERED`: it will arrive, do not send it again.

/** What the failed transaction was carrying for its caller. */
export interface OwnOperation {
  /** The caller's queued file. */
  ownSpoolName?: string;
  /** An operation applied directly (never written to the spool). */
  directOperation?: unknown;
}

/**
 * Called with the lock held when a transaction failed before its rename: withdraws the
 * caller's own queued file (from `spool/` or `claimed/`) and returns the error to throw,
 * marked `delivered: false` when the caller's operation is certainly not in the inbox.
 */
export function withdrawAfterFailure(
  paths: InboxPaths,
  own: OwnOperation,
  error: unknown,
): unknown {
  if (isNotDelivered(error)) return error;
  let mine = own.directOperation !== undefined;
  try {
    mine ||=
      own.ownSpoolName !== undefined &&
      (withdrawSpoolFile(paths, own.ownSpoolName) || withdrawClaimedFile(paths, own.ownSpoolName));
  } catch {
    // Could not take it back: the error stays unmarked (see settleFailedSend).
  }
  return mine ? notDelivered(error, paths) : error;
}

/**
 * Called without the lock when a send failed after queueing `name`: withdraws it from the
 * spool if no committer took it yet. Returns `'delivered'` when it is already in the inbox
 * (the send succeeded after all), else the error to throw.
 */
export function settleFailedSend(
  paths: InboxPaths,
  name: string,
  error: unknown,
  what: string,
): 'delivered' | MailboxError {
  if (isNotDelivered(error)) return toMailboxError(error, what, paths.inbox);
  if (withdrawSpoolFile(paths, name)) return notDelivered(error, paths, what);
  const state = spoolState(paths, name);
  if (state === 'committed') return 'delivered';
  const cause = toMailboxError(error, what, paths.inbox);
  if (state === 'rejected') return cause;
  return new MailboxError({
    code: 'MAYBE_DELIVERED',
    message:
      `${cause.message} The message MAY STILL BE DELIVERED: another process is committing it ` +
      `(queued file ${path.join(paths.claimedDirectory, name)}). Do NOT send it again; check ` +
      `the inbox ${paths.inbox} later.`,
    cause: error,
    details: { ...cause.details, delivered: 'maybe', queued: true },
  });
}

/**
 * True for an error that already says what happened to the message: marked delivered or
 * not, or still queued (a `LOCK_TIMEOUT` or `LOCK_LOST` that says "do not resend").
 */
function isNotDelivered(error: unknown): boolean {
  if (!(error instanceof MailboxError)) return false;
  const details = error.details as { delivered?: unknown; queued?: unknown };
  return details.delivered !== undefined || details.queued === true;
}

/**
 * A failure after the rename: the operation is in the inbox, but what followed (flushing
 * the folder, the archive, clean-up) failed, so it may not survive a power cut.
 */
export function failedAfterRename(error: unknown, paths: InboxPaths): MailboxError {
  const cause = toMailboxError(error, 'finish a commit', paths.inbox);
  return new MailboxError({
    code: 'MAYBE_DELIVERED',
    message:
      `${cause.message} The message is in the inbox, but the commit could not be finished, ` +
      'so it may not survive a power cut. Do NOT send it again; check the inbox.',
    cause: error,
    details: { ...cause.details, delivered: 'maybe' },
  });
}

function notDelivered(error: unknown, paths: InboxPaths, what = 'deliver a message'): MailboxError {
  const cause = toMailboxError(error, what, paths.inbox);
  return new MailboxError({
    code: cause.code,
    message: `${cause.message} This message was NOT delivered (it was withdrawn); send it again once the problem is fixed.`,
    cause: error,
    details: { ...cause.details, delivered: false },
  });
}

/** Takes a claimed file back (only while holding the lock). True when it was there. */
function withdrawClaimedFile(paths: InboxPaths, name: string): boolean {
  const withdrawn = path.join(paths.claimedDirectory, `.${name}.withdrawn`);
  try {
    renameSync(path.join(paths.claimedDirectory, name), withdrawn);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return false;
    throw error;
  }
  try {
    unlinkSync(withdrawn);
  } catch {
    // Named so that nothing ever reads it as a queued message.
  }
  return true;
}
