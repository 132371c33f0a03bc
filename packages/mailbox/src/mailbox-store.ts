import type { InboxMessage } from '@muster/protocol';
import type { MarkTarget } from './spool.js';

export type { MarkTarget };

/** How entries are appended. */
export interface WriteOptions {
  /**
   * The caller named the entries' `msg_id`s itself (it may be retrying a send whose outcome
   * it does not know): an entry whose id was delivered to this inbox before — still in it,
   * in the archive, or among the newest 10 000 ids committed to it — is skipped. Ids already
   * in the inbox are skipped in any case.
   */
  deduplicate?: boolean;
}

/** What a compaction did. */
export interface CompactResult {
  /** Read entries moved to the archive. */
  archived: number;
  /** Entries left in the inbox. */
  remaining: number;
}

/** What a clear did. */
export interface ClearResult {
  /** Entries moved to the archive (the inbox is empty afterwards). */
  cleared: number;
  /** False when there was no inbox (nothing is created then). */
  existed: boolean;
}

/** Change notifications for one inbox. */
export interface InboxChanges extends AsyncIterable<void> {
  /** True when a change was seen that iteration has not reported yet. */
  readonly hasPendingChange: boolean;
  /** Stops watching; iteration ends. */
  close(): void;
}

/**
 * Where inboxes live. The file store (`createFileMailboxStore`) is the only one today; the
 * mailbox talks to storage only through this interface, so a networked store can be added
 * without touching callers.
 */
export interface MailboxStore {
  /**
   * Appends entries to an agent's inbox, in order. Resolves once they are in the inbox
   * (acknowledged); rejects with a `MailboxError` when they are not, and then they never
   * will be (unless the error says `details.queued: true`).
   */
  write(agent: string, messages: readonly InboxMessage[], options?: WriteOptions): Promise<void>;
  /** Every entry, oldest first. A missing inbox reads as empty (and is not created). */
  read(agent: string): Promise<InboxMessage[]>;
  /**
   * Sets `read: true` on the chosen entries (in place: never moves an entry), resolving once
   * that is in the inbox. Entries given by index and digest are found again if a compaction
   * moved them. On a claimed inbox, read entries beyond the retention window are archived in
   * the same write.
   */
  mark(agent: string, target: MarkTarget): Promise<void>;
  /** Moves read entries beyond the newest `keepRead` to the archive (claimed inboxes only). */
  compact(agent: string, options: { keepRead: number }): Promise<CompactResult>;
  /** Moves every entry to the archive. Creates nothing when the inbox is missing. */
  clear(agent: string, options?: { force?: boolean }): Promise<ClearResult>;
  /** Declares that a muster agent reads this inbox, which allows compaction. */
  claim(agent: string): Promise<void>;
  /** Whether a muster agent claimed this inbox. */
  isClaimed(agent: string): Promise<boolean>;
  /** Notifies when the inbox may have changed. */
  watch(agent: string, options: { signal?: AbortSignal; pollIntervalMs?: number }): InboxChanges;
  /** Where the inbox is, for messages (a path for the file store). */
  describe(agent: string): string;
}
