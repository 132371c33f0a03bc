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
export type { CommitStep, CommitStepInfo } from './inbox-transaction.js';

export type {
  ClearResult,
  CompactResult,
  InboxChanges,
  MailboxStore,
  MarkTarget,
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
