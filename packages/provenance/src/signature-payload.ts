// The byte strings that get signed and digested. These follow FORMAT.md's description of
// Claude Code 2.1.330 exactly; they move to @muster/protocol (pure) once it exports them.

/** The domain-separation string that opens every signed payload. */
export const LEAD_SIGNATURE_CONTEXT = 'claude-team-lead-entry-v1';

/** The entry fields a `lead_sig` covers. `read`, `msgV`, `type` and `lead_sig` are not signed. */
export interface SignedEntryFields {
  msg_id: string;
  from: string;
  timestamp: string;
  text: string;
  summary?: string;
  color?: string;
  from_plugin?: string;
}

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

/** `JSON.stringify` with object keys sorted recursively (arrays keep their order). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/**
 * The text whose UTF-8 bytes a lead signs: `JSON.stringify([context, msg_id, from,
 * timestamp, text, summary ?? null, color ?? null, from_plugin ?? null])`.
 */
export function leadSignaturePayload(entry: SignedEntryFields): string {
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

/** The text behind `approved_request.input_digest`: `toolName + "\0" + canonicalJson(input)`. */
export function inputDigestPayload(toolName: string, input: unknown): string {
  return `${toolName}\0${canonicalJson(input)}`;
}
