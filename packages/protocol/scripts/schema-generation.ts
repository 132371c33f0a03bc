// Builds the published JSON Schemas (schemas/v1 and schemas/v2) from the zod schemas, in
// memory. Used by generate-schemas.ts (writes them) and by the drift test (compares them
// with the files).
import { z } from 'zod';
import {
  CLAUDE_CODE_COMPATIBLE_VERSION,
  CLAUDE_CODE_COMPATIBLE_VERSION_V2,
  FILE_TYPE_NAMES,
  FILE_TYPE_NAMES_V2,
  PROTOCOL_MESSAGE_SCHEMAS_V1,
  PROTOCOL_MESSAGE_SCHEMAS_V2,
  PROTOCOL_MESSAGE_TYPES,
  PROTOCOL_VERSION,
  PROTOCOL_VERSION_V2,
  SCHEMA_VERSION_FOLDER,
  SCHEMA_VERSION_FOLDER_V2,
  TOOL_INPUT_SCHEMAS,
  TOOL_INPUT_SCHEMAS_V2,
  TOOL_NAMES,
  TOOL_NAMES_V2,
  WIRE_SCHEMAS,
  WIRE_SCHEMAS_V2,
  WIRE_TYPE_EXTRA_RULES,
  WIRE_TYPE_EXTRA_RULES_V2,
} from '../src/index.js';

/** One published schema folder: which zod schemas it holds and what its index says. */
export interface SchemaSet {
  /** Folder under `schemas/` (`v1`, `v2`). */
  folder: string;
  protocolVersion: string;
  claudeCodeCompatibleVersion: string;
  /** Every wire type by name, in publishing order. */
  schemas: Readonly<Record<string, z.ZodType>>;
  fileTypeNames: readonly string[];
  /** Message schemas by `type`. */
  messageSchemas: Readonly<Record<string, z.ZodType>>;
  /** Tool input schemas by tool name. */
  toolInputSchemas: Readonly<Record<string, z.ZodType>>;
  extraRules: Readonly<Partial<Record<string, readonly string[]>>>;
  messageTypes: readonly string[];
  toolNames: readonly string[];
}

/** schemas/v1: Claude Code 2.1.45's dialect, frozen. */
export const SCHEMA_SET_V1: SchemaSet = {
  folder: SCHEMA_VERSION_FOLDER,
  protocolVersion: PROTOCOL_VERSION,
  claudeCodeCompatibleVersion: CLAUDE_CODE_COMPATIBLE_VERSION,
  schemas: WIRE_SCHEMAS,
  fileTypeNames: FILE_TYPE_NAMES,
  messageSchemas: PROTOCOL_MESSAGE_SCHEMAS_V1,
  toolInputSchemas: TOOL_INPUT_SCHEMAS,
  extraRules: WIRE_TYPE_EXTRA_RULES,
  messageTypes: PROTOCOL_MESSAGE_TYPES,
  toolNames: TOOL_NAMES,
};

/** schemas/v2: Claude Code 2.1.330's dialect, also spoken by muster's own teams. */
export const SCHEMA_SET_V2: SchemaSet = {
  folder: SCHEMA_VERSION_FOLDER_V2,
  protocolVersion: PROTOCOL_VERSION_V2,
  claudeCodeCompatibleVersion: CLAUDE_CODE_COMPATIBLE_VERSION_V2,
  schemas: WIRE_SCHEMAS_V2,
  fileTypeNames: FILE_TYPE_NAMES_V2,
  messageSchemas: PROTOCOL_MESSAGE_SCHEMAS_V2,
  toolInputSchemas: TOOL_INPUT_SCHEMAS_V2,
  extraRules: WIRE_TYPE_EXTRA_RULES_V2,
  messageTypes: PROTOCOL_MESSAGE_TYPES,
  toolNames: TOOL_NAMES_V2,
};

/** Every published schema folder, oldest first. */
export const SCHEMA_SETS: readonly SchemaSet[] = [SCHEMA_SET_V1, SCHEMA_SET_V2];

/** Base of every schema's `$id` in a folder. */
export function schemaBaseUrl(set: SchemaSet = SCHEMA_SET_V1): string {
  return `https://muster.dev/schemas/${set.folder}/`;
}

/** Base of every v1 schema's `$id`. */
export const SCHEMA_BASE_URL = schemaBaseUrl(SCHEMA_SET_V1);

type JsonSchema = Record<string, unknown>;

/** The `$id` of a wire type's schema. */
export function schemaId(typeName: string, set: SchemaSet = SCHEMA_SET_V1): string {
  return `${schemaBaseUrl(set)}${typeName}.schema.json`;
}

/** What kind of thing a wire type is, for index.json. */
function kindOf(typeName: string, set: SchemaSet): string {
  if (set.fileTypeNames.includes(typeName)) return 'file';
  if (typeName === 'ProtocolMessage') return 'message-union';
  if (Object.values(set.messageSchemas).includes(set.schemas[typeName]!)) {
    return 'message';
  }
  if (Object.values(set.toolInputSchemas).includes(set.schemas[typeName]!)) {
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
export function buildSchema(typeName: string, set: SchemaSet = SCHEMA_SET_V1): JsonSchema {
  const zodSchema = set.schemas[typeName];
  if (zodSchema === undefined) throw new Error(`${set.folder} has no wire type ${typeName}.`);
  const generated = z.toJSONSchema(zodSchema, {
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
    $id: schemaId(typeName, set),
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

/** The content of schemas/<folder>/index.json. */
export function buildIndex(set: SchemaSet = SCHEMA_SET_V1): JsonSchema {
  const toolByType = new Map(
    Object.entries(set.toolInputSchemas).map(([tool, schema]) => [schema as unknown, tool]),
  );
  const messageTypeBySchema = new Map(
    Object.entries(set.messageSchemas).map(([type, schema]) => [schema as unknown, type]),
  );
  return {
    protocolVersion: set.protocolVersion,
    schemaVersion: set.folder,
    claudeCodeCompatibleVersion: set.claudeCodeCompatibleVersion,
    baseUrl: schemaBaseUrl(set),
    types: Object.keys(set.schemas).map((typeName) => {
      const schema = set.schemas[typeName];
      const entry: JsonSchema = {
        name: typeName,
        kind: kindOf(typeName, set),
        file: `${typeName}.schema.json`,
        $id: schemaId(typeName, set),
      };
      const messageType = messageTypeBySchema.get(schema);
      if (messageType !== undefined) entry.messageType = messageType;
      const toolName = toolByType.get(schema);
      if (toolName !== undefined) entry.toolName = toolName;
      const rules = set.extraRules[typeName];
      if (rules !== undefined) entry.extraRules = [...rules];
      return entry;
    }),
    messageTypes: [...set.messageTypes],
    toolNames: [...set.toolNames],
  };
}

/** Deterministic file text: 2-space JSON and a trailing newline. */
export function formatSchemaFile(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Every generated file of one folder (default: v1), keyed by its path relative to the
 * repository's `schemas/` folder.
 */
export function generateSchemaFiles(set: SchemaSet = SCHEMA_SET_V1): Map<string, string> {
  const files = new Map<string, string>();
  for (const typeName of Object.keys(set.schemas)) {
    files.set(
      `${set.folder}/${typeName}.schema.json`,
      formatSchemaFile(buildSchema(typeName, set)),
    );
  }
  files.set(`${set.folder}/index.json`, formatSchemaFile(buildIndex(set)));
  return files;
}
