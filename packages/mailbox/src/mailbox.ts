import type { LockOptions } from '@muster/file-lock';
import {
  formatProtocolMessage,
  stripTeamSuffix,
  type InboxMessage,
  type ProtocolMessage,
} from '@muster/protocol';
import { createFileMailboxStore, type RetentionOptions } from './file-mailbox-store.js';
import { defaultKeepRead } from './queued-operations.js';
import { buildInboxMessage, entryProblems, isInvalidEntry, messageDigest } from './inbox-format.js';
import { MailboxError, toMailboxError } from './mailbox-error.js';
import type { ClearResult, CompactResult, MailboxStore, MarkTarget } from './mailbox-store.js';
import { unreadInPriorityOrder, type DeliveredMessage } from './priority.js';
import { TeamDirectory } from './team-directory.js';
import { watchMessages, type WatchOptions } from './watch-messages.js';

/** Which entries `markRead` marks. */
export type MarkSelection =
  | 'all'
  | readonly number[]
  | readonly DeliveredMessage[]
  | ((message: InboxMessage, index: number) => boolean);

/** Options of {@link createMailbox}. */
export interface MailboxOptions {
  /** The muster root (`~/.muster`, or `~/.claude` to share a Claude Code team). */
  root: string;
  /** The team's folder name. */
  team: string;
  /** Lock deadline (default 10 s) and stale time (default 10 s). */
  lock?: Omit<LockOptions, 'signal'>;
  /**
   * `team-config` (default): a recipient must be a member in the team's config, and a
   * sender's color is taken from it. `none`: any name goes, no config is read for sends.
   */
  recipientCheck?: 'team-config' | 'none';
  /** Automatic compaction of claimed inboxes on mark-read (see the file store). */
  retention?: RetentionOptions | false;
  /** Another store (for example a networked one); default: the file store under `root`. */
  store?: MailboxStore;
}

/** One message to send. */
export interface SendInput {
  /** Sender's agent name. */
  from: string;
  /** Free text. */
  text: string;
  /** A 5–10 word preview shown in the UI. */
  summary?: string;
  /**
   * The sender's color. Omitted: taken from the team config (the lead has none). `null`:
   * no color.
   */
  color?: string | null;
  /** ISO-8601 send time; now when omitted. */
  timestamp?: string;
}

/** Options of a send. */
export interface SendOptions {
  /** Write even if the recipient is not (yet) a member of the team. */
  allowUnknownRecipient?: boolean;
}

/** What a send wrote, once it is in the recipient's inbox. */
export interface SendReceipt {
  /** The recipient's agent name. */
  recipient: string;
  /** The entry as written. */
  message: InboxMessage;
}

/** What a broadcast wrote. */
export interface BroadcastReceipt {
  /** Every member that received it (everyone but the sender, lead included). */
  recipients: string[];
  /** The entry as written to each inbox. */
  message: InboxMessage;
}

/** An inbox entry that does not match the schema (kept in the file, skipped). */
export interface InboxProblem {
  /** Its position in the inbox array. */
  index: number;
  /** What is wrong with it. */
  problem: string;
}

