// @muster/provenance: who wrote an inbox entry. Lead keys and lead_sig (Claude Code 2.1.330's
// signature on entries the lead writes to a teammate), message ledgers, digests, and the
// verifier that sorts entries into verified, forged and unverifiable.
export { ProvenanceError } from './provenance-error.js';
export type { ProvenanceErrorCode } from './provenance-error.js';
export { parseVerifyKey } from './verify-key.js';
export type { ParsedVerifyKey } from './verify-key.js';
export { createLeadKey, signEntry, verifyLeadSignature } from './lead-key.js';
export type { CreateLeadKeyOptions, LeadKey, SignableEntry } from './lead-key.js';
export type { SignedEntryFields } from './signed-fields.js';
export { inputDigest, planDigest } from './digests.js';
export { createMessageLedger } from './message-ledger.js';
export type { MessageLedger } from './message-ledger.js';
export { createEntryVerifier, DEFAULT_GRACE_MS } from './entry-verifier.js';
export type {
  EntryCheck,
  EntryVerdict,
  EntryVerifier,
  EntryVerifierOptions,
  LedgerReader,
} from './entry-verifier.js';
export { isLeadControlMessageType, LEAD_CONTROL_MESSAGE_TYPES } from './control-message-types.js';
export type { LeadControlMessageType } from './control-message-types.js';
