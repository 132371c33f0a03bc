import type { InboxMessage } from './mailbox.js';
import {
  PROTOCOL_MESSAGE_TYPES,
  ProtocolMessageSchema,
  type ProtocolMessage,
} from './protocol-message.js';

/** What an inbox entry's text holds. */
export type MessageContent =
  | { kind: 'protocol'; message: ProtocolMessage }
  | {
      kind: 'text';
      text: string;
      /**
       * Set when the text is JSON naming a known protocol `type` but does not match its
       * schema: it is still treated as free text, and the problem is kept for diagnostics.
       */
      protocolProblem?: string;
    };

const knownTypes: ReadonlySet<string> = new Set(PROTOCOL_MESSAGE_TYPES);

/**
 * Reads an inbox entry's text. Valid protocol JSON becomes a typed message; anything else
 * (plain words, other JSON, a malformed protocol payload) is free text — never an error.
 */
export function parseMessageContent(text: string): MessageContent {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{')) return { kind: 'text', text };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { kind: 'text', text };
  }
  const type = (raw as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !knownTypes.has(type)) return { kind: 'text', text };
  const result = ProtocolMessageSchema.safeParse(raw);
  if (result.success) return { kind: 'protocol', message: raw as ProtocolMessage };
  const problem = result.error.issues
    .map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`)
    .join('; ');
  return { kind: 'text', text, protocolProblem: `${type}: ${problem}` };
}

/** The protocol message in a text, or undefined when it is free text. */
export function parseProtocolMessage(text: string): ProtocolMessage | undefined {
  const content = parseMessageContent(text);
  return content.kind === 'protocol' ? content.message : undefined;
}

/**
 * Encodes a protocol message for an inbox entry's `text`: validated, then
 * `JSON.stringify` without spaces, as Claude Code writes it.
 */
export function formatProtocolMessage(message: ProtocolMessage): string {
  ProtocolMessageSchema.parse(message);
  return JSON.stringify(message);
}

/** Escapes a value for a double-quoted XML-style attribute. */
export function escapeAttributeValue(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;');
}

/**
 * Renders an inbox entry the way the model sees it:
 * `<teammate-message teammate_id="…" color="…" summary="…">\n{text}\n</teammate-message>`
 * (color and summary only when present; attribute values escaped).
 */
export function renderTeammateMessage(
  message: Pick<InboxMessage, 'from' | 'text' | 'color' | 'summary'>,
): string {
  let attributes = ` teammate_id="${escapeAttributeValue(message.from)}"`;
  if (message.color) attributes += ` color="${escapeAttributeValue(message.color)}"`;
  if (message.summary) attributes += ` summary="${escapeAttributeValue(message.summary)}"`;
  return `<teammate-message${attributes}>\n${message.text}\n</teammate-message>`;
}

/** Several entries for one turn, joined by a blank line (how a lead receives a batch). */
export function renderTeammateMessages(
  messages: ReadonlyArray<Pick<InboxMessage, 'from' | 'text' | 'color' | 'summary'>>,
): string {
  return messages.map(renderTeammateMessage).join('\n\n');
}
