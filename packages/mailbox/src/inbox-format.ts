import { createHash } from 'node:crypto';
import {
  formatJsonFile,
  InboxMessageSchema,
  InboxSchema,
  safeParseJsonFile,
  safeValidate,
  type InboxMessage,
} from '@muster/protocol';
import { MailboxError } from './mailbox-error.js';

/** What a caller supplies to build one inbox entry. */
export interface InboxMessageInput {
  /** Sender's agent name. */
  from: string;
  /** Free text, or an encoded protocol message. */
  text: string;
  /** Short preview (plain messages and broadcasts only). */
  summary?: string;
  /** ISO-8601 with milliseconds; now when omitted. */
  timestamp?: string;
  /** The sender's color; absent for the lead. */
  color?: string;
}

/**
 * Builds an entry with Claude Code's key order — `from, text, summary?, timestamp, color?,
 * read` — and checks it against the protocol schema (`INVALID_MESSAGE` otherwise).
 */
export function buildInboxMessage(input: InboxMessageInput): InboxMessage {
  const entry: Record<string, unknown> = { from: input.from, text: input.text };
  if (input.summary !== undefined) entry.summary = input.summary;
  entry.timestamp = input.timestamp ?? new Date().toISOString();
  if (input.color !== undefined) entry.color = input.color;
  entry.read = false;
  const result = safeValidate(entry, InboxMessageSchema, 'the message');
  if (!result.success) {
    throw new MailboxError({
      code: 'INVALID_MESSAGE',
      message: `${result.error.message} Fix the message and send it again.`,
      cause: result.error,
      details: { from: input.from },
    });
  }
  return result.value;
}

/**
 * Parses an inbox file's text. Unknown fields stay in place (the parsed objects are the
 * file's own), so {@link serializeInbox} writes an untouched inbox back byte for byte.
 * Throws the protocol's `INVALID_JSON` / `SCHEMA_MISMATCH` error when it does not parse.
 */
export function parseInboxText(text: string, file: string): InboxMessage[] {
  const result = safeParseJsonFile(text, InboxSchema, file);
  if (!result.success) throw result.error;
  return result.value;
}

/** Claude Code's inbox format: 2-space JSON, no trailing newline. */
export function serializeInbox(messages: readonly InboxMessage[]): string {
  return formatJsonFile(messages);
}

/**
 * What identifies an entry when indices may have shifted: a SHA-1 of sender, timestamp,
 * summary and text (not of `read`). Equal digests are told apart by their order.
 */
export function messageDigest(message: InboxMessage): string {
  return createHash('sha1')
    .update(`${message.from}\u0000${message.timestamp}\u0000${message.summary ?? ''}\u0000`)
    .update(message.text)
    .digest('hex');
}

/**
 * A key for each unread entry (by index; read entries get none): its occurrence number
 * among unread entries with the same digest, then the digest.
 */
export function unreadKeys(messages: readonly InboxMessage[]): Array<string | undefined> {
  const seen = new Map<string, number>();
  return messages.map((message) => {
    if (message.read) return undefined;
    const digest = messageDigest(message);
    const occurrence = seen.get(digest) ?? 0;
    seen.set(digest, occurrence + 1);
    return `${occurrence}:${digest}`;
  });
}
