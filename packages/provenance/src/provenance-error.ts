import { MusterError } from '@muster/protocol';

/** Why a provenance call was refused. */
export type ProvenanceErrorCode =
  /** A verify key is not `<epochMs>.<base64url DER SPKI of an Ed25519 public key>`. */
  | 'INVALID_VERIFY_KEY'
  /** An entry to sign lacks a field the signature covers, or has one of the wrong type. */
  | 'INVALID_ENTRY'
  /** An option given to a factory (`createLeadKey`, `createEntryVerifier`) is out of range. */
  | 'INVALID_OPTIONS'
  /** A digest helper got something it cannot digest (not a string, not JSON data). */
  | 'INVALID_INPUT';

/**
 * Errors thrown by `@muster/provenance` for caller mistakes (a malformed verify key, an
 * entry that cannot be signed, bad options). Checking an entry read from disk never throws:
 * `createEntryVerifier().check` answers with a verdict and a reason instead.
 */
export class ProvenanceError extends MusterError<ProvenanceErrorCode> {}
