import { ProtocolError } from './errors.js';

// The exact byte strings Claude Code 2.1.330 signs and digests. Pure: the hashing and the
// Ed25519 signing live in @muster/provenance, which feeds these strings to node:crypto.

/** The domain-separation tag that opens every signed lead entry. */
export const LEAD_SIGNATURE_CONTEXT = 'claude-team-lead-entry-v1';

/** The fields of an inbox entry a `lead_sig` covers. */
export interface LeadSignedFields {
  /** The entry's id (a UUID). */
  msg_id: string;
  /** Sender's name. */
  from: string;
  /** ISO-8601 timestamp. */
  timestamp: string;
  /** The entry's text. */
  text: string;
  /** Preview, when the entry has one. */
  summary?: string | undefined;
  /** Sender's color, when the entry has one. */
  color?: string | undefined;
  /** Plugin the entry came from, when it has one. */
  from_plugin?: string | undefined;
}

/** Copies `value` with object keys sorted, recursively (arrays keep their order). */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, sortKeys(record[key])]),
    );
  }
  return value;
}

/**
 * `JSON.stringify(value)` with every object's keys sorted, recursively: the canonical form
 * Claude Code 2.1.330 digests tool inputs in. Throws `INVALID_INPUT` for a value that has no
 * JSON text (`undefined`, a function, a symbol) or cannot be encoded (a bigint, a cycle).
 */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(sortKeys(value));
  } catch (error) {
    throw new ProtocolError({
      code: 'INVALID_INPUT',
      message: `canonicalJson: the value cannot be encoded as JSON (${(error as Error).message}); pass plain JSON data (objects, arrays, strings, finite numbers, booleans, null).`,
      cause: error,
    });
  }
  if (text === undefined) {
    throw new ProtocolError({
      code: 'INVALID_INPUT',
      message: `canonicalJson: a ${typeof value} has no JSON text; pass plain JSON data.`,
    });
  }
  return text;
}

/** Throws `INVALID_INPUT` unless `value` is a string (optionally: or absent). */
function checkString(value: unknown, field: string, optional: boolean): void {
  if (typeof value === 'string') return;
  if (optional && value === undefined) return;
  throw new ProtocolError({
    code: 'INVALID_INPUT',
    message: `leadSignaturePayload: entry.${field} must be a string${optional ? ' when present' : ''}, got ${value === null ? 'null' : typeof value}. Pass the inbox entry as written (with its msg_id).`,
    details: { field },
  });
}

/**
 * The UTF-8 text a `lead_sig` signs, for an inbox entry: `JSON.stringify([context, msg_id,
 * from, timestamp, text, summary ?? null, color ?? null, from_plugin ?? null])`. `read`,
 * `msgV`, `type` and `lead_sig` are not covered. Throws `INVALID_INPUT` when a covered field
 * has the wrong type (a v1 entry without `msg_id` cannot be signed).
 */
export function leadSignaturePayload(entry: LeadSignedFields): string {
  const record = entry as unknown as Record<string, unknown>;
  if (typeof entry !== 'object' || entry === null) {
    throw new ProtocolError({
      code: 'INVALID_INPUT',
      message: 'leadSignaturePayload: expected an inbox entry object.',
    });
  }
  for (const field of ['msg_id', 'from', 'timestamp', 'text'] as const) {
    checkString(record[field], field, false);
  }
  for (const field of ['summary', 'color', 'from_plugin'] as const) {
    checkString(record[field], field, true);
  }
  return JSON.stringify([
    LEAD_SIGNATURE_CONTEXT,
    entry.msg_id,
    entry.from,
    entry.timestamp,
    entry.text,
    entry.summary ?? null,
    entry.color ?? null,
    entry.from_plugin ?? null,
  ]);
}

/**
 * The text whose hex SHA-256 is `approved_request.input_digest` in a v2
 * `permission_response`: `toolName + "\0" + canonicalJson(input)`, where `input` is the
 * permission request's input. Throws `INVALID_INPUT` for an empty tool name or an input that
 * is not a JSON object.
 */
export function inputDigestPayload(toolName: string, input: unknown): string {
  if (typeof toolName !== 'string' || toolName.length === 0) {
    throw new ProtocolError({
      code: 'INVALID_INPUT',
      message:
        'inputDigestPayload: toolName must be the non-empty tool name of the permission request (e.g. "Write").',
    });
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ProtocolError({
      code: 'INVALID_INPUT',
      message: `inputDigestPayload: input must be the tool call's input object, got ${input === null ? 'null' : Array.isArray(input) ? 'an array' : typeof input}.`,
    });
  }
  return `${toolName}\0${canonicalJson(input)}`;
}
