import type { InboxMessage, MessageContent, ProtocolMessage } from '@muster/protocol';
import type { LeadTrust } from './lead-trust.js';
import { dispatchMessage, type AgentMessenger, type MessageHandler } from './messenger.js';

/** One unread inbox entry as `@muster/mailbox` delivers it. */
export interface MailboxDelivery {
  /** Position in the inbox when read. */
  index: number;
  /** The entry. */
  message: InboxMessage;
  /** What its text holds. */
  content: MessageContent;
}

/**
 * The part of `@muster/mailbox`'s `Mailbox` this package uses. A `Mailbox` from
 * `createMailbox({ root, team })` fits as it is.
 */
export interface PermissionMailbox {
  /** Appends a protocol message to `to`'s inbox (`color: null` = none, omitted = from the config). */
  sendProtocolMessage(
    to: string,
    from: string,
    message: ProtocolMessage,
    options?: { color?: string | null },
  ): Promise<unknown>;
  /** Yields each unread entry of `agent` once, as it arrives. */
  watch(
    agent: string,
    options?: { signal?: AbortSignal; pollIntervalMs?: number },
  ): AsyncIterable<MailboxDelivery>;
  /** Marks the given delivered entries read. */
  markRead(agent: string, selection: readonly MailboxDelivery[]): Promise<unknown>;
}

/**
 * A messenger that writes to inboxes through `@muster/mailbox`: the entry carries the
 * sender's color from the team config (none for the lead, none on `plan_approval_request`),
 * exactly as Claude Code writes it.
 */
export function createMailboxMessenger(options: {
  mailbox: PermissionMailbox;
  agentName: string;
  /** Force a color instead of the config's (`null` for none). */
  color?: string | null;
}): AgentMessenger {
  return {
    agentName: options.agentName,
    async send(recipient, message) {
      await options.mailbox.sendProtocolMessage(
        recipient,
        options.agentName,
        message,
        options.color === undefined ? {} : { color: options.color },
      );
    },
  };
}

/** A running inbox server; `stop()` ends it and resolves once it has. */
export interface InboxServer {
  stop(): Promise<void>;
  /** Settles when the server ends: rejects with the error that stopped it. */
  done: Promise<void>;
}

/**
 * A handler that stops lead control messages `trust` does not verify (refused and audited,
 * reported as handled so they are consumed) and offers everything else to `handlers` in
 * turn. A member's own inbox loop dispatches to it, so a forged control message never
 * reaches its handlers nor its model.
 */
export function guardControlMessages(
  trust: LeadTrust,
  handlers: readonly MessageHandler[],
): MessageHandler {
  return async (message, delivery = { via: 'mailbox' }) => {
    if (trust.isControlMessage(message) && !(await trust.admit(message, delivery))) return true;
    return dispatchMessage(message, handlers, delivery);
  };
}

/**
 * Reads `agentName`'s inbox as messages arrive and offers each to `handlers` (a permission
 * client, a plan gate, a broker). Messages a handler took are marked read; the rest are left
 * unread for the agent's own loop. With `trust` (a member), lead control messages it does
 * not verify are refused, audited and marked read without reaching any handler. An agent
 * that already runs its own inbox loop should call `dispatchMessage` (or the handler from
 * `guardControlMessages`) from it instead of running a second server.
 */
export function serveInbox(options: {
  mailbox: PermissionMailbox;
  agentName: string;
  handlers: readonly MessageHandler[];
  /** A member's judge of lead control messages. */
  trust?: LeadTrust;
  pollIntervalMs?: number;
  /** Called when a handler throws; the message stays unread. Default: stop the server with the error. */
  onError?: (error: unknown, message: InboxMessage) => void;
}): InboxServer {
  const controller = new AbortController();
  const run = async () => {
    const deliveries = options.mailbox.watch(options.agentName, {
      signal: controller.signal,
      ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
    });
    const handlers =
      options.trust === undefined
        ? options.handlers
        : [guardControlMessages(options.trust, options.handlers)];
    for await (const delivery of deliveries) {
      let handled: boolean;
      try {
        handled = await dispatchMessage(delivery.message, handlers, { via: 'mailbox' });
      } catch (error) {
        if (options.onError === undefined) throw error;
        options.onError(error, delivery.message);
        continue;
      }
      if (handled) await options.mailbox.markRead(options.agentName, [delivery]);
      if (controller.signal.aborted) break;
    }
  };
  const done = run();
  done.catch(() => undefined);
  return {
    done,
    async stop() {
      controller.abort();
      await done.catch(() => undefined);
    },
  };
}
