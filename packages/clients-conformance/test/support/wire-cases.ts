// Which generated type every example and reference file should parse as (each must
// serialize back to itself).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseMessageContent } from '@muster/protocol';
import { referenceDirectory, repositoryRoot } from './clients.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [keyword: string]: unknown };

/** One file to round-trip: the wire type to parse it as, and where it came from. */
export interface WireCase {
  type: string;
  file: string;
  /** `example`, `reference`, `reference-payload` (a protocol message inside an entry's
   * text) or `reference-tool` (an instance built from a Claude Code tool schema). */
  origin: 'example' | 'reference' | 'reference-payload' | 'reference-tool';
}

const schemasDirectory = path.join(repositoryRoot, 'schemas/v1');
const index = JSON.parse(readFileSync(path.join(schemasDirectory, 'index.json'), 'utf8')) as {
  types: Array<{ name: string; kind: string; messageType?: string; toolName?: string }>;
};

function filesIn(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const full = path.join(folder, name);
    return statSync(full).isDirectory() ? filesIn(full) : [full];
  });
}

/** Every valid example under `schemas/examples/{Type}/*.json` (v1; v2's are in `v2/`). */
export function exampleCases(): WireCase[] {
  const examples = path.join(repositoryRoot, 'schemas/examples');
  return readdirSync(examples)
    .filter((type) => type !== 'v2')
    .sort()
    .flatMap((type) =>
      readdirSync(path.join(examples, type))
        .filter((name) => name.endsWith('.json'))
        .sort()
        .map((name) => ({
          type,
          file: path.join(examples, type, name),
          origin: 'example' as const,
        })),
    );
}

/**
 * Every JSON file of the Claude Code reference, typed by where it lives; protocol payloads
 * found in entries' text and an instance of each tool schema are written to `scratch` and
 * added too. `untyped` lists reference files no wire type describes.
 */
export function referenceCases(scratch: string): { cases: WireCase[]; untyped: string[] } {
  const reference = referenceDirectory();
  const cases: WireCase[] = [];
  const untyped: string[] = [];
  const addPayload = (entry: { text: string }, source: string, position: number) => {
    const content = parseMessageContent(entry.text);
    if (content.kind !== 'protocol') return;
    const file = path.join(scratch, `${path.basename(source, '.json')}-${position}.payload.json`);
    writeFileSync(file, entry.text);
    cases.push({ type: 'ProtocolMessage', file, origin: 'reference-payload' });
  };
  for (const file of filesIn(reference)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const relative = path.relative(reference, file);
    const value = JSON.parse(readFileSync(file, 'utf8'));
    if (/(^|\/)teams\/[^/]+\/config\.json$/.test(relative)) {
      cases.push({ type: 'TeamConfig', file, origin: 'reference' });
    } else if (/(^|\/)teams\/[^/]+\/inboxes\/[^/]+\.json$/.test(relative)) {
      cases.push({ type: 'Inbox', file, origin: 'reference' });
      (value as Array<{ text: string }>).forEach((entry, position) =>
        addPayload(entry, file, position),
      );
    } else if (/(^|\/)tasks\/[^/]+\/\d+\.json$/.test(relative)) {
      cases.push({ type: 'Task', file, origin: 'reference' });
    } else if (relative.startsWith('protocol/')) {
      cases.push({ type: 'InboxMessage', file, origin: 'reference' });
      addPayload(value, file, 0);
    } else if (relative.startsWith('tools/')) {
      const toolName = path.basename(file, '.input_schema.json');
      const entry = index.types.find((candidate) => candidate.toolName === toolName);
      if (entry === undefined) {
        untyped.push(relative);
        continue;
      }
      const instance = path.join(scratch, `${toolName}.instance.json`);
      writeFileSync(instance, JSON.stringify(instanceOf(value as Schema)));
      cases.push({ type: entry.name, file: instance, origin: 'reference-tool' });
    } else {
      untyped.push(relative);
    }
  }
  return { cases, untyped };
}

/**
 * An instance of a Claude Code tool schema with every property it offers set (the first
 * branch or enum value, "1" for strings, true, 1, one item per array, one key per map).
 */
export function instanceOf(schema: Schema): Json {
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches !== undefined) return instanceOf(branches[0]!);
  if (Array.isArray(schema.enum)) return schema.enum[0] as Json;
  if ('const' in schema) return schema.const as Json;
  switch (schema.type) {
    case 'string':
      return '1';
    case 'boolean':
      return true;
    case 'number':
    case 'integer':
      return 1;
    case 'array':
      return schema.items ? [instanceOf(schema.items as Schema)] : [];
    case 'object': {
      if (schema.properties === undefined) return { key: '1' };
      const properties = schema.properties as Record<string, Schema>;
      return Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, instanceOf(property)]),
      );
    }
  }
  return null;
}
