// The byte-level idle watchdog (R2). The SDK's `timeout` covers only the wait for response
// headers; once they arrive a stream that stops sending bytes hangs for ever. This `fetch`
// wrapper hands the SDK a body that errors with `QueryError('STREAM_IDLE')` when no chunk arrives
// for `idleMs` while someone is waiting to read. It works below the SDK's event API, so the
// server's `ping` frames (which the SDK drops) keep the stream alive.
import { QueryError } from './query-error.js';

/** The `fetch` signature the SDK takes. */
export type FetchFunction = typeof fetch;

/** Checks an idle limit: a positive integer number of milliseconds. */
export function checkIdleMs(idleMs: unknown, optionName: string): number {
  if (
    typeof idleMs !== 'number' ||
    !Number.isInteger(idleMs) ||
    idleMs <= 0 ||
    idleMs > 2_147_483_647
  ) {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: `${optionName} must be a positive whole number of milliseconds (at most 2147483647), got ${describeValue(idleMs)}. Pass e.g. 90000 for 90 s.`,
      details: { option: optionName, value: idleMs },
    });
  }
  return idleMs;
}

/** A short, safe description of a value for error messages. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 60 ? value.slice(0, 60) + '…' : value);
  if (typeof value === 'function') return 'a function';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return String(value);
}

/**
 * Wraps `fetchFunction` so that every response body fails with a `QueryError` of code
 * `STREAM_IDLE` when no chunk arrives for `idleMs` milliseconds while it is being read. Only the
 * time after the response headers counts (the SDK's own `timeout` covers the wait for them);
 * every chunk resets the timer, `ping` frames included. The timer runs only while a read is
 * pending, so a slow reader never trips it. When it fires, the underlying body is cancelled
 * (the connection is released) and the next read rejects with the `STREAM_IDLE` error.
 *
 * Give the result to the SDK: `new Anthropic({ fetch: createIdleWatchdogFetch(fetch, 90_000) })`.
 */
export function createIdleWatchdogFetch(
  fetchFunction: FetchFunction,
  idleMs: number,
): FetchFunction {
  if (typeof fetchFunction !== 'function') {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: `createIdleWatchdogFetch needs a fetch function as its first argument, got ${describeValue(fetchFunction)}. Pass globalThis.fetch or a test double's fetch.`,
      details: { option: 'fetch' },
    });
  }
  const limit = checkIdleMs(idleMs, 'idleMs');
  const watchedFetch = async (
    input: Parameters<FetchFunction>[0],
    init?: RequestInit,
  ): Promise<Response> => {
    const response = await fetchFunction(input, init);
    if (!response.body) return response;
    const watched = new Response(watchBody(response.body, limit, init?.signal ?? undefined), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // A constructed Response has an empty url; keep the original for the SDK's logs.
    if (response.url) Object.defineProperty(watched, 'url', { value: response.url });
    return watched;
  };
  return watchedFetch as FetchFunction;
}

function idleError(idleMs: number): QueryError {
  return new QueryError({
    code: 'STREAM_IDLE',
    message: `The model's response stream sent no byte for ${idleMs} ms after its headers (pings included), so it was abandoned; raise streamIdleMs if the model legitimately pauses this long.`,
    details: { idleMs },
  });
}

function watchBody(
  source: ReadableStream<Uint8Array>,
  idleMs: number,
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let settled = false;
  const stopTimer = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const onAbort = (): void => stopTimer();
  signal?.addEventListener('abort', onAbort, { once: true });
  const finish = (): void => {
    settled = true;
    stopTimer();
    signal?.removeEventListener('abort', onAbort);
  };
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        return new Promise<void>((resolve) => {
          if (!signal?.aborted) {
            timer = setTimeout(() => {
              timer = undefined;
              if (settled) return;
              finish();
              controller.error(idleError(idleMs));
              reader.cancel(idleError(idleMs)).catch(() => undefined);
              resolve();
            }, idleMs);
          }
          reader.read().then(
            (result) => {
              stopTimer();
              if (settled) return resolve();
              if (result.done) {
                finish();
                controller.close();
              } else {
                controller.enqueue(result.value);
              }
              resolve();
            },
            (error: unknown) => {
              stopTimer();
              if (!settled) {
                finish();
                controller.error(error);
              }
              resolve();
            },
          );
        });
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