/** Agent inboxes of one team. */
export interface Mailbox {
  /** The team these inboxes belong to. */
  readonly team: string;
  /** The store underneath. */
  readonly store: MailboxStore;
  /** Where an agent's inbox is (a file path for the file store). */
  inboxLocation(agent: string): string;
  /** Sends a message; resolves once it is in the recipient's inbox. */
  send(to: string, input: SendInput, options?: SendOptions): Promise<SendReceipt>;
  /**
   * Sends a protocol message (validated, encoded into `text` as Claude Code does): no
   * summary; the sender's color except on plan approval requests; the payload's timestamp.
   */
  sendProtocolMessage(
    to: string,
    from: string,
    message: ProtocolMessage,
    options?: SendOptions & { color?: string | null; timestamp?: string },
  ): Promise<SendReceipt>;
  /** Sends one message to every member except the sender (the lead included). */
  broadcast(from: string, input: Omit<SendInput, 'from'>): Promise<BroadcastReceipt>;
  /** Every entry of the inbox, oldest first (skipping entries that do not match the schema); a missing inbox is empty. */
  readAll(agent: string): Promise<InboxMessage[]>;
  /**
   * Entries of the inbox that do not match the protocol schema, with their index and what is
   * wrong. They stay in the file untouched and are never delivered nor returned by
   * `readAll`; the rest of the inbox is delivered as usual.
   */
  inboxProblems(agent: string): Promise<InboxProblem[]>;
  /** Unread entries in priority order, each with its index and parsed content. */
  readUnread(agent: string): Promise<DeliveredMessage[]>;
  /**
   * Marks entries read, in place: `'all'` (every unread entry when the mark is applied),
   * array indices (as Claude Code does), messages from `readUnread`/`watch` (found again even
   * if a compaction moved them), or a predicate (evaluated on a fresh read). Resolves once
   * the marks are in the inbox.
   */
  markRead(agent: string, selection: MarkSelection): Promise<void>;
  /** Moves every entry to the archive (claimed inboxes, or `force`). Creates nothing. */
  clear(agent: string, options?: { force?: boolean }): Promise<ClearResult>;
  /** Moves read entries beyond the newest `keepRead` (default 100) to the archive (claimed inboxes only). */
  compact(agent: string, options?: { keepRead?: number }): Promise<CompactResult>;
  /** Declares that this agent is a muster agent that reads its inbox through this package. */
  claimInbox(agent: string): Promise<void>;
  /** Yields each unread message once, as it arrives, in priority order. */
  watch(agent: string, options?: WatchOptions): AsyncIterable<DeliveredMessage>;
}

/** Opens a team's mailbox. Nothing is read or created until the first call. */
export function createMailbox(options: MailboxOptions): Mailbox {
  const store =
    options.store ??
    createFileMailboxStore({
      root: options.root,
      team: options.team,
      ...(options.lock ? { lock: options.lock } : {}),
      ...(options.retention !== undefined ? { retention: options.retention } : {}),
    });
  const directory = new TeamDirectory(options.root, options.team);
  const checkRecipients = (options.recipientCheck ?? 'team-config') === 'team-config';

  const recipientName = (to: string) => {
    try {
      return stripTeamSuffix(to, options.team);
    } catch (error) {
      throw toMailboxError(error, `send to ${JSON.stringify(to)}`, `(none: invalid recipient)`);
    }
  };

  const resolveColor = async (from: string, color: string | null | undefined) => {
    if (color === null) return undefined;
    if (color !== undefined) return color;
    return checkRecipients ? directory.colorOf(from) : undefined;
  };

  const deliver = async (
    to: string,
    input: SendInput,
    sendOptions: SendOptions = {},
  ): Promise<SendReceipt> => {
    const recipient = recipientName(to);
    if (checkRecipients && !sendOptions.allowUnknownRecipient) {
      await directory.requireMember(recipient);
    }
    const color = await resolveColor(input.from, input.color);
    const message = buildInboxMessage({
      from: input.from,
      text: input.text,
      ...(input.summary !== undefined ? { summary: input.summary } : {}),
      ...(input.timestamp !== undefined ? { timestamp: input.timestamp } : {}),
      ...(color !== undefined ? { color } : {}),
    });
    await store.write(recipient, [message]);
    return { recipient, message };
  };

  return {
    team: options.team,
    store,
    inboxLocation: (agent) => store.describe(agent),
    send: deliver,

    async sendProtocolMessage(to, from, message, sendOptions = {}) {
      let text: string;
      try {
        text = formatProtocolMessage(message);
      } catch (error) {
        throw new MailboxError({
          code: 'INVALID_MESSAGE',
          message:
            `The ${String((message as { type?: unknown }).type)} message for ${to} does not match ` +
            `the protocol: ${error instanceof Error ? error.message : String(error)}. Fix it and send again.`,
          cause: error,
          details: { to, from },
        });
      }
      // The entry carries the payload's timestamp, as Claude Code writes it (messages
      // without one, such as permission requests, are stamped now unless told otherwise).
      const payloadTimestamp = (message as { timestamp?: unknown }).timestamp;
      const stamped = sendOptions.timestamp ?? payloadTimestamp;
      // Claude Code writes plan approval requests without the sender's color.
      const color =
        sendOptions.color !== undefined
          ? sendOptions.color
          : message.type === 'plan_approval_request'
            ? null
            : undefined;
      return deliver(
        to,
        { from, text, color, ...(typeof stamped === 'string' ? { timestamp: stamped } : {}) },
        sendOptions,
      );
    },

    async broadcast(from, input) {
      const config = await directory.require('broadcast');
      const recipients = config.members
        .map((member) => member.name)
        .filter((name) => name !== from);
      const color = await resolveColor(from, input.color);
      const message = buildInboxMessage({
        from,
        text: input.text,
        ...(input.summary !== undefined ? { summary: input.summary } : {}),
        ...(input.timestamp !== undefined ? { timestamp: input.timestamp } : {}),
        ...(color !== undefined ? { color } : {}),
      });
      const outcomes = await Promise.allSettled(
        recipients.map((recipient) => store.write(recipient, [message])),
      );
      const failed = outcomes.flatMap((outcome, position) =>
        outcome.status === 'rejected'
          ? [{ recipient: recipients[position]!, error: outcome.reason }]
          : [],
      );
      if (failed.length > 0) {
        const delivered = recipients.filter(
          (name) => !failed.some((item) => item.recipient === name),
        );
        throw new MailboxError({
          code: 'BROADCAST_INCOMPLETE',
          message:
            `The broadcast from ${from} reached ${delivered.length} of ${recipients.length} members; ` +
            `it failed for ${failed
              .map(
                (item) =>
                  `${item.recipient} (${item.error instanceof Error ? item.error.message : String(item.error)})`,
              )
              .join('; ')}. Resend to those members only (send), not the whole broadcast.`,
          cause: failed[0]!.error,
          details: { delivered, failed: failed.map((item) => item.recipient), message },
        });
      }
      return { recipients, message };
    },

    readAll: async (agent) =>
      (await store.read(agent)).filter((message) => !isInvalidEntry(message)),

    inboxProblems: async (agent) => entryProblems(await store.read(agent)),

    async readUnread(agent) {
      const messages = await store.read(agent);
      return unreadInPriorityOrder(messages, await directory.leadName());
    },

    async markRead(agent, selection) {
      await store.mark(agent, await toMarkTarget(selection, () => store.read(agent)));
    },
    clear: (agent, clearOptions) => store.clear(agent, clearOptions),
    compact: (agent, compactOptions = {}) =>
      store.compact(agent, {
        keepRead:
          compactOptions.keepRead ??
          (options.retention ? options.retention.keepRead : defaultKeepRead),
      }),
    claimInbox: (agent) => store.claim(agent),
    watch: (agent, watchOptions = {}) =>
      watchMessages(store, agent, () => directory.leadName(), watchOptions),
  };
}

