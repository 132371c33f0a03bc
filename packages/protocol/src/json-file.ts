import type { z } from 'zod';
import { ProtocolError } from './errors.js';

/** How a JSON file's text is laid out, beyond what `JSON.stringify` decides. */
export interface JsonFileStyle {
  /** Whether the text ends with a single `\n` after the closing bracket. */
  trailingNewline: boolean;
}

/**
 * Claude Code's style for every file it shares: `JSON.stringify(value, null, 2)` with no
 * trailing newline. The default of {@link formatJsonFile}.
 */
export const CLAUDE_CODE_JSON_STYLE: Readonly<JsonFileStyle> = Object.freeze({
  trailingNewline: false,
});

/**
 * Reads the style of an existing file's text so a rewrite can keep it. Claude Code's own
 * files have no trailing newline; files written by editors or other tools often do.
 */
export function detectJsonFileStyle(text: string): JsonFileStyle {
  return { trailingNewline: text.endsWith('\n') };
}

/**
 * Serializes a value as a shared JSON file: `JSON.stringify` with two spaces, and by
 * default no trailing newline (Claude Code's style). Pass the style detected from the
 * file being replaced ({@link detectJsonFileStyle}) to keep its trailing newline.
 */
export function formatJsonFile(
  value: unknown,
  style: JsonFileStyle = CLAUDE_CODE_JSON_STYLE,
): string {
  const text = JSON.stringify(value, null, 2);
  if (text === undefined) {
    throw new ProtocolError({
      code: 'INVALID_INPUT',
      message: `A ${typeof value} cannot be written as a JSON file; pass an object, array or primitive JSON value.`,
      details: { valueType: typeof value },
    });
  }
  return style.trailingNewline ? `${text}\n` : text;
}

/** The result of {@link safeParseJsonFile}. */
export type JsonFileResult<T> =
  { success: true; value: T } | { success: false; error: ProtocolError };

/**
 * Parses file text and validates it with a schema. On success it returns the *original*
 * parsed object (typed), not zod's output: unknown fields stay in place and in order, so
 * writing it back with {@link formatJsonFile} reproduces the file byte for byte. The file
 * schemas in this package have no defaults or transforms, which makes this exact.
 */
export function safeParseJsonFile<Schema extends z.ZodType>(
  text: string,
  schema: Schema,
  source = 'file',
): JsonFileResult<z.output<Schema>> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    return {
      success: false,
      error: new ProtocolError({
        code: 'INVALID_JSON',
        message: `${source} is not valid JSON (${(cause as Error).message}). Move it aside and recreate it, or fix it by hand.`,
        cause,
        details: { source },
      }),
    };
  }
  return safeValidate(raw, schema, source);
}

/** Validates an already-parsed value; returns the value itself (see {@link safeParseJsonFile}). */
export function safeValidate<Schema extends z.ZodType>(
  raw: unknown,
  schema: Schema,
  source = 'value',
): JsonFileResult<z.output<Schema>> {
  const result = schema.safeParse(raw);
  if (result.success) return { success: true, value: raw as z.output<Schema> };
  const problems = result.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(top level)'}: ${issue.message}`)
    .join('; ');
  return {
    success: false,
    error: new ProtocolError({
      code: 'SCHEMA_MISMATCH',
      message: `${source} does not match the expected format: ${problems}.`,
      cause: result.error,
      details: { source, issues: result.error.issues },
    }),
  };
}

/** Throwing form of {@link safeParseJsonFile}. */
export function parseJsonFile<Schema extends z.ZodType>(
  text: string,
  schema: Schema,
  source = 'file',
): z.output<Schema> {
  const result = safeParseJsonFile(text, schema, source);
  if (!result.success) throw result.error;
  return result.value;
}
