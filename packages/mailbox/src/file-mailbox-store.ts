import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { mkdir, writeFile } from 'node:fs/promises';
import {
  acquireFileLock,
  FileLockError,
  resolveLockPath,
  type HeldLock,
  type LockOptions,
} from '@muster/file-lock';
import type { InboxMessage } from '@muster/protocol';
import { planCompaction } from './compaction.js';
import { defaultKeepRead } from './queued-operations.js';
import { parseInboxText } from './inbox-format.js';
import { createInboxPathResolver, type InboxPaths } from './inbox-paths.js';
import {
  readInboxFile,
  runInboxTransaction,
  type CommitStep,
  type CommitStepInfo,
  type TransactionChange,
  type TransactionState,
} from './inbox-transaction.js';
import { watchInbox } from './inbox-watcher.js';
import { MailboxError, toMailboxError } from './mailbox-error.js';
import type {
  ClearResult,
  CompactResult,
  InboxChanges,
  MailboxStore,
  MarkTarget,
} from './mailbox-store.js';
import { awaitCommit } from './send-wait.js';
import {
  listClaimed,
  listSpool,
  spoolNameTime,
  writeSpoolFile,
  type SpoolOperation,
} from './spool.js';

/** How read entries are kept in a claimed inbox. */
export interface RetentionOptions {
  /** Read entries kept in the inbox (the newest ones); older read entries are archived. */
  keepRead: number;
}

/** Options of {@link createFileMailboxStore}. */
export interface FileMailboxStoreOptions {
  /** The muster root (`~/.muster`, or `~/.claude` to share Claude Code's teams). */
  root: string;
  /** The team's folder name. */
  team: string;
  /** Lock deadline and stale time (see `@muster/file-lock`). */
  lock?: Omit<LockOptions, 'signal'>;
  /**
   * Automatic compaction when a claimed inbox is marked read (by this store): once it holds
   * more than `2 × keepRead` read entries, all but the newest `keepRead` move to the archive.
   * Default `{ keepRead: 100 }`; `false` turns it off (explicit `compact` still works).
   */
  retention?: RetentionOptions | false;
  /** Queued messages older than this are committed by readers too. Default 250 ms. */
  spoolGraceMs?: number;
  /** Fault injection for tests: called at each step of a commit, awaited. */
  onCommitStep?: (step: CommitStep, info: CommitStepInfo) => void | Promise<void>;
}

/** How long a reader tries for the lock to commit messages of senders that died. */
const overdueCommitDeadlineMs = 50;
/** Returned by a try-lock transaction that found the lock busy. */
const busy: unique symbol = Symbol('busy');
const maximumLostLockAttempts = 5;
/** After finding an inbox contended, its sends queue without trying the lock this long. */
const contentionMemoryMs = 100;
/** Extra commit rounds a sender runs while it holds the lock and more is queued. */
const drainRounds = 3;
const noChange = () => ({ result: undefined });

/**
 * Inboxes as Claude Code's files: `teams/{team}/inboxes/{agent}.json` under the
 * proper-lockfile lock `{agent}.json.lock`, with muster's queue and records under
 * `teams/{team}/.muster/mailbox/{agent}/`.
 *
 * A send writes its entry as its own spool file (no lock), then either finds it committed
 * by someone else or takes the inbox lock and commits every queued file in one write
 * (group commit). See the package README for the full protocol.
 */
export function createFileMailboxStore(options: FileMailboxStoreOptions): MailboxStore {
  return new FileMailboxStore(options);
}

class FileMailboxStore implements MailboxStore {
  private readonly resolvePaths: (agent: string) => InboxPaths;
  private readonly lockOptions: Omit<LockOptions, 'signal'>;
  private readonly retention: RetentionOptions | false;
  private readonly spoolGraceMs: number;
  private readonly preparedDirectories = new Set<string>();
  private readonly overdueLooks = new Map<string, number>();
  private readonly lastContention = new Map<string, number>();

  constructor(private readonly options: FileMailboxStoreOptions) {
    this.resolvePaths = createInboxPathResolver(options.root, options.team);
    this.lockOptions = options.lock ?? {};
    this.retention = options.retention ?? { keepRead: defaultKeepRead };
    this.spoolGraceMs = options.spoolGraceMs ?? 250;
  }

  describe(agent: string): string {
    return this.paths(agent).inbox;
  }

  async write(agent: string, messages: readonly InboxMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.queue(agent, { kind: 'append', messages: [...messages] }, 'deliver a message to');
  }

