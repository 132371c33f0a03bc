import { createHash } from 'node:crypto';
import {
  formatJsonFile,
  InboxMessageSchema,
  InboxSchema,
  MAXIMUM_MESSAGE_TEXT_BYTES,
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
 * read` — and checks it against the protocol schema (`INVALID_MESSAGE` otherwise) and the size
 * limit, `MAXIMUM_MESSAGE_TEXT_BYTES` of UTF-8 text (`MESSAGE_TOO_LARGE` otherwise).
 */
export function buildInboxMessage(input: InboxMessageInput): InboxMessage {
  const sizeBytes = typeof input.text === 'string' ? Buffer.byteLength(input.text, 'utf8') : 0;
  if (sizeBytes > MAXIMUM_MESSAGE_TEXT_BYTES) {
    throw new MailboxError({
      code: 'MESSAGE_TOO_LARGE',
      message:
        `The message from ${input.from} is ${sizeBytes} bytes (${formatKibibytes(sizeBytes)}); ` +
        `the limit is ${MAXIMUM_MESSAGE_TEXT_BYTES} bytes (${formatKibibytes(MAXIMUM_MESSAGE_TEXT_BYTES)}) ` +
        'of UTF-8 text. Nothing was sent. Shorten it, or put the content in a file and send its path.',
      details: { from: input.from, sizeBytes, limitBytes: MAXIMUM_MESSAGE_TEXT_BYTES },
    });
  }
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

function formatKibibytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
}

/**
 * Parses an inbox file's text. Unknown fields stay in place (the parsed objects are the
 * file's own), so {@link serializeInbox} writes an untouched inbox back byte for byte.
 * Throws the protocol's `INVALID_JSON` / `SCHEMA_MISMATCH` error when it does not parse.
 */
export function parseInboxText(text: string, file: string): InboxMessage[] {
  const whole = safeParseJsonFile(text, InboxSchema, file);
  if (whole.success) return whole.value;
  // Valid JSON, but not every entry matches: if it is still an array, keep it. The entries
  // that do not match stay in the array untouched (a rewrite writes them back as they are)
  // and are skipped for delivery; see isInvalidEntry and entryProblems.
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch {
    throw whole.error;
  }
  if (!Array.isArray(entries)) throw whole.error;
  entries.forEach((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null) return; // Recognised by its type.
    const result = safeValidate(entry, InboxMessageSchema, `${file} entry ${index}`);
    if (!result.success) invalidEntries.set(entry, result.error.message);
  });
  return entries as InboxMessage[];
}

// Entries that did not match the schema, with the reason, keyed by identity. A non-object
// entry (a number, a string, null) is recognised by its type instead (see isInvalidEntry).
const invalidEntries = new WeakMap<object, string>();

/** True for an inbox entry that does not match the schema (kept in the file, never delivered). */
export function isInvalidEntry(entry: unknown): boolean {
  return typeof entry !== 'object' || entry === null || invalidEntries.has(entry);
}

/** What is wrong with each entry that does not match the schema, by index. */
export function entryProblems(
  messages: readonly unknown[],
): Array<{ index: number; problem: string }> {
  return messages.flatMap((entry, index) => {
    if (!isInvalidEntry(entry)) return [];
    const problem =
      typeof entry === 'object' && entry !== null
        ? (invalidEntries.get(entry) ?? 'does not match the schema')
        : `entry ${index} is ${JSON.stringify(entry)}, not a message object`;
    return [{ index, problem }];
  });
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
  if (isInvalidEntry(message)) {
    return createHash('sha1')
      .update(`invalid\u0000${JSON.stringify(message)}`)
      .digest('hex');
  }
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
    if (isInvalidEntry(message) || message.read) return undefined;
    const digest = messageDigest(message);
    const occurrence = seen.get(digest) ?? 0;
    seen.set(digest, occurrence + 1);
    return `${occurrence}:${digest}`;
  });
}
