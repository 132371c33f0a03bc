// Builds the published JSON Schemas (schemas/v1) from the zod schemas, in memory. Used by
// generate-schemas.ts (writes them) and by the drift test (compares them with the files).
import { z } from 'zod';
import {
  CLAUDE_CODE_COMPATIBLE_VERSION,
  FILE_TYPE_NAMES,
  PROTOCOL_MESSAGE_SCHEMAS,
  PROTOCOL_MESSAGE_TYPES,
  PROTOCOL_VERSION,
  SCHEMA_VERSION_FOLDER,
  TOOL_INPUT_SCHEMAS,
  TOOL_NAMES,
  WIRE_SCHEMAS,
  WIRE_TYPE_EXTRA_RULES,
  WIRE_TYPE_NAMES,
  type WireTypeName,
} from '../src/index.js';

/** Base of every schema's `$id`. */
export const SCHEMA_BASE_URL = `https://muster.dev/schemas/${SCHEMA_VERSION_FOLDER}/`;

type JsonSchema = Record<string, unknown>;

/** The `$id` of a wire type's schema. */
export function schemaId(typeName: WireTypeName): string {
  return `${SCHEMA_BASE_URL}${typeName}.schema.json`;
}

/** What kind of thing a wire type is, for index.json. */
function kindOf(typeName: WireTypeName): string {
  if ((FILE_TYPE_NAMES as readonly string[]).includes(typeName)) return 'file';
  if (typeName === 'ProtocolMessage') return 'message-union';
  if (Object.values(PROTOCOL_MESSAGE_SCHEMAS).includes(WIRE_SCHEMAS[typeName] as never)) {
    return 'message';
  }
  if (Object.values(TOOL_INPUT_SCHEMAS).includes(WIRE_SCHEMAS[typeName] as never)) {
    return 'tool-input';
  }
  return 'enum';
}

/** Replaces every `$ref` equal to `from` with `to`, in place. */
function rewriteReferences(node: unknown, from: string, to: string): void {
  if (Array.isArray(node)) {
    for (const item of node) rewriteReferences(item, from, to);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const record = node as JsonSchema;
  if (record.$ref === from) record.$ref = to;
  for (const value of Object.values(record)) rewriteReferences(value, from, to);
}

/** Collects every `$ref` value in a schema. */
function collectReferences(node: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) collectReferences(item, into);
  } else if (node !== null && typeof node === 'object') {
    const record = node as JsonSchema;
    if (typeof record.$ref === 'string') into.add(record.$ref);
    for (const value of Object.values(record)) collectReferences(value, into);
  }
  return into;
}

/**
 * One wire type's JSON Schema: zod's draft 2020-12 output (input side), with the type's
 * own definition hoisted to the root, and every other named schema kept under `$defs` so
 * the file is self-contained.
 */
export function buildSchema(typeName: WireTypeName): JsonSchema {
  const generated = z.toJSONSchema(WIRE_SCHEMAS[typeName], {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'throw',
  }) as JsonSchema;
  const definitions = { ...((generated.$defs as Record<string, JsonSchema> | undefined) ?? {}) };
  const ownReference = `#/$defs/${typeName}`;
  if (generated.$ref !== ownReference || definitions[typeName] === undefined) {
    throw new Error(
      `The zod schema for ${typeName} must carry .meta({ id: '${typeName}' }) (zod emitted ${JSON.stringify(generated.$ref)}).`,
    );
  }
  const body: JsonSchema = { ...definitions[typeName] };
  delete definitions[typeName];
  rewriteReferences(body, ownReference, '#');
  for (const definition of Object.values(definitions)) {
    rewriteReferences(definition, ownReference, '#');
  }
  const description = body.description;
  if (typeof description !== 'string' || description.length === 0) {
    throw new Error(`The zod schema for ${typeName} needs a description in its .meta().`);
  }
  delete body.description;
  delete body.title;

  const schema: JsonSchema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: schemaId(typeName),
    title: typeName,
    description,
    ...body,
  };
  const names = Object.keys(definitions).sort();
  if (names.length > 0) {
    schema.$defs = Object.fromEntries(names.map((name) => [name, definitions[name]]));
  }
  for (const reference of collectReferences(schema)) {
    const name = reference.startsWith('#/$defs/') ? reference.slice('#/$defs/'.length) : undefined;
    if (reference !== '#' && (name === undefined || !names.includes(name))) {
      throw new Error(
        `${typeName}: unresolved $ref ${reference}; every schema must be self-contained.`,
      );
    }
  }
  return schema;
}

/** The content of schemas/v1/index.json. */
export function buildIndex(): JsonSchema {
  const toolByType = new Map(
    Object.entries(TOOL_INPUT_SCHEMAS).map(([tool, schema]) => [schema as unknown, tool]),
  );
  const messageTypeBySchema = new Map(
    Object.entries(PROTOCOL_MESSAGE_SCHEMAS).map(([type, schema]) => [schema as unknown, type]),
  );
  return {
    protocolVersion: PROTOCOL_VERSION,
    schemaVersion: SCHEMA_VERSION_FOLDER,
    claudeCodeCompatibleVersion: CLAUDE_CODE_COMPATIBLE_VERSION,
    baseUrl: SCHEMA_BASE_URL,
    types: WIRE_TYPE_NAMES.map((typeName) => {
      const schema = WIRE_SCHEMAS[typeName];
      const entry: JsonSchema = {
        name: typeName,
        kind: kindOf(typeName),
        file: `${typeName}.schema.json`,
        $id: schemaId(typeName),
      };
      const messageType = messageTypeBySchema.get(schema);
      if (messageType !== undefined) entry.messageType = messageType;
      const toolName = toolByType.get(schema);
      if (toolName !== undefined) entry.toolName = toolName;
      const rules = WIRE_TYPE_EXTRA_RULES[typeName];
      if (rules !== undefined) entry.extraRules = [...rules];
      return entry;
    }),
    messageTypes: [...PROTOCOL_MESSAGE_TYPES],
    toolNames: [...TOOL_NAMES],
  };
}

/** Deterministic file text: 2-space JSON and a trailing newline. */
export function formatSchemaFile(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Every generated file, keyed by its path relative to the repository's `schemas/` folder. */
export function generateSchemaFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const typeName of WIRE_TYPE_NAMES) {
    files.set(
      `${SCHEMA_VERSION_FOLDER}/${typeName}.schema.json`,
      formatSchemaFile(buildSchema(typeName)),
    );
  }
  files.set(`${SCHEMA_VERSION_FOLDER}/index.json`, formatSchemaFile(buildIndex()));
  return files;
}
