import type { LockOptions } from '@muster/file-lock';
import {
  formatProtocolMessage,
  stripTeamSuffix,
  type InboxMessage,
  type ProtocolMessage,
  type ProtocolDialect,
} from '@muster/protocol';
import { createFileMailboxStore, type RetentionOptions } from './file-mailbox-store.js';
import { defaultKeepRead } from './queued-operations.js';
import { buildInboxMessage, entryProblems, isInvalidEntry, messageDigest } from './inbox-format.js';
import {
  buildInboxEntryV2,
  checkedMessageId,
  withMessageId,
  type EntrySigner,
  type MessageIdLedger,
} from './inbox-entry-v2.js';
import type { InboxMessageInput } from './inbox-format.js';
import { broadcastMessage } from './broadcast.js';
import { messageIdOf } from './message-id-log.js';
import { MailboxError, toMailboxError } from './mailbox-error.js';
import type { ClearResult, CompactResult, MailboxStore, MarkTarget } from './mailbox-store.js';
import { unreadInPriorityOrder, type DeliveredMessage } from './priority.js';
import { TeamDirectory, type TeamSpeech } from './team-directory.js';
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
  /**
   * The entry format to write, instead of the team config's (`v2` for `protocolVersion: 2`
   * or a `leadProcess`, else `v1`, also when there is no config).
   */
  dialect?: ProtocolDialect;
  /**
   * v2 teams: called for every entry about to be written, with the recipient's name; a
   * string it returns becomes the entry's `lead_sig` (its last key). The lead's runtime
   * passes its signer here; return undefined for recipients that get no signature.
   */
  signEntry?: EntrySigner;
  /** v2 teams: told every `msg_id` before its entry is written (a verifier trusts those). */
  ledger?: MessageIdLedger;
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
  /**
   * v2 teams: the entry's `msg_id` (a lower-case UUID); a fresh one when omitted. Sending
   * again with the id of a send whose outcome is unclear (an error's `details.messageId`)
   * never delivers it twice. Refused for v1 teams, whose entries carry no id.
   */
  messageId?: string;
}

/** What a send wrote, once it is in the recipient's inbox. */
export interface SendReceipt {
  /** The recipient's agent name. */
  recipient: string;
  /** The entry as written. */
  message: InboxMessage;
  /** v2 teams: the entry's `msg_id` (send again with it and it never arrives twice). */
  messageId?: string;
}

/** What a broadcast wrote. */
export interface BroadcastReceipt {
  /** Every member that received it (everyone but the sender, lead included). */
  recipients: string[];
  /** The entry as written to each inbox (v2: as written to the first recipient). */
  message: InboxMessage;
  /**
   * v2 teams: the broadcast's id. Each inbox gets its own `msg_id` derived from it
   * (`messageIds`); broadcasting again with it delivers to nobody twice.
   */
  messageId?: string;
  /** v2 teams: the `msg_id` each recipient's entry carries. */
  messageIds?: Record<string, string>;
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
  broadcast(
    from: string,
    input: Omit<SendInput, 'from'>,
    options?: { messageId?: string },
  ): Promise<BroadcastReceipt>;
  /** The team's entry format and how its inboxes are delivered (see the README). */
  speech(): Promise<TeamSpeech>;
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

  const speech = async (): Promise<TeamSpeech> => {
    const found = await directory.speech();
    return options.dialect === undefined ? found : { ...found, dialect: options.dialect };
  };

  /** Builds the entry for one recipient in the team's dialect (signed and ledgered in v2). */
  const compose = (
    recipient: string,
    fields: InboxMessageInput,
    dialect: ProtocolDialect,
    messageId: string | undefined,
  ): { message: InboxMessage; messageId?: string } => {
    if (dialect === 'v1') {
      if (messageId !== undefined) throw messageIdInV1(options.team, messageId);
      return { message: buildInboxMessage(fields) };
    }
    const id = checkedMessageId(messageId, `the message for ${recipient}`);
    const signer = options.signEntry;
    const message = buildInboxEntryV2(
      { ...fields, messageId: id },
      signer ? (entry) => signer(recipient, entry) : undefined,
    );
    return { message, messageId: id };
  };

  /** Writes one composed entry; a v2 failure names the id to send again with. */
  const write = async (
    recipient: string,
    composed: { message: InboxMessage; messageId?: string },
    named: boolean,
  ) => {
    if (composed.messageId === undefined) return store.write(recipient, [composed.message]);
    options.ledger?.record(composed.messageId, composed.message, recipient);
    try {
      await store.write(recipient, [composed.message], { deduplicate: named });
    } catch (error) {
      throw withMessageId(error, composed.messageId);
    }
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
    const { dialect } = await speech();
    const composed = compose(
      recipient,
      {
        from: input.from,
        text: input.text,
        ...(input.summary !== undefined ? { summary: input.summary } : {}),
        ...(input.timestamp !== undefined ? { timestamp: input.timestamp } : {}),
        ...(color !== undefined ? { color } : {}),
      },
      dialect,
      sendOptions.messageId,
    );
    await write(recipient, composed, sendOptions.messageId !== undefined);
    return composed.messageId === undefined
      ? { recipient, message: composed.message }
      : { recipient, message: composed.message, messageId: composed.messageId };
  };

  return {
    team: options.team,
    store,
    inboxLocation: (agent) => store.describe(agent),
    send: deliver,
    speech,

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

    broadcast: (from, input, broadcastOptions = {}) =>
      broadcastMessage(
        { directory, resolveColor, speech, compose, write },
        from,
        input,
        broadcastOptions.messageId,
      ),

    readAll: async (agent) =>
      (await store.read(agent)).filter((message) => !isInvalidEntry(message)),

    inboxProblems: async (agent) => entryProblems(await store.read(agent)),

    async readUnread(agent) {
      const messages = await store.read(agent);
      return unreadInPriorityOrder(messages, await directory.leadName());
    },

    async markRead(agent, selection) {
      const target = await toMarkTarget(selection, () => store.read(agent));
      const { delivery } = await speech();
      await store.mark(agent, delivery === 'remove' ? { ...target, remove: true } : target);
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
      watchMessages(
        store,
        agent,
        () => directory.leadName(),
        watchOptions,
        async () => (await speech()).delivery === 'remove',
      ),
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
          ? [markEntry(index, message)]
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
    entries: (items as DeliveredMessage[]).map((item) => markEntry(item.index, item.message)),
  };
}

/** How a mark request finds an entry again: its `msg_id` when it has one, else index and digest. */
function markEntry(index: number, message: InboxMessage) {
  const messageId = messageIdOf(message);
  return {
    index,
    digest: messageDigest(message),
    ...(messageId !== undefined ? { messageId } : {}),
  };
}

function messageIdInV1(team: string, messageId: string): MailboxError {
  return new MailboxError({
    code: 'INVALID_MESSAGE',
    message:
      `Cannot send with messageId ${messageId}: the team "${team}" writes Claude Code 2.1.45 ` +
      'entries (v1), which carry no msg_id, so a retried send could not be recognised. Send ' +
      'without messageId, or use a v2 team (protocolVersion 2).',
    details: { team, messageId },
  });
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
