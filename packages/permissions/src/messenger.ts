import {
  formatProtocolMessage,
  parseMessageContent,
  type InboxMessage,
  type ProtocolMessage,
} from '@muster/protocol';
import { PermissionsError } from './permissions-error.js';

/** An inbox entry as it is written: Claude Code's key order (`from, text, timestamp, color?, read`). */
export type OutgoingEnvelope = Pick<InboxMessage, 'from' | 'text' | 'timestamp' | 'read'> & {
  color?: string;
};

/**
 * Sends protocol messages from one agent to the others. The same interface covers writing
 * to inboxes on disk (`createMailboxMessenger`) and handing a message to an agent living in
 * the same process (`createInProcessRouter`).
 */
export interface AgentMessenger {
  /** The sending agent's name (`from` on every message). */
  readonly agentName: string;
  /** Delivers one protocol message to `recipient`; rejects when it could not be delivered. */
  send(recipient: string, message: ProtocolMessage): Promise<void>;
}

/** How a message reached its handler. */
export interface MessageDelivery {
  /** `in-process` when handed over in memory, `mailbox` when read from an inbox file. */
  via: 'in-process' | 'mailbox';
}

/**
 * Something that consumes the messages it is responsible for: returns true when the message
 * was of a kind it handles (even if it then ignored it, e.g. an answer to an unknown request),
 * false when it is someone else's (free text, other protocol messages).
 */
export type MessageHandler = (
  message: InboxMessage,
  delivery?: MessageDelivery,
) => boolean | Promise<boolean>;

/**
 * Builds the envelope for a protocol message. The sender's color goes on every message but
 * `plan_approval_request` (as Claude Code writes it); a lead has no color.
 */
export function buildEnvelope(
  from: string,
  message: ProtocolMessage,
  options: { color?: string; timestamp?: string } = {},
): OutgoingEnvelope {
  const envelope: OutgoingEnvelope = {
    from,
    text: formatProtocolMessage(message),
    timestamp: options.timestamp ?? new Date().toISOString(),
    read: false,
  };
  if (options.color !== undefined && message.type !== 'plan_approval_request') {
    const { read } = envelope;
    delete (envelope as Partial<OutgoingEnvelope>).read;
    envelope.color = options.color;
    envelope.read = read;
  }
  return envelope;
}

/**
 * A messenger over any inbox writer: `deliver(recipient, envelope)` appends the envelope to
 * the recipient's inbox (see `createMailboxMessenger` for the `@muster/mailbox` one).
 */
export function createEnvelopeMessenger(options: {
  agentName: string;
  color?: string;
  deliver: (recipient: string, envelope: OutgoingEnvelope) => Promise<void>;
}): AgentMessenger {
  return {
    agentName: options.agentName,
    async send(recipient, message) {
      const envelope = buildEnvelope(
        options.agentName,
        message,
        options.color === undefined ? {} : { color: options.color },
      );
      await options.deliver(recipient, envelope);
    },
  };
}

/**
 * Routes messages between agents of one process without touching disk. An agent registers
 * a handler under its name; a messenger from the router hands each message to the
 * recipient's handler (as the same envelope a file inbox would hold), or to `fallback` —
 * typically a mailbox messenger — when the recipient does not live in this process.
 */
export interface InProcessRouter {
  /** Registers the handler of an agent in this process; returns a function that unregisters it. */
  register(agentName: string, handler: MessageHandler): () => void;
  /** Whether an agent is registered. */
  has(agentName: string): boolean;
  /** A messenger that sends as `agentName`. */
  messenger(
    agentName: string,
    options?: { color?: string; fallback?: AgentMessenger },
  ): AgentMessenger;
}

/** Creates an {@link InProcessRouter}. */
export function createInProcessRouter(): InProcessRouter {
  const handlers = new Map<string, MessageHandler>();
  return {
    register(agentName, handler) {
      handlers.set(agentName, handler);
      return () => {
        if (handlers.get(agentName) === handler) handlers.delete(agentName);
      };
    },
    has: (agentName) => handlers.has(agentName),
    messenger(agentName, options = {}) {
      return {
        agentName,
        async send(recipient, message) {
          const handler = handlers.get(recipient);
          if (handler === undefined) {
            if (options.fallback !== undefined) return options.fallback.send(recipient, message);
            throw new PermissionsError({
              code: 'UNKNOWN_MEMBER',
              message: `Cannot deliver ${message.type} from ${agentName} to ${recipient}: ${recipient} is not registered in this process and no mailbox fallback was given. Register it, or pass a fallback messenger.`,
              details: { recipient, type: message.type },
            });
          }
          const envelope = buildEnvelope(
            agentName,
            message,
            options.color === undefined ? {} : { color: options.color },
          );
          // Hand over asynchronously, as a file inbox would: the sender never runs the
          // recipient's code on its own stack.
          await Promise.resolve();
          const handled = await handler({ ...envelope }, { via: 'in-process' });
          if (!handled) {
            throw new PermissionsError({
              code: 'UNKNOWN_REQUEST',
              message: `${recipient} did not handle the ${message.type} from ${agentName}. Check that its handler covers this message type.`,
              details: { recipient, type: message.type },
            });
          }
        },
      };
    },
  };
}

/**
 * Offers a message to each handler in turn until one handles it. Returns false when none
 * did (free text, or a protocol message no handler covers): the caller keeps it.
 */
export async function dispatchMessage(
  message: InboxMessage,
  handlers: readonly MessageHandler[],
  delivery: MessageDelivery = { via: 'mailbox' },
): Promise<boolean> {
  for (const handler of handlers) {
    if (await handler(message, delivery)) return true;
  }
  return false;
}

/** The protocol message in an envelope, or undefined for free text. */
export function protocolMessageOf(
  message: Pick<InboxMessage, 'text'>,
): ProtocolMessage | undefined {
  const content = parseMessageContent(message.text);
  return content.kind === 'protocol' ? content.message : undefined;
}
