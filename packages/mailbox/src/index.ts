// Public API of @muster/mailbox.
export { createMailbox } from './mailbox.js';
export type {
  BroadcastReceipt,
  InboxProblem,
  Mailbox,
  MailboxOptions,
  MarkSelection,
  SendInput,
  SendOptions,
  SendReceipt,
} from './mailbox.js';

export { createFileMailboxStore } from './file-mailbox-store.js';
export { defaultKeepRead } from './queued-operations.js';
export type { FileMailboxStoreOptions, RetentionOptions } from './file-mailbox-store.js';
export { buildInboxEntryV2, recipientMessageId } from './inbox-entry-v2.js';
export type { EntrySigner, MessageIdLedger } from './inbox-entry-v2.js';
export { messageIdLogCapacity } from './message-id-log.js';
export type { TeamSpeech } from './team-directory.js';
export type { CommitStep, CommitStepInfo } from './inbox-transaction.js';

export type {
  ClearResult,
  CompactResult,
  InboxChanges,
  MailboxStore,
  MarkTarget,
  WriteOptions,
} from './mailbox-store.js';

export { MailboxError } from './mailbox-error.js';
export type { MailboxErrorCode } from './mailbox-error.js';

export { priorityRank, unreadInPriorityOrder } from './priority.js';
export type { DeliveredMessage } from './priority.js';
export type { WatchOptions } from './watch-messages.js';

export { buildInboxMessage, messageDigest, serializeInbox } from './inbox-format.js';
export type { InboxMessageInput } from './inbox-format.js';
export { defaultPollIntervalMs } from './inbox-watcher.js';
export { closestName } from './team-directory.js';

export { followInboxes, defaultFollowPollIntervalMs } from './follow-inbox.js';
export type { FollowInboxesOptions, InboxFollower } from './follow-inbox.js';
export type { FollowNotice, FollowSummary } from './follow-inbox-notices.js';
export { inboxHistoryAgents, readInboxHistory } from './inbox-history.js';
export type { InboxHistoryEntry, ReadInboxHistoryOptions } from './inbox-history.js';
export { historyFilePath } from './inbox-history-files.js';
export type { RecordedInboxEntry } from './inbox-history-files.js';
export { inboxEntryIdentity } from './inbox-history-format.js';