/** Turns a public selection into data a store can queue; `INVALID_SELECTION` otherwise. */
async function toMarkTarget(
  selection: MarkSelection,
  read: () => Promise<InboxMessage[]>,
): Promise<MarkTarget> {
  if (selection === 'all') return { all: true };
  if (typeof selection === 'function') {
    const messages = await read();
    return {
      entries: messages.flatMap((message, index) =>
        !isInvalidEntry(message) && !message.read && selection(message, index)
          ? [{ index, digest: messageDigest(message) }]
          : [],
      ),
    };
  }
  if (!Array.isArray(selection)) throw invalidSelection(selection);
  const items: readonly unknown[] = selection;
  if (items.every((item) => typeof item === 'number')) {
    const bad = items.find((index) => !Number.isInteger(index) || (index as number) < 0);
    if (bad !== undefined) throw invalidSelection(bad);
    return { indices: items as number[] };
  }
  const bad = items.find(
    (item) =>
      typeof item !== 'object' ||
      item === null ||
      typeof (item as DeliveredMessage).index !== 'number' ||
      typeof (item as DeliveredMessage).message !== 'object',
  );
  if (bad !== undefined) throw invalidSelection(bad);
  return {
    entries: (items as DeliveredMessage[]).map((item) => ({
      index: item.index,
      digest: messageDigest(item.message),
    })),
  };
}

function invalidSelection(value: unknown): MailboxError {
  return new MailboxError({
    code: 'INVALID_SELECTION',
    message:
      `Cannot mark ${JSON.stringify(value)} read: pass 'all', array indices (whole numbers ` +
      'from 0), messages returned by readUnread or watch, or a predicate.',
    details: { value },
  });
}
