import { createHash } from 'node:crypto';
import { ProvenanceError } from './provenance-error.js';
import { signedBytes, signedFieldsProblem, type SignedEntryFields } from './signed-fields.js';

/**
 * The `msg_id`s this process wrote. Claude Code keeps one in memory so an in-process
 * teammate (same process as its lead) can tell its lead's entries from ones another
 * program wrote under the lead's name. Never persisted: a ledger on disk could be edited.
 */
export interface MessageLedger {
  /**
   * Remembers that this process wrote the entry with `msgId`. Pass the entry too and the
   * ledger also remembers a digest of its signed fields (`from`, `timestamp`, `text`,
   * `summary`, `color`, `from_plugin`), so a copy with the same `msg_id` but other content
   * does not match. Pass the recipient too (the inbox it was written to) and a copy of the
   * entry in another member's inbox does not match for that member.
   */
  record(msgId: string, entry?: SignedEntryFields, recipient?: string): void;
  /** True when this process recorded `msgId`. */
  has(msgId: string): boolean;
  /**
   * True when this process wrote this entry: its `msg_id` is recorded and, when the content
   * was recorded too, its signed fields are the ones written; and, when both the record and
   * the caller name a recipient, the entry was written to that recipient's inbox.
   */
  matches(entry: unknown, recipient?: string): boolean;
}

function contentDigest(entry: SignedEntryFields): string {
  return createHash('sha256').update(signedBytes(entry)).digest('hex');
}

/** Creates an empty in-memory ledger. Give the same one to the mailbox and the verifier. */
export function createMessageLedger(): MessageLedger {
  // msg_id -> digest of the signed fields (null when only the id was recorded) and the
  // inbox it was written to (undefined when not given).
  const written = new Map<string, { digest: string | null; recipient: string | undefined }>();
  return Object.freeze({
    record(msgId: string, entry?: SignedEntryFields, recipient?: string) {
      if (typeof msgId !== 'string' || msgId === '') {
        throw new ProvenanceError({
          code: 'INVALID_INPUT',
          message: `MessageLedger.record needs the entry's msg_id (a non-empty string), got ${JSON.stringify(msgId)}.`,
        });
      }
      if (entry !== undefined && signedFieldsProblem(entry) !== undefined) {
        throw new ProvenanceError({
          code: 'INVALID_INPUT',
          message: `MessageLedger.record: the entry ${msgId} cannot be recorded: ${signedFieldsProblem(entry)}. Pass the entry exactly as it was written.`,
        });
      }
      if (entry !== undefined && entry.msg_id !== msgId) {
        throw new ProvenanceError({
          code: 'INVALID_INPUT',
          message: `MessageLedger.record: the entry's msg_id ${JSON.stringify(entry.msg_id)} is not ${JSON.stringify(msgId)}; pass the entry that was written.`,
        });
      }
      if (recipient !== undefined && (typeof recipient !== 'string' || recipient === '')) {
        throw new ProvenanceError({
          code: 'INVALID_INPUT',
          message: `MessageLedger.record: the recipient of ${msgId} must be a member name, got ${JSON.stringify(recipient)}.`,
        });
      }
      written.set(msgId, {
        digest: entry === undefined ? null : contentDigest(entry),
        recipient,
      });
    },
    has(msgId: string) {
      return typeof msgId === 'string' && written.has(msgId);
    },
    matches(entry: unknown, recipient?: string) {
      if (entry === null || typeof entry !== 'object') return false;
      const msgId = (entry as { msg_id?: unknown }).msg_id;
      if (typeof msgId !== 'string') return false;
      const record = written.get(msgId);
      if (record === undefined) return false;
      // Written to another member's inbox: a copy, not this reader's entry.
      if (
        record.recipient !== undefined &&
        recipient !== undefined &&
        record.recipient !== recipient
      )
        return false;
      const digest = record.digest;
      if (digest === null) return true;
      return (
        signedFieldsProblem(entry) === undefined &&
        digest === contentDigest(entry as SignedEntryFields)
      );
    },
  });
}
