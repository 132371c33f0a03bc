import { createHash } from 'node:crypto';
import { ProvenanceError } from './provenance-error.js';
import { inputDigestPayload } from './signature-payload.js';

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
  if (input === undefined || typeof input === 'function' || typeof input === 'bigint') {
    throw new ProvenanceError({
      code: 'INVALID_INPUT',
      message: `inputDigest: the input of ${toolName} must be JSON data (the request's input object), got ${typeof input}.`,
    });
  }
  return sha256Hex(inputDigestPayload(toolName, input));
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
