import { lstatSync } from 'node:fs';
import {
  acquireFileLock,
  FileLockError,
  resolveLockPath,
  type HeldLock,
  type LockOptions,
} from '@muster/file-lock';
import { checkInboxPaths, type InboxPaths } from './inbox-paths.js';
import {
  runInboxTransaction,
  type CommitStep,
  type CommitStepInfo,
  type TransactionChange,
  type TransactionState,
} from './inbox-transaction.js';
import { MailboxError, toMailboxError } from './mailbox-error.js';
import { awaitCommit } from './send-wait.js';
import { settleFailedSend } from './delivery-failure.js';
import { listClaimed, listSpool, writeSpoolFile, type SpoolOperation } from './spool.js';

/** Returned by a try-lock transaction that found the lock busy. */
export const lockBusy: unique symbol = Symbol('lock busy');
const maximumLostLockAttempts = 5;
/** After finding an inbox contended, its sends queue without trying the lock this long. */
const contentionMemoryMs = 100;
/** Extra commit rounds a committer runs (holding the lock, or right after) while more is queued. */
const drainRounds = 3;
const noChange = () => ({ result: undefined });

/**
 * Gets operations into inboxes: directly when the lock is free, otherwise through the spool
 * and whoever commits it; and runs locked read-modify-writes for the rest of the store.
 */
export class InboxCommitter {
  private readonly preparedDirectories = new Set<string>();
  private readonly lastContention = new Map<string, number>();

  constructor(
    private readonly lockOptions: Omit<LockOptions, 'signal'>,
    private readonly onCommitStep?: (
      step: CommitStep,
      info: CommitStepInfo,
    ) => void | Promise<void>,
  ) {}

  /**
   * Queues an operation as a spool file and waits until it is in the inbox (committed by
   * this process or by whoever holds the lock).
   */
  async queue(paths: InboxPaths, operation: SpoolOperation, what: string): Promise<void> {
    let name: string | undefined;
    try {
      checkInboxPaths(paths);
      this.prepareDirectories(paths);
      const lockPath = await this.lockPath(paths);
      if (await this.tryDirect(paths, lockPath, operation)) return;
      name = writeSpoolFile(paths, operation);
      await awaitCommit(paths, name, {
        ...this.lockOptions,
        lockPath,
        commit: async (lock) => {
          const options = { createIfMissing: true, onStep: this.onCommitStep };
          const outcome = await runInboxTransaction(lock, paths, noChange, {
            ...options,
            ownSpoolName: name,
          });
          // Drain: operations queued while this commit ran would otherwise wait for their
          // senders to notice the lock is free. A few more rounds, each one short.
          for (let round = 0; outcome !== 'lost' && round < drainRounds; round += 1) {
            if (listSpool(paths).length === 0) break;
            if ((await runInboxTransaction(lock, paths, noChange, options)) === 'lost') break;
          }
          return outcome;
        },
        afterRelease: () => this.drainQueue(paths),
      });
    } catch (error) {
      if (name === undefined) throw notDeliveredYet(error, what, paths);
      // Failed while queued: take the message back unless it is already being committed.
      const settled = settleFailedSend(paths, name, error, what);
      if (settled === 'delivered') return;
      throw settled;
    }
  }

  /**
   * The uncontended fast path: when no one holds the lock, take it (one attempt) and apply
   * the operation in the same commit as anything queued — no spool file. False when the lock
   * is busy (then the caller queues).
   */
  private async tryDirect(
    paths: InboxPaths,
    lockPath: string,
    operation: SpoolOperation,
  ): Promise<boolean> {
    // Busy (held, others already queued, or this process had to queue a moment ago): join
    // the queue instead of contending for the lock.
    const contendedAt = this.lastContention.get(paths.inbox) ?? 0;
    const busy =
      Date.now() - contendedAt < contentionMemoryMs ||
      lstatSync(lockPath, { throwIfNoEntry: false }) !== undefined ||
      listSpool(paths).length > 0;
    if (busy) {
      this.lastContention.set(paths.inbox, Date.now());
      return false;
    }
    let lock: HeldLock;
    try {
      lock = await acquireFileLock(paths.inbox, {
        ...this.lockOptions,
        deadlineMs: 0,
        root: paths.guard.root,
      });
    } catch (error) {
      if (!FileLockError.hasCode(error, 'LOCK_TIMEOUT')) throw error;
      this.lastContention.set(paths.inbox, Date.now());
      return false;
    }
    let outcome;
    try {
      outcome = await runInboxTransaction(lock, paths, noChange, {
        createIfMissing: true,
        directOperation: operation,
        onStep: this.onCommitStep,
      });
    } finally {
      await releaseQuietly(lock);
    }
    // 'lost' happens before the rename: nothing was applied, so queueing it is safe.
    if (outcome === 'lost') return false;
    await this.drainQueue(paths);
    return true;
  }

