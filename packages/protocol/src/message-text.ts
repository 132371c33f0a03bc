import { ProtocolError } from './errors.js';
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
  return {
    kind: 'text',
    text,
    protocolProblem: `${type}: ${describeIssues(result.error.issues)}`,
  };
}

/** The protocol message in a text, or undefined when it is free text. */
export function parseProtocolMessage(text: string): ProtocolMessage | undefined {
  const content = parseMessageContent(text);
  return content.kind === 'protocol' ? content.message : undefined;
}

/**
 * Encodes a protocol message for an inbox entry's `text`: validated, then
 * `JSON.stringify` without spaces, as Claude Code writes it (keys in the object's own
 * order, unknown keys kept). Throws `SCHEMA_MISMATCH` for a message that does not match
 * its schema, so nothing malformed ever reaches an inbox.
 */
export function formatProtocolMessage(message: ProtocolMessage): string {
  const result = ProtocolMessageSchema.safeParse(message);
  if (!result.success) {
    const type = (message as { type?: unknown } | null)?.type;
    throw new ProtocolError({
      code: 'SCHEMA_MISMATCH',
      message: `Refusing to send a malformed ${typeof type === 'string' ? type : 'protocol message'}: ${describeIssues(result.error.issues)}. Fix the fields named here.`,
      cause: result.error,
      details: { type, issues: result.error.issues },
    });
  }
  return JSON.stringify(message);
}

function describeIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join('.') || '(top level)'}: ${issue.message}`)
    .join('; ');
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
