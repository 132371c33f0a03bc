// The secret that proves a hello on the lead link comes from the member the lead started: made
// by the backend at spawn (32 random bytes), handed to that member alone in its environment
// (MUSTER_MEMBER_SECRET), and checked by the lead link in constant time. Without it any process
// that inherited MUSTER_AGENT_ID (a member's own Bash command) could claim the member's ready.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Bytes of randomness in a member secret. */
const SECRET_BYTES = 32;

/** Longest secret a hello may carry (a longer one is refused before it is compared). */
export const MAXIMUM_SECRET_LENGTH = 256;

/** A new member secret: 32 random bytes, base64url (43 characters). */
export function createMemberSecret(): string {
  return randomBytes(SECRET_BYTES).toString('base64url');
}

/**
 * The form a secret is kept in by the lead link: its SHA-256 digest, so the link never holds
 * the secret itself and every comparison is between two 32-byte values.
 */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Whether `given` is the secret whose digest is `expected`, compared in constant time. */
export function secretMatches(expected: Buffer, given: string): boolean {
  return timingSafeEqual(expected, secretDigest(given));
}