  /**
   * After a commit, once the lock is released: while operations are queued (their senders
   * queued them while this process held the lock), take it once more and commit them, so
   * they do not wait for their senders to notice the free lock. Stops as soon as another
   * process holds the lock (the duty is then theirs). A failure here stops the drain and is
   * not this caller's: the queued operations stay queued and their own senders, still
   * waiting, take the lock themselves and report whatever they find.
   */
  private async drainQueue(paths: InboxPaths): Promise<void> {
    for (let round = 0; round < drainRounds; round += 1) {
      if (listSpool(paths).length === 0) return;
      let lock: HeldLock;
      try {
        lock = await acquireFileLock(paths.inbox, {
          ...this.lockOptions,
          deadlineMs: 0,
          root: paths.guard.root,
        });
      } catch {
        return;
      }
      try {
        const outcome = await runInboxTransaction(lock, paths, noChange, {
          createIfMissing: true,
          mayQuarantine: false,
          onStep: this.onCommitStep,
        });
        if (outcome === 'lost') return;
      } catch {
        return;
      } finally {
        await releaseQuietly(lock).catch(() => undefined);
      }
    }
  }

  private readonly lockPaths = new Map<string, string>();

  /** The inbox's lock directory, resolved like the lock itself resolves it. */
  private async lockPath(paths: InboxPaths): Promise<string> {
    let lockPath = this.lockPaths.get(paths.inbox);
    if (lockPath === undefined) {
      lockPath = await resolveLockPath(paths.inbox, paths.guard.root);
      this.lockPaths.set(paths.inbox, lockPath);
    }
    return lockPath;
  }

  private prepareDirectories(paths: InboxPaths): void {
    if (this.preparedDirectories.has(paths.inbox)) return;
    paths.guard.ensureDirectory(paths.inboxesDirectory);
    paths.guard.ensureDirectory(paths.spoolDirectory);
    paths.guard.ensureDirectory(paths.claimedDirectory);
    this.preparedDirectories.add(paths.inbox);
  }

  /**
   * Runs a transaction that commits the queue too, retrying when the lock was lost. Does not
   * lock (or create anything) when there is neither an inbox nor a queue.
   */
  async transact<Result>(
    paths: InboxPaths,
    operation: string,
    body: (state: TransactionState) => TransactionChange<Result>,
  ): Promise<Result>;
  async transact<Result>(
    paths: InboxPaths,
    operation: string,
    body: (state: TransactionState) => TransactionChange<Result>,
    how: { deadlineMs: number; busyIsFine: true },
  ): Promise<Result | typeof lockBusy>;
  async transact<Result>(
    paths: InboxPaths,
    operation: string,
    body: (state: TransactionState) => TransactionChange<Result>,
    how?: { deadlineMs: number; busyIsFine: true },
  ): Promise<Result | typeof lockBusy> {
    try {
      checkInboxPaths(paths);
      const queued = listSpool(paths).length + listClaimed(paths).length;
      if (queued === 0 && lstatSync(paths.inbox, { throwIfNoEntry: false }) === undefined) {
        return body({ messages: [], existed: false, incoming: 0 }).result;
      }
      if (queued > 0) paths.guard.ensureDirectory(paths.inboxesDirectory);
      for (let attempt = 1; attempt <= maximumLostLockAttempts; attempt += 1) {
        let lock: HeldLock;
        try {
          lock = await acquireFileLock(paths.inbox, {
            ...this.lockOptions,
            root: paths.guard.root,
            ...(how ? { deadlineMs: how.deadlineMs } : {}),
          });
        } catch (error) {
          if (how?.busyIsFine && FileLockError.hasCode(error, 'LOCK_TIMEOUT')) return lockBusy;
          throw error;
        }
        let outcome;
        try {
          outcome = await runInboxTransaction(lock, paths, body, {
            createIfMissing: false,
            onStep: this.onCommitStep,
          });
        } finally {
          await releaseQuietly(lock);
        }
        if (outcome !== 'lost') {
          await this.drainQueue(paths);
          return outcome.result;
        }
      }
      throw new MailboxError({
        code: 'LOCK_LOST',
        message:
          `Lost the lock on ${paths.inbox} ${maximumLostLockAttempts} times in a row while trying ` +
          `to ${operation}; nothing was changed. Another process keeps taking it: raise ` +
          'lock.staleMs if this machine is heavily loaded, then retry.',
        details: { inboxPath: paths.inbox },
      });
    } catch (error) {
      throw toMailboxError(error, `${operation} for ${paths.agent}`, paths.inbox);
    }
  }
}

/**
 * A failure before anything was queued (or in a direct commit, which withdraws its own
 * operation): the message is not in the inbox and never will be.
 */
function notDeliveredYet(error: unknown, what: string, paths: InboxPaths): MailboxError {
  const cause = toMailboxError(error, what, paths.inbox);
  if ((cause.details as { delivered?: unknown }).delivered !== undefined) return cause;
  return new MailboxError({
    code: cause.code,
    message: `${cause.message} This message was NOT delivered; send it again once the problem is fixed.`,
    cause: error,
    details: { ...cause.details, delivered: false },
  });
}

/** Releases a lock; a lock lost meanwhile was already handled by the transaction's checks. */
export async function releaseQuietly(lock: HeldLock): Promise<void> {
  await lock.release().catch((error: unknown) => {
    if (!FileLockError.hasCode(error, 'LOCK_LOST')) throw error;
  });
}