  async mark(agent: string, target: MarkTarget): Promise<void> {
    const paths = this.paths(agent);
    if ('indices' in target && target.indices.length === 0) return;
    if ('entries' in target && target.entries.length === 0) return;
    // Marking a missing inbox creates nothing (not even muster's queue folders).
    if (!existsSync(paths.inbox) && listSpool(paths).length + listClaimed(paths).length === 0) {
      return;
    }
    const keepRead = this.retention === false ? null : this.retention.keepRead;
    await this.queue(agent, { ...target, kind: 'mark', keepRead }, 'mark messages read for');
  }

  /**
   * Queues an operation as a spool file and waits until it is in the inbox (committed by
   * this process or by whoever holds the lock).
   */
  private async queue(agent: string, operation: SpoolOperation, what: string): Promise<void> {
    const paths = this.paths(agent);
    try {
      this.prepareDirectories(paths);
      const lockPath = await this.lockPath(paths);
      if (await this.tryDirect(paths, lockPath, operation)) return;
      const name = writeSpoolFile(paths, operation);
      await awaitCommit(paths, name, {
        ...this.lockOptions,
        lockPath,
        commit: async (lock) => {
          const options = { createIfMissing: true, onStep: this.options.onCommitStep };
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
      throw toMailboxError(error, `${what} ${agent}`, paths.inbox);
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
      existsSync(lockPath) ||
      listSpool(paths).length > 0;
    if (busy) {
      this.lastContention.set(paths.inbox, Date.now());
      return false;
    }
    let lock: HeldLock;
    try {
      lock = await acquireFileLock(paths.inbox, { ...this.lockOptions, deadlineMs: 0 });
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
        onStep: this.options.onCommitStep,
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
        lock = await acquireFileLock(paths.inbox, { ...this.lockOptions, deadlineMs: 0 });
      } catch {
        return;
      }
      try {
        const outcome = await runInboxTransaction(lock, paths, noChange, {
          createIfMissing: true,
          mayQuarantine: false,
          onStep: this.options.onCommitStep,
        });
        if (outcome === 'lost') return;
      } catch {
        return;
      } finally {
        await releaseQuietly(lock).catch(() => undefined);
      }
    }
  }

  async read(agent: string): Promise<InboxMessage[]> {
    const paths = this.paths(agent);
    try {
      if (this.hasOverdueQueue(paths)) {
        // Senders that died after queueing left these behind. Commit them if the lock is
        // free right now; if it is busy, its holder commits them anyway.
        const committed = await this.transact(
          paths,
          'read',
          (state) => ({ result: state.messages }),
          { deadlineMs: overdueCommitDeadlineMs, busyIsFine: true },
        );
        if (committed !== busy) return committed;
      }
      const snapshot = readInboxFile(paths.inbox);
      if (snapshot === undefined) return [];
      try {
        return parseInboxText(snapshot.text, paths.inbox);
      } catch {
        // Maybe a torn read of an in-place write (Claude Code): judge it under the lock.
        return await this.transact(paths, 'read', (state) => ({ result: state.messages }));
      }
    } catch (error) {
      throw toMailboxError(error, `read the inbox of ${agent}`, paths.inbox);
    }
  }

  async compact(agent: string, options: { keepRead: number }): Promise<CompactResult> {
    const paths = this.paths(agent);
    this.requireClaim(paths, 'compact');
    return this.transact(paths, 'compact the inbox', (state) => {
      const plan = planCompaction(state.messages, options.keepRead, options.keepRead);
      if (plan.archived.length === 0) {
        return { result: { archived: 0, remaining: state.messages.length } };
      }
      return {
        messages: plan.kept,
        archived: plan.archived,
        result: { archived: plan.archived.length, remaining: plan.kept.length },
      };
    });
  }

  async clear(agent: string, options: { force?: boolean } = {}): Promise<ClearResult> {
    const paths = this.paths(agent);
    if (!options.force) this.requireClaim(paths, 'clear');
    return this.transact<ClearResult>(paths, 'clear the inbox', (state) => {
      if (!state.existed && state.incoming === 0) return { result: { cleared: 0, existed: false } };
      return {
        messages: [],
        archived: state.messages,
        result: { cleared: state.messages.length, existed: true },
      };
    });
  }

  async claim(agent: string): Promise<void> {
    const paths = this.paths(agent);
    try {
      await mkdir(paths.sidecarDirectory, { recursive: true });
      await writeFile(
        paths.claimMarker,
        JSON.stringify({ agent, claimedAt: new Date().toISOString(), pid: process.pid }),
      );
    } catch (error) {
      throw toMailboxError(error, `claim the inbox of ${agent}`, paths.inbox);
    }
  }

  async isClaimed(agent: string): Promise<boolean> {
    return existsSync(this.paths(agent).claimMarker);
  }

  watch(agent: string, options: { signal?: AbortSignal; pollIntervalMs?: number }): InboxChanges {
    const paths = this.paths(agent);
    // The inboxes folder appears with the first message; create it now (inside an existing
    // team folder only) so the watch sees that first message at once, not a poll later.
    if (existsSync(path.dirname(paths.inboxesDirectory))) {
      mkdirSync(paths.inboxesDirectory, { recursive: true });
    }
    return watchInbox(paths, options);
  }

  private readonly lockPaths = new Map<string, string>();

  /** The inbox's lock directory, resolved like the lock itself resolves it. */
  private async lockPath(paths: InboxPaths): Promise<string> {
    let lockPath = this.lockPaths.get(paths.inbox);
    if (lockPath === undefined) {
      lockPath = await resolveLockPath(paths.inbox);
      this.lockPaths.set(paths.inbox, lockPath);
    }
    return lockPath;
  }

  private paths(agent: string): InboxPaths {
    try {
      return this.resolvePaths(agent);
    } catch (error) {
      throw toMailboxError(error, `find the inbox of ${JSON.stringify(agent)}`, '(invalid name)');
    }
  }

  private requireClaim(paths: InboxPaths, operation: string): void {
    if (existsSync(paths.claimMarker)) return;
    throw new MailboxError({
      code: 'NOT_CLAIMED',
      message:
        `Refusing to ${operation} ${paths.inbox}: no muster agent has claimed it, so Claude Code ` +
        'may be reading it, and Claude Code marks messages read by their position — removing ' +
        `entries would make it mark the wrong ones. Call claim("${paths.agent}") from the muster ` +
        'agent that reads this inbox first' +
        (operation === 'clear' ? ', or pass { force: true } if no one is reading it.' : '.'),
      details: { inboxPath: paths.inbox, agent: paths.agent },
    });
  }

  private prepareDirectories(paths: InboxPaths): void {
    if (this.preparedDirectories.has(paths.inbox)) return;
    mkdirSync(paths.inboxesDirectory, { recursive: true });
    mkdirSync(paths.spoolDirectory, { recursive: true });
    mkdirSync(paths.claimedDirectory, { recursive: true });
    this.preparedDirectories.add(paths.inbox);
  }

  /** Queued messages whose sender seems gone (older than the grace time). */
  private hasOverdueQueue(paths: InboxPaths): boolean {
    // Orphans are rare: look at most every grace period per inbox.
    const lastLook = this.overdueLooks.get(paths.inbox) ?? 0;
    if (Date.now() - lastLook < this.spoolGraceMs) return false;
    this.overdueLooks.set(paths.inbox, Date.now());
    const cutoff = Date.now() - this.spoolGraceMs;
    const names = [...listSpool(paths), ...listClaimed(paths)];
    return names.some((name) => spoolNameTime(name) < cutoff);
  }

  /**
   * Runs a transaction that commits the queue too, retrying when the lock was lost. Does not
   * lock (or create anything) when there is neither an inbox nor a queue.
   */
  private async transact<Result>(
    paths: InboxPaths,
    operation: string,
    body: (state: TransactionState) => TransactionChange<Result>,
  ): Promise<Result>;
  private async transact<Result>(
    paths: InboxPaths,
    operation: string,
    body: (state: TransactionState) => TransactionChange<Result>,
    how: { deadlineMs: number; busyIsFine: true },
  ): Promise<Result | typeof busy>;
  private async transact<Result>(
    paths: InboxPaths,
    operation: string,
    body: (state: TransactionState) => TransactionChange<Result>,
    how?: { deadlineMs: number; busyIsFine: true },
  ): Promise<Result | typeof busy> {
    try {
      const queued = listSpool(paths).length + listClaimed(paths).length;
      if (queued === 0 && !existsSync(paths.inbox)) {
        return body({ messages: [], existed: false, incoming: 0 }).result;
      }
      if (queued > 0) mkdirSync(paths.inboxesDirectory, { recursive: true });
      for (let attempt = 1; attempt <= maximumLostLockAttempts; attempt += 1) {
        let lock: HeldLock;
        try {
          lock = await acquireFileLock(paths.inbox, {
            ...this.lockOptions,
            ...(how ? { deadlineMs: how.deadlineMs } : {}),
          });
        } catch (error) {
          if (how?.busyIsFine && FileLockError.hasCode(error, 'LOCK_TIMEOUT')) return busy;
          throw error;
        }
        let outcome;
        try {
          outcome = await runInboxTransaction(lock, paths, body, {
            createIfMissing: false,
            onStep: this.options.onCommitStep,
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

/** Releases a lock; a lock lost meanwhile was already handled by the transaction's checks. */
export async function releaseQuietly(lock: HeldLock): Promise<void> {
  await lock.release().catch((error: unknown) => {
    if (!FileLockError.hasCode(error, 'LOCK_LOST')) throw error;
  });
}
