import { createPublicKey, type KeyObject } from 'node:crypto';
import { ProvenanceError } from './provenance-error.js';

/**
 * The 12 bytes every DER-encoded Ed25519 SubjectPublicKeyInfo starts with (SEQUENCE,
 * AlgorithmIdentifier 1.3.101.112, BIT STRING of 33 bytes); the raw 32-byte key follows.
 */
export const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Length in bytes of a DER Ed25519 SPKI: the prefix plus the 32-byte public key. */
const SPKI_LENGTH = ED25519_SPKI_PREFIX.length + 32;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A parsed `--lead-verify-key`: when the key was made and the public key itself. */
export interface ParsedVerifyKey {
  /** Milliseconds since the epoch when the lead made the key pair (the part before the dot). */
  createdAt: number;
  /** The Ed25519 public key, ready for `crypto.verify`. */
  publicKey: KeyObject;
  /** The key exactly as given. */
  text: string;
}

function refuse(text: unknown, problem: string): never {
  const shown = typeof text === 'string' ? JSON.stringify(text.slice(0, 120)) : typeof text;
  throw new ProvenanceError({
    code: 'INVALID_VERIFY_KEY',
    message:
      `The lead verify key ${shown} ${problem}. A verify key is "<epochMs>.<base64url DER SPKI>", ` +
      'as Claude Code passes it with --lead-verify-key (the part after the dot starts with ' +
      '"MCowBQYDK2VwAyEA"); copy it again from the teammate\'s command line or createLeadKey().verifyKey.',
    details: { verifyKey: typeof text === 'string' ? text : undefined },
  });
}

/**
 * Reads a lead verify key, `<epochMs>.<base64url DER SPKI>` (Claude Code 2.1.330's
 * `--lead-verify-key`). Throws `ProvenanceError` `INVALID_VERIFY_KEY` saying which part is
 * wrong: no dot, a time that is not a whole number of milliseconds, text that is not
 * unpadded base64url, or bytes that are not a 44-byte Ed25519 SPKI.
 */
export function parseVerifyKey(text: string): ParsedVerifyKey {
  if (typeof text !== 'string') refuse(text, 'is not a string');
  const dot = text.indexOf('.');
  if (dot < 0) refuse(text, 'has no "." between the creation time and the key');
  const time = text.slice(0, dot);
  const encoded = text.slice(dot + 1);
  if (!/^\d{1,16}$/.test(time) || !Number.isSafeInteger(Number(time))) {
    refuse(text, `starts with ${JSON.stringify(time)}, not a creation time in epoch milliseconds`);
  }
  if (!BASE64URL.test(encoded)) {
    refuse(text, 'has a key part that is not unpadded base64url (A-Z, a-z, 0-9, "-", "_")');
  }
  const der = Buffer.from(encoded, 'base64url');
  if (der.length !== SPKI_LENGTH || der.toString('base64url') !== encoded) {
    refuse(
      text,
      `has a key part of ${der.length} bytes, not the ${SPKI_LENGTH} of an Ed25519 SPKI`,
    );
  }
  if (!der.subarray(0, ED25519_SPKI_PREFIX.length).equals(ED25519_SPKI_PREFIX)) {
    refuse(text, 'holds a public key that is not Ed25519');
  }
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch (error) {
    refuse(text, `holds bytes Node cannot read as a public key (${(error as Error).message})`);
  }
  return { createdAt: Number(time), publicKey, text };
}

/** Formats a public key as a verify key: `<createdAt>.<base64url DER SPKI>`. */
export function formatVerifyKey(createdAt: number, publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return `${createdAt}.${der.toString('base64url')}`;
}
