import { lstatSync } from 'node:fs';
import path from 'node:path';
import type { LockOptions } from '@muster/file-lock';
import type { InboxMessage } from '@muster/protocol';
import { planCompaction } from './compaction.js';
import { InboxCommitter, lockBusy } from './inbox-committer.js';
import { parseInboxText } from './inbox-format.js';
import { checkInboxPaths, createInboxPathResolver, type InboxPaths } from './inbox-paths.js';
import {
  isClaimedInbox,
  readInboxFile,
  type CommitStep,
  type CommitStepInfo,
} from './inbox-transaction.js';
import { watchInbox } from './inbox-watcher.js';
import { MailboxError, toMailboxError } from './mailbox-error.js';
import type {
  ClearResult,
  CompactResult,
  InboxChanges,
  MailboxStore,
  MarkTarget,
  WriteOptions,
} from './mailbox-store.js';
import { defaultKeepRead } from './queued-operations.js';
import { listClaimed, listSpool, spoolNameTime, type SpoolOperation } from './spool.js';

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
  private readonly overdueLooks = new Map<string, number>();
  private readonly committer: InboxCommitter;

  constructor(private readonly options: FileMailboxStoreOptions) {
    this.resolvePaths = createInboxPathResolver(options.root, options.team);
    this.lockOptions = options.lock ?? {};
    this.retention = options.retention ?? { keepRead: defaultKeepRead };
    this.spoolGraceMs = options.spoolGraceMs ?? 250;
    this.committer = new InboxCommitter(this.lockOptions, options.onCommitStep);
  }

  describe(agent: string): string {
    return this.paths(agent).inbox;
  }

  async write(
    agent: string,
    messages: readonly InboxMessage[],
    options: WriteOptions = {},
  ): Promise<void> {
    if (messages.length === 0) return;
    const paths = this.paths(agent);
    const operation: SpoolOperation = {
      kind: 'append',
      messages: [...messages],
      ...(options.deduplicate ? { deduplicate: true } : {}),
    };
    await this.committer.queue(paths, operation, `deliver a message to ${agent}`);
  }

  async mark(agent: string, target: MarkTarget): Promise<void> {
    const paths = this.paths(agent);
    if ('indices' in target && target.indices.length === 0) return;
    if ('entries' in target && target.entries.length === 0) return;
    // Marking a missing inbox creates nothing (not even muster's queue folders).
    try {
      checkInboxPaths(paths);
    } catch (error) {
      throw toMailboxError(error, `mark messages read for ${agent}`, paths.inbox);
    }
    const missing = lstatSync(paths.inbox, { throwIfNoEntry: false }) === undefined;
    if (missing && listSpool(paths).length + listClaimed(paths).length === 0) return;
    const keepRead = this.retention === false ? null : this.retention.keepRead;
    const operation: SpoolOperation = { ...target, kind: 'mark', keepRead };
    await this.committer.queue(paths, operation, `mark messages read for ${agent}`);
  }

  async read(agent: string): Promise<InboxMessage[]> {
    const paths = this.paths(agent);
    try {
      checkInboxPaths(paths);
      if (this.hasOverdueQueue(paths)) {
        // Senders that died after queueing left these behind. Commit them if the lock is
        // free right now; if it is busy, its holder commits them anyway.
        const committed = await this.committer.transact(
          paths,
          'read',
          (state) => ({ result: state.messages }),
          { deadlineMs: overdueCommitDeadlineMs, busyIsFine: true },
        );
        if (committed !== lockBusy) return committed;
      }
      const snapshot = readInboxFile(paths);
      if (snapshot === undefined) return [];
      try {
        return parseInboxText(snapshot.text, paths.inbox);
      } catch {
        // Maybe a torn read of an in-place write (Claude Code): judge it under the lock.
        return await this.committer.transact(paths, 'read', (state) => ({
          result: state.messages,
        }));
      }
    } catch (error) {
      throw toMailboxError(error, `read the inbox of ${agent}`, paths.inbox);
    }
  }

  async compact(agent: string, options: { keepRead: number }): Promise<CompactResult> {
    const paths = this.paths(agent);
    this.requireClaim(paths, 'compact');
    return this.committer.transact(paths, 'compact the inbox', (state) => {
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
    return this.committer.transact<ClearResult>(paths, 'clear the inbox', (state) => {
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
      paths.guard.ensureDirectory(paths.sidecarDirectory);
      paths.guard.writeText(
        paths.claimMarker,
        JSON.stringify({ agent, claimedAt: new Date().toISOString(), pid: process.pid }),
        {},
      );
    } catch (error) {
      throw toMailboxError(error, `claim the inbox of ${agent}`, paths.inbox);
    }
  }

  async isClaimed(agent: string): Promise<boolean> {
    return isClaimedInbox(this.paths(agent));
  }

  watch(agent: string, options: { signal?: AbortSignal; pollIntervalMs?: number }): InboxChanges {
    const paths = this.paths(agent);
    // The inboxes folder appears with the first message; create it now (inside an existing
    // team folder only) so the watch sees that first message at once, not a poll later.
    checkInboxPaths(paths);
    if (lstatSync(path.dirname(paths.inboxesDirectory), { throwIfNoEntry: false })?.isDirectory()) {
      paths.guard.ensureDirectory(paths.inboxesDirectory);
    }
    return watchInbox(paths, options);
  }

  private paths(agent: string): InboxPaths {
    try {
      return this.resolvePaths(agent);
    } catch (error) {
      throw toMailboxError(error, `find the inbox of ${JSON.stringify(agent)}`, '(invalid name)');
    }
  }

  private requireClaim(paths: InboxPaths, operation: string): void {
    if (isClaimedInbox(paths)) return;
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
}
