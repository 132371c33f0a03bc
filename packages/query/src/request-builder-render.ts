// Renders an agent's tools and system prompt into the exact bytes sent on every request. The
// loop calls these ONCE per agent and keeps the (frozen) result, so the tools+system prefix of
// the prompt never changes during the agent's life and the prompt cache keeps hitting (R9).
import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { QueryError } from './query-error.js';
import type { AnyTool } from './tool.js';

/** What a tool name must look like for the Messages API. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

function invalid(message: string): QueryError {
  return new QueryError({ code: 'INVALID_OPTIONS', message });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Freezes a JSON value and everything inside it (in place); returns it. */
export function deepFreeze<Value>(value: Value): Value {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** A JSON copy (plain objects only, key order kept): what the SDK will serialize. */
function jsonCopy<Value>(value: Value, what: string): Value {
  try {
    return JSON.parse(JSON.stringify(value)) as Value;
  } catch (error) {
    throw invalid(
      `${what} cannot be serialized as JSON (${error instanceof Error ? error.message : String(error)}); give plain JSON values`,
    );
  }
}

/**
 * The schema with every local `$ref` (`#/$defs/…`, `#/definitions/…`) replaced by the definition
 * it points to, and `$defs` removed: zod writes schemas that carry a meta `id` as references,
 * while a tool's input schema must be a plain object schema at the top. A cycle is refused.
 */
function inlineDefinitions(
  schema: Record<string, unknown>,
  toolName: string,
): Record<string, unknown> {
  const definitions = {
    ...(isPlainObject(schema.definitions) ? schema.definitions : {}),
    ...(isPlainObject(schema.$defs) ? schema.$defs : {}),
  };
  if (Object.keys(definitions).length === 0) return schema;
  const inline = (value: unknown, seen: readonly string[]): unknown => {
    if (Array.isArray(value)) return value.map((item) => inline(item, seen));
    if (!isPlainObject(value)) return value;
    const reference =
      typeof value.$ref === 'string' ? /^#\/(?:\$defs|definitions)\/(.+)$/.exec(value.$ref) : null;
    const copy: Record<string, unknown> = {};
    if (reference) {
      const name = reference[1]!;
      if (seen.includes(name) || !isPlainObject(definitions[name])) {
        throw invalid(
          `renderTools: the input schema of tool "${toolName}" refers to "${String(value.$ref)}", which is ${seen.includes(name) ? 'recursive' : 'missing'}; give inputJsonSchema explicitly`,
        );
      }
      Object.assign(copy, inline(definitions[name], [...seen, name]));
    }
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && reference) continue;
      if (key === '$defs' || key === 'definitions') continue;
      copy[key] = inline(inner, seen);
    }
    return copy;
  };
  return inline(schema, []) as Record<string, unknown>;
}

function inputSchemaOf(tool: AnyTool): Anthropic.Tool.InputSchema {
  let schema: unknown;
  if (tool.inputJsonSchema !== undefined) {
    if (!isPlainObject(tool.inputJsonSchema)) {
      throw invalid(
        `renderTools: tool "${tool.name}" has an inputJsonSchema that is not an object; give a JSON Schema object or leave it out to derive it from inputSchema`,
      );
    }
    schema = jsonCopy(
      tool.inputJsonSchema,
      `renderTools: the inputJsonSchema of tool "${tool.name}"`,
    );
  } else {
    // Duck-typed: a zod 4 schema from another copy of zod is fine too.
    const zodSchema = tool.inputSchema as unknown as { _zod?: unknown } | undefined;
    if (typeof zodSchema !== 'object' || zodSchema === null || zodSchema._zod === undefined) {
      throw invalid(
        `renderTools: tool "${tool.name}" has neither an inputJsonSchema nor a zod inputSchema; give one of them`,
      );
    }
    let derived: Record<string, unknown>;
    try {
      derived = z.toJSONSchema(tool.inputSchema, { io: 'input' }) as Record<string, unknown>;
    } catch (error) {
      throw invalid(
        `renderTools: the zod inputSchema of tool "${tool.name}" cannot be turned into JSON Schema (${error instanceof Error ? error.message : String(error)}); give inputJsonSchema explicitly`,
      );
    }
    schema = inlineDefinitions(derived, tool.name);
  }
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  if (rest.type !== 'object') {
    throw invalid(
      `renderTools: the input schema of tool "${tool.name}" must have "type": "object" (the Messages API takes only object inputs), got ${JSON.stringify(rest.type)}`,
    );
  }
  return rest as Anthropic.Tool.InputSchema;
}

/**
 * Renders tools for the `tools` field of a request: `{ name, description, input_schema }` in the
 * given order, the schema being `inputJsonSchema` or `z.toJSONSchema(inputSchema, { io: 'input' })`
 * (its `$defs` references, which zod writes for schemas with a meta `id`, inlined) without
 * `$schema`. The result is deeply frozen; call this once per agent and send the same
 * array on every request. Refuses (`INVALID_OPTIONS`) a non-array, a malformed or duplicate
 * name, an empty description and a schema that is not an object schema.
 */
export function renderTools(tools: readonly AnyTool[]): Anthropic.Tool[] {
  if (!Array.isArray(tools)) {
    throw invalid(`renderTools: tools must be an array of Tool objects, got ${typeof tools}`);
  }
  const seen = new Set<string>();
  const rendered = tools.map((tool, index): Anthropic.Tool => {
    if (typeof tool !== 'object' || tool === null) {
      throw invalid(`renderTools: tools[${index}] is not a Tool object`);
    }
    const { name, description } = tool;
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
      throw invalid(
        `renderTools: tools[${index}] has the name ${JSON.stringify(name)}; a tool name is 1–64 letters, digits, "_" or "-"`,
      );
    }
    if (seen.has(name)) {
      throw invalid(
        `renderTools: two tools are named "${name}"; tool names must be unique in an agent's tool set`,
      );
    }
    seen.add(name);
    if (typeof description !== 'string' || description.trim() === '') {
      throw invalid(
        `renderTools: tool "${name}" has no description; the model needs one to know when to call it`,
      );
    }
    return { name, description, input_schema: inputSchemaOf(tool) };
  });
  return deepFreeze(rendered);
}

/**
 * Renders the system prompt for the `system` field: a string becomes one text block (an empty
 * string, no block); text blocks are copied without any `cache_control` (the request builder
 * places the markers). The result is deeply frozen; call this once per agent. Refuses
 * (`INVALID_OPTIONS`) anything but a string or an array of non-empty text blocks.
 */
export function renderSystem(
  system: string | readonly Anthropic.TextBlockParam[],
): Anthropic.TextBlockParam[] {
  if (typeof system === 'string') {
    return deepFreeze(system === '' ? [] : [{ type: 'text', text: system }]);
  }
  if (!Array.isArray(system)) {
    throw invalid(
      `renderSystem: the system prompt must be a string or an array of text blocks, got ${system === null ? 'null' : typeof system}`,
    );
  }
  const rendered = system.map((block: unknown, index): Anthropic.TextBlockParam => {
    if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') {
      throw invalid(
        `renderSystem: system[${index}] is not a text block ({ type: "text", text: "…" })`,
      );
    }
    if (block.text === '') {
      throw invalid(
        `renderSystem: system[${index}] has empty text; the API refuses empty text blocks`,
      );
    }
    const { cache_control: _marker, ...rest } = block;
    return jsonCopy(rest, `renderSystem: system[${index}]`) as unknown as Anthropic.TextBlockParam;
  });
  return deepFreeze(rendered);
}
