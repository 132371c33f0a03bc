// Helpers shared by this package's tests (not exported from the package).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeCode2_1_330ReferenceDirectory } from '@muster/test-utils';

/** The keys of an object and of every nested object, in order, as dotted paths. */
export function keyShape(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => [
    `${prefix}${key}`,
    ...keyShape(item, `${prefix}${key}.`),
  ]);
}

/** A reference inbox entry (written by Claude Code 2.1.45, or accepted by it). */
export function readReference(name: string): {
  envelope: Record<string, unknown>;
  payload: Record<string, unknown>;
} {
  const file = fileURLToPath(new URL(`./test-fixtures/reference/${name}.json`, import.meta.url));
  const envelope = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  return { envelope, payload: JSON.parse(envelope.text as string) as Record<string, unknown> };
}

/** A Claude Code 2.1.330 inbox entry from the repository's fixtures (`protocol/{name}.json`). */
export function readReference2_1_330(name: string): {
  envelope: Record<string, unknown>;
  payload: Record<string, unknown>;
} {
  const file = path.join(claudeCode2_1_330ReferenceDirectory(), 'protocol', `${name}.json`);
  const envelope = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  return { envelope, payload: JSON.parse(envelope.text as string) as Record<string, unknown> };
}

/** Envelope keys and payload keys of an entry, for comparing with a reference entry. */
export function entryShape(envelope: Record<string, unknown>): {
  envelope: string[];
  payload: string[];
} {
  return {
    envelope: Object.keys(envelope),
    payload: keyShape(JSON.parse(envelope.text as string)).filter(
      // Tool inputs are the caller's; their keys are not part of the message format.
      (key) => !/^(input|response\.updated_input)\./.test(key),
    ),
  };
}
