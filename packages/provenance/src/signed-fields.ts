import { leadSignaturePayload, type LeadSignedFields } from '@muster/protocol';

/** The entry fields a `lead_sig` covers (`LeadSignedFields` of `@muster/protocol`). */
export type SignedEntryFields = LeadSignedFields;

/**
 * Why `entry` cannot be signed or checked, or undefined when it can: msg_id, from and
 * timestamp must be non-empty strings, text a string, and summary, color and from_plugin
 * absent, null or strings.
 */
export function signedFieldsProblem(entry: unknown): string | undefined {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    return 'it is not an object';
  }
  const record = entry as Record<string, unknown>;
  for (const field of ['msg_id', 'from', 'timestamp'] as const) {
    if (typeof record[field] !== 'string' || record[field] === '') {
      return `${field} is ${JSON.stringify(record[field]) ?? 'missing'}, not a non-empty string`;
    }
  }
  if (typeof record.text !== 'string') return 'text is not a string';
  for (const field of ['summary', 'color', 'from_plugin'] as const) {
    if (record[field] != null && typeof record[field] !== 'string') {
      return `${field} is a ${typeof record[field]}, not a string`;
    }
  }
  return undefined;
}

/**
 * The UTF-8 bytes a `lead_sig` signs, for an entry `signedFieldsProblem` accepted. A `null`
 * summary, color or from_plugin is signed as absent (`?? null` makes them the same).
 */
export function signedBytes(entry: SignedEntryFields): Buffer {
  const record = entry as unknown as Record<string, unknown>;
  const optional = (value: unknown) => (value === null ? undefined : (value as string));
  const fields: SignedEntryFields = {
    msg_id: entry.msg_id,
    from: entry.from,
    timestamp: entry.timestamp,
    text: entry.text,
    summary: optional(record.summary),
    color: optional(record.color),
    from_plugin: optional(record.from_plugin),
  };
  return Buffer.from(leadSignaturePayload(fields), 'utf8');
}
