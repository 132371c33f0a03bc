// Checks and defaults of `createModelClient`'s options, and the turn-level backoff (R3).
import { describeValue, checkIdleMs } from './idle-watchdog.js';
import type { ModelClientOptions } from './model-types.js';
import { QueryError } from './query-error.js';

/** Default `maxRetries` (SDK retries before the response headers). */
export const DEFAULT_MAX_RETRIES = 2;
/** Default `streamIdleMs` (R2). */
export const DEFAULT_STREAM_IDLE_MS = 90_000;
/** Default `streamRetries` (turn-level retries after the headers, R3). */
export const DEFAULT_STREAM_RETRIES = 4;
/** Default `retryBaseMs`. */
export const DEFAULT_RETRY_BASE_MS = 500;
/** The longest turn-level backoff before jitter. */
export const MAX_RETRY_DELAY_MS = 8_000;

/** `createModelClient`'s options after checking, with every default filled in. */
export interface ResolvedModelClientOptions {
  credential: { apiKey: string } | { authToken: string };
  baseURL: string | undefined;
  fetch: typeof fetch;
  maxRetries: number;
  streamIdleMs: number;
  streamRetries: number;
  retryBaseMs: number;
  defaultHeaders: Record<string, string>;
}

function invalid(option: string, value: unknown, expected: string): QueryError {
  return new QueryError({
    code: 'INVALID_OPTIONS',
    message: `createModelClient: ${option} must be ${expected}, got ${describeValue(value)}.`,
    details: { option },
  });
}

function wholeNumber(option: string, value: unknown, fallback: number, maximum: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > maximum)
    throw invalid(option, value, `a whole number from 0 to ${maximum}`);
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value : undefined;
}

/**
 * Checks `options` and fills in the defaults. The API key defaults to `ANTHROPIC_API_KEY` (then
 * `ANTHROPIC_AUTH_TOKEN`, sent as a bearer token), as the SDK reads them; the base URL is left
 * to the SDK (`ANTHROPIC_BASE_URL`, then the public API) when not given.
 */
export function resolveModelClientOptions(
  options: ModelClientOptions | undefined,
  environment: Readonly<Record<string, string | undefined>> = process.env,
): ResolvedModelClientOptions {
  if (
    options !== undefined &&
    (typeof options !== 'object' || options === null || Array.isArray(options))
  )
    throw invalid('options', options, 'an object (or nothing)');
  const given: ModelClientOptions = options ?? {};
  if (
    given.apiKey !== undefined &&
    (typeof given.apiKey !== 'string' || given.apiKey.trim() === '')
  )
    throw invalid(
      'apiKey',
      given.apiKey === undefined ? undefined : '(hidden)',
      'a non-empty string',
    );
  const apiKey = given.apiKey ?? nonEmpty(environment.ANTHROPIC_API_KEY);
  const authToken = apiKey === undefined ? nonEmpty(environment.ANTHROPIC_AUTH_TOKEN) : undefined;
  if (apiKey === undefined && authToken === undefined) {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message:
        'createModelClient: no API key. Set ANTHROPIC_API_KEY in the environment (or pass apiKey to createModelClient).',
      details: { option: 'apiKey' },
    });
  }
  if (given.baseURL !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = typeof given.baseURL === 'string' ? new URL(given.baseURL) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
      throw invalid('baseURL', given.baseURL, 'an http(s) URL such as https://api.anthropic.com');
  }
  if (given.fetch !== undefined && typeof given.fetch !== 'function')
    throw invalid('fetch', given.fetch, 'a fetch function');
  const defaultHeaders: Record<string, string> = {};
  if (given.defaultHeaders !== undefined) {
    if (
      typeof given.defaultHeaders !== 'object' ||
      given.defaultHeaders === null ||
      Array.isArray(given.defaultHeaders)
    )
      throw invalid('defaultHeaders', given.defaultHeaders, 'an object of header names to strings');
    for (const [name, value] of Object.entries(given.defaultHeaders)) {
      if (typeof value !== 'string')
        throw invalid(`defaultHeaders[${JSON.stringify(name)}]`, value, 'a string');
      defaultHeaders[name] = value;
    }
  }
  const retryBaseMs = given.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
  if (
    typeof retryBaseMs !== 'number' ||
    !Number.isFinite(retryBaseMs) ||
    retryBaseMs < 0 ||
    retryBaseMs > MAX_RETRY_DELAY_MS
  )
    throw invalid(
      'retryBaseMs',
      retryBaseMs,
      `a number of milliseconds from 0 to ${MAX_RETRY_DELAY_MS}`,
    );
  return {
    credential: apiKey !== undefined ? { apiKey } : { authToken: authToken as string },
    baseURL: given.baseURL,
    fetch: given.fetch ?? globalThis.fetch,
    maxRetries: wholeNumber('maxRetries', given.maxRetries, DEFAULT_MAX_RETRIES, 20),
    streamIdleMs:
      given.streamIdleMs === undefined
        ? DEFAULT_STREAM_IDLE_MS
        : checkIdleMs(given.streamIdleMs, 'streamIdleMs'),
    streamRetries: wholeNumber('streamRetries', given.streamRetries, DEFAULT_STREAM_RETRIES, 50),
    retryBaseMs,
    defaultHeaders,
  };
}

/**
 * The wait before turn-level retry number `retry` (0 for the first retry):
 * `min(baseMs · 2^retry, 8 s) × (1 − random · 0.25)`, the SDK's own formula.
 */
export function retryDelayMs(
  retry: number,
  baseMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(baseMs * 2 ** retry, MAX_RETRY_DELAY_MS);
  return Math.round(ceiling * (1 - random() * 0.25));
}

/** Waits `ms`, or rejects with `QueryError('ABORTED')` as soon as `signal` aborts. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(abortedError(signal));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The `ABORTED` error for a signal, naming its reason when it has a readable one. */
export function abortedError(signal: AbortSignal, cause?: unknown): QueryError {
  const reason: unknown = signal.reason;
  const said =
    typeof reason === 'string'
      ? reason
      : reason instanceof Error && reason.name !== 'AbortError'
        ? reason.message
        : undefined;
  return new QueryError({
    code: 'ABORTED',
    message: `The model request was aborted${said ? `: ${said}` : ''}.`,
    ...(cause !== undefined ? { cause } : {}),
    details: said ? { reason: said } : {},
  });
}
