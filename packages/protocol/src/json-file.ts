import type { z } from 'zod';
import { ProtocolError } from './errors.js';

/**
 * Serializes a value exactly as Claude Code writes its files: `JSON.stringify` with two
 * spaces and no trailing newline.
 */
export function formatJsonFile(value: unknown): string {
  return JSON.stringify(value, null, 2);
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
        message: `${source} is not valid JSON (${(cause as Error).message}).`,
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
