import { createHash } from 'node:crypto';
import { ProvenanceError } from './provenance-error.js';
import { inputDigestPayload } from '@muster/protocol';

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * `approved_request.input_digest` of a 2.1.330 `permission_response`: hex SHA-256 of
 * `toolName + "\0" + JSON.stringify(input with object keys sorted, recursively)`, where
 * `input` is the `permission_request`'s. A teammate compares it with the digest of the
 * call it asked about, so an answer cannot approve a different command.
 */
export function inputDigest(toolName: string, input: unknown): string {
  if (typeof toolName !== 'string' || toolName === '') {
    throw new ProvenanceError({
      code: 'INVALID_INPUT',
      message: `inputDigest: the tool name must be a non-empty string, got ${JSON.stringify(toolName)}.`,
    });
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new ProvenanceError({
      code: 'INVALID_INPUT',
      message: `inputDigest: the input of ${toolName} must be the permission request's input object, got ${input === null ? 'null' : Array.isArray(input) ? 'an array' : typeof input}.`,
    });
  }
  let payload: string;
  try {
    payload = inputDigestPayload(toolName, input);
  } catch (error) {
    throw new ProvenanceError({
      code: 'INVALID_INPUT',
      message: `inputDigest: the input of ${toolName} is not JSON data (${(error as Error).message}).`,
      cause: error,
    });
  }
  return sha256Hex(payload);
}

/**
 * `planDigest` of a 2.1.330 `plan_approval_response`: hex SHA-256 of the request's
 * `planContent` as UTF-8, so an approval names the exact plan it approves.
 */
export function planDigest(planContent: string): string {
  if (typeof planContent !== 'string') {
    throw new ProvenanceError({
      code: 'INVALID_INPUT',
      message: `planDigest: planContent must be a string (the plan_approval_request's), got ${typeof planContent}.`,
    });
  }
  return sha256Hex(planContent);
}
