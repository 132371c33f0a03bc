import { createHash, randomUUID } from 'node:crypto';
import {
  INBOX_MESSAGE_ENVELOPE_TYPE,
  INBOX_MESSAGE_FORMAT_VERSION,
  InboxMessageV2Schema,
  LEAD_SIGNATURE_PATTERN,
  safeValidate,
  type InboxMessage,
} from '@muster/protocol';
import { buildInboxMessage, type InboxMessageInput } from './inbox-format.js';
import { MailboxError } from './mailbox-error.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Signs an entry for one recipient (`lead_sig`), or returns undefined to leave it unsigned. */
export type EntrySigner = (recipient: string, entry: InboxMessage) => string | undefined;

/** Remembers the `msg_id`s this process wrote (a verifier trusts those). */
export interface MessageIdLedger {
  /**
   * Called with every `msg_id`, its entry as it will be written and the recipient whose
   * inbox it goes to, before the write.
   */
  record(messageId: string, entry?: InboxMessage, recipient?: string): void;
}

/**
 * Checks a caller's `messageId`: a UUID, lower case (`INVALID_MESSAGE` otherwise). A fresh
 * random v4 UUID when none is given.
 */
export function checkedMessageId(messageId: string | undefined, what: string): string {
  if (messageId === undefined) return randomUUID();
  if (typeof messageId === 'string' && uuidPattern.test(messageId)) return messageId;
  throw new MailboxError({
    code: 'INVALID_MESSAGE',
    message:
      `The messageId ${JSON.stringify(messageId)} of ${what} is not a lower-case UUID ` +
      '(like crypto.randomUUID() gives). Pass the id a receipt or an error gave you, or none.',
    details: { messageId },
  });
}

/**
 * The id a broadcast uses for one recipient: derived from the broadcast's id and the name
 * (SHA-256, shaped as a v4 UUID), so that every inbox gets its own `msg_id` and a retried
 * broadcast with the same id gets the same ones.
 */
export function recipientMessageId(broadcastId: string, recipient: string): string {
  const bytes = createHash('sha256').update(`${broadcastId}\u0000${recipient}`).digest();
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Builds a Claude Code 2.1.330 entry, keys in its order — `from, text, summary?, timestamp,
 * color?, msgV, msg_id, type, read[, lead_sig]` — with the checks of `buildInboxMessage`
 * (schema, size). `sign` may add `lead_sig` (last); a signature that is not 86 base64url
 * characters is refused (`INVALID_MESSAGE`).
 */
export function buildInboxEntryV2(
  input: InboxMessageInput & { messageId: string },
  sign?: (entry: InboxMessage) => string | undefined,
): InboxMessage {
  const base = buildInboxMessage(input);
  const entry: Record<string, unknown> = { from: base.from, text: base.text };
  if (base.summary !== undefined) entry.summary = base.summary;
  entry.timestamp = base.timestamp;
  if (base.color !== undefined) entry.color = base.color;
  entry.msgV = INBOX_MESSAGE_FORMAT_VERSION;
  entry.msg_id = input.messageId;
  entry.type = INBOX_MESSAGE_ENVELOPE_TYPE;
  entry.read = false;
  const signature = sign?.(entry as InboxMessage);
  if (signature === undefined) return checkedV2(entry, input.from);
  if (typeof signature !== 'string' || !LEAD_SIGNATURE_PATTERN.test(signature)) {
    throw new MailboxError({
      code: 'INVALID_MESSAGE',
      message:
        `signEntry returned ${JSON.stringify(signature)} for the message from ${input.from}, ` +
        'not a lead_sig (86 base64url characters of an Ed25519 signature). Nothing was sent; ' +
        'fix the signer.',
      details: { from: input.from },
    });
  }
  entry.lead_sig = signature;
  return checkedV2(entry, input.from);
}

function checkedV2(entry: Record<string, unknown>, from: string): InboxMessage {
  const result = safeValidate(entry, InboxMessageV2Schema, 'the message');
  if (result.success) return entry as InboxMessage;
  throw new MailboxError({
    code: 'INVALID_MESSAGE',
    message: `${result.error.message} Fix the message and send it again.`,
    cause: result.error,
    details: { from },
  });
}

/**
 * The error of a failed v2 send, with the entry's id in `details.messageId` and a sentence
 * saying that sending again with it is safe.
 */
export function withMessageId(error: unknown, messageId: string): unknown {
  if (!(error instanceof MailboxError)) return error;
  return new MailboxError({
    code: error.code,
    message:
      `${error.message} The entry's msg_id is ${messageId}: sending again with ` +
      `{ messageId: '${messageId}' } never delivers it twice.`,
    cause: error.cause ?? error,
    details: { ...error.details, messageId },
  });
}
