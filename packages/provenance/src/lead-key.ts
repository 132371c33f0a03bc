import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { LEAD_SIGNATURE_PATTERN } from '@muster/protocol';
import { ProvenanceError } from './provenance-error.js';
import { signedBytes, signedFieldsProblem, type SignedEntryFields } from './signed-fields.js';
import { formatVerifyKey, parseVerifyKey, type ParsedVerifyKey } from './verify-key.js';

/** An entry that can be signed: the signed fields plus whatever else it carries. */
export type SignableEntry = SignedEntryFields & Record<string, unknown>;

/**
 * One teammate's lead key. The private half lives only inside `sign`'s closure: it is
 * never exported, serialized, logged or written, and is gone when the process ends.
 * `JSON.stringify` of a LeadKey shows `verifyKey` and `createdAt` only.
 */
export interface LeadKey {
  /** `<createdAt>.<base64url DER SPKI>`: what the teammate is given (`--lead-verify-key`). */
  readonly verifyKey: string;
  /** Milliseconds since the epoch when the pair was made. */
  readonly createdAt: number;
  /** Signs an entry's signed fields and returns its `lead_sig` (86 base64url characters). */
  sign(entry: SignedEntryFields): string;
}

/** Options for `createLeadKey`. */
export interface CreateLeadKeyOptions {
  /** The clock, for tests: milliseconds since the epoch. Defaults to `Date.now`. */
  now?: () => number;
}

function requireSignable(entry: unknown): asserts entry is SignedEntryFields {
  const problem = signedFieldsProblem(entry);
  if (problem !== undefined) {
    throw new ProvenanceError({
      code: 'INVALID_ENTRY',
      message:
        `Cannot sign this inbox entry: ${problem}. A signed entry needs string msg_id, from, ` +
        'timestamp and text, and summary, color and from_plugin absent, null or strings; ' +
        'build the entry completely (with its fresh msg_id) before signing it.',
    });
  }
}

/**
 * Makes a fresh Ed25519 key pair for one teammate, as Claude Code 2.1.330's lead does for
 * each pane teammate. Give `verifyKey` to the teammate (it is public); sign every entry
 * written to that teammate with `sign` or `signEntry`.
 */
export function createLeadKey(options: CreateLeadKeyOptions = {}): LeadKey {
  const now = options.now ?? Date.now;
  if (typeof now !== 'function') {
    throw new ProvenanceError({
      code: 'INVALID_OPTIONS',
      message: 'createLeadKey: `now` must be a function returning epoch milliseconds.',
    });
  }
  const createdAt = now();
  if (!Number.isSafeInteger(createdAt) || createdAt < 0) {
    throw new ProvenanceError({
      code: 'INVALID_OPTIONS',
      message: `createLeadKey: now() returned ${String(createdAt)}, not whole epoch milliseconds.`,
    });
  }
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const verifyKey = formatVerifyKey(createdAt, publicKey);
  const key: LeadKey = {
    verifyKey,
    createdAt,
    sign(entry) {
      requireSignable(entry);
      return sign(null, signedBytes(entry), privateKey).toString('base64url');
    },
  };
  return Object.freeze(key);
}

/**
 * Returns a copy of `entry` with `lead_sig` set to `key`'s signature, as the last key (the
 * order Claude Code writes). A `lead_sig` the entry already had is replaced.
 */
export function signEntry<Entry extends SignableEntry>(
  key: LeadKey,
  entry: Entry,
): Entry & { lead_sig: string } {
  const signature = key.sign(entry);
  const { lead_sig: _previous, ...rest } = entry;
  return { ...rest, lead_sig: signature } as Entry & { lead_sig: string };
}

/**
 * True when `entry.lead_sig` is a valid signature of the entry's signed fields by the key
 * in `verifyKey` (a verify-key string or `parseVerifyKey`'s result). False for an entry
 * without a well-formed `lead_sig` or signed fields. Throws `ProvenanceError`
 * `INVALID_VERIFY_KEY` when the verify key itself is malformed.
 */
export function verifyLeadSignature(verifyKey: string | ParsedVerifyKey, entry: unknown): boolean {
  const parsed = typeof verifyKey === 'string' ? parseVerifyKey(verifyKey) : verifyKey;
  if (signedFieldsProblem(entry) !== undefined) return false;
  const signature = (entry as { lead_sig?: unknown }).lead_sig;
  if (typeof signature !== 'string' || !LEAD_SIGNATURE_PATTERN.test(signature)) return false;
  const signatureBytes = Buffer.from(signature, 'base64url');
  // Only the canonical spelling: the last character's unused bits must be zero.
  if (signatureBytes.toString('base64url') !== signature) return false;
  return verify(null, signedBytes(entry as SignedEntryFields), parsed.publicKey, signatureBytes);
}
