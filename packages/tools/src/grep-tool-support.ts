// Small pieces Glob and Grep share: the JSON Schema a tool sends the model, and a time limit
// linked to the turn's abort signal.
import { ToolError } from '@muster/query';
import { z } from 'zod';

/** The JSON Schema of a tool's input as sent to the model (draft 2020-12, input side, no `$schema`). */
export function toolJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
  }) as Record<string, unknown>;
  return rest;
}

/**
 * Runs `work` with a signal that aborts when `parent` does or after `timeoutMs`. A time-out
 * becomes a `ToolError` with code `SEARCH_TIMEOUT`; an abort of `parent` rethrows its reason.
 * The link to `parent` is removed when `work` ends, so listeners never pile up.
 */
export async function callWithTimeout<Value>(
  parent: AbortSignal,
  timeoutMs: number,
  toolName: string,
  work: (signal: AbortSignal) => Promise<Value>,
): Promise<Value> {
  parent.throwIfAborted();
  const controller = new AbortController();
  const timeout = new ToolError(
    `${toolName} stopped after ${timeoutMs} ms without finishing. Search a smaller folder (path), or narrow the pattern, glob or type.`,
    'SEARCH_TIMEOUT',
    { timeoutMs },
  );
  const link = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', link, { once: true });
  const timer = setTimeout(() => controller.abort(timeout), timeoutMs);
  // Work that ignores its signal (a read stuck on a pipe) must not hold the call: race it.
  const stopped = new Promise<never>((_resolve, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), {
      once: true,
    });
  });
  stopped.catch(() => undefined);
  try {
    return await Promise.race([work(controller.signal), stopped]);
  } catch (error) {
    if (controller.signal.aborted) throw controller.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    parent.removeEventListener('abort', link);
  }
}
