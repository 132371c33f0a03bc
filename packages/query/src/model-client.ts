// The one wrapper over `anthropic.messages.stream()` (R1): every request of every agent goes
// through `ModelClient.stream`. It always streams, passes `signal` and `maxRetries` explicitly,
// watches the body for idleness (R2), retries failures after the headers at the turn level (R3)
// and turns every SDK error into a `QueryError` that says what happened and what to do (R4).
import Anthropic from '@anthropic-ai/sdk';
import {
  classifyModelError,
  MISSING_STOP_REASON,
  type ModelErrorClassification,
} from './error-classification.js';
import { createIdleWatchdogFetch, describeValue } from './idle-watchdog.js';
import {
  abortedError,
  resolveModelClientOptions,
  retryDelayMs,
  sleepUnlessAborted,
  type ResolvedModelClientOptions,
} from './model-client-options.js';
import type { ModelClient, ModelClientOptions, StreamObserver } from './model-types.js';
import { QueryError } from './query-error.js';

type AttemptOutcome =
  | { ok: true; message: Anthropic.Message }
  | {
      ok: false;
      error: unknown;
      connected: boolean;
      observerError: { error: unknown } | undefined;
    };

const STATUS_ADVICE: Record<number, string> = {
  400: 'Fix the request as the message says (it is malformed, or the model cannot take it).',
  401: 'Check the API key (ANTHROPIC_API_KEY, or the apiKey option of createModelClient).',
  403: 'The key may not use this model or feature: check the account and its permissions.',
  404: 'Check the model id and the base URL (ANTHROPIC_BASE_URL, or the baseURL option).',
  413: 'The request is too large: compact the conversation or send less.',
  422: 'Fix the request as the message says (the API could not process it).',
};

/** `text` as a sentence: a full stop added unless it already ends with one. */
function sentence(text: string): string {
  return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}

function checkSignal(signal: unknown, method: string): AbortSignal {
  if (!(signal instanceof AbortSignal)) {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: `ModelClient.${method} needs { signal: AbortSignal } as its second argument, got signal ${describeValue(signal)}. Pass the turn's signal (new AbortController().signal when nothing aborts it).`,
      details: { option: 'signal' },
    });
  }
  return signal;
}

function checkParams(params: unknown, method: string): void {
  const problem = (() => {
    if (typeof params !== 'object' || params === null || Array.isArray(params))
      return 'params must be an object';
    const body = params as Record<string, unknown>;
    if (typeof body.model !== 'string' || body.model.trim() === '')
      return 'params.model must be a non-empty string';
    if (!Array.isArray(body.messages)) return 'params.messages must be an array';
    if (
      method === 'stream' &&
      (typeof body.max_tokens !== 'number' ||
        !Number.isInteger(body.max_tokens) ||
        body.max_tokens <= 0)
    )
      return 'params.max_tokens must be a positive whole number';
    return undefined;
  })();
  if (problem) {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: `ModelClient.${method}: ${problem}. Build the request with buildRequest (or pass Messages API parameters).`,
      details: { option: 'params' },
    });
  }
}

function refusedError(
  classification: ModelErrorClassification,
  error: unknown,
  attempts: number,
): QueryError {
  const apiError = error instanceof Anthropic.APIError ? error : undefined;
  const advice =
    (classification.status !== undefined ? STATUS_ADVICE[classification.status] : undefined) ??
    'It is not retried: fix what the message says.';
  return new QueryError({
    code: 'MODEL_REQUEST_REFUSED',
    message: `${sentence(classification.message)} ${advice}`,
    cause: error,
    details: {
      kind: classification.kind,
      status: classification.status,
      type: apiError?.type ?? undefined,
      errorCode: apiError?.errorCode ?? undefined,
      requestId: classification.requestId,
      apiMessage: apiError?.apiMessage ?? undefined,
      attempts,
    },
  });
}

function failedError(
  classification: ModelErrorClassification,
  error: unknown,
  attempts: number,
): QueryError {
  const idle = classification.kind === 'STREAM_IDLE';
  return new QueryError({
    code: idle ? 'STREAM_IDLE' : 'STREAM_FAILED',
    message: idle
      ? `${sentence(classification.message)} Not retried (streamRetries is 0).`
      : `${sentence(classification.message)} Not retried (streamRetries is 0); try the request again.`,
    cause: error,
    details: { kind: classification.kind, requestId: classification.requestId, attempts },
  });
}

/**
 * Creates the model client every agent sends its requests through (R1–R4).
 *
 * - The API key defaults to `ANTHROPIC_API_KEY` (then `ANTHROPIC_AUTH_TOKEN`) and the base URL to
 *   `ANTHROPIC_BASE_URL`, as the SDK reads them; no key at all is a `QueryError('INVALID_OPTIONS')`.
 * - The SDK gets `fetch` (default: the global one) wrapped by `createIdleWatchdogFetch` with
 *   `streamIdleMs` (default 90 s): a stream that sends no byte for that long, pings included,
 *   fails with `STREAM_IDLE`.
 * - `stream()` retries what fails after the response headers (an `event: error` of a retryable
 *   type, a cut connection, a missing `message_start`/`message_stop`, an idle stream) up to
 *   `streamRetries` times (default 4), waiting `min(retryBaseMs · 2^n, 8 s) × (1 − rand · 0.25)`;
 *   failures before the headers are retried by the SDK (`maxRetries`, default 2).
 */
export function createModelClient(options?: ModelClientOptions): ModelClient {
  const resolved = resolveModelClientOptions(options);
  let anthropic: Anthropic;
  try {
    anthropic = new Anthropic({
      ...resolved.credential,
      ...(resolved.baseURL !== undefined ? { baseURL: resolved.baseURL } : {}),
      fetch: createIdleWatchdogFetch(resolved.fetch, resolved.streamIdleMs),
      maxRetries: resolved.maxRetries,
      defaultHeaders: resolved.defaultHeaders,
    });
  } catch (error) {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: `createModelClient: the Anthropic SDK refused the options: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
  return {
    anthropic,
    stream: (params, streamOptions) =>
      streamWithRetries(anthropic, resolved, params, streamOptions),
    countTokens: (params, countOptions) => countTokens(anthropic, resolved, params, countOptions),
  };
}

async function runAttempt(
  anthropic: Anthropic,
  resolved: ResolvedModelClientOptions,
  params: Anthropic.MessageCreateParamsNonStreaming,
  signal: AbortSignal,
  observer: StreamObserver | undefined,
  attempt: number,
): Promise<AttemptOutcome> {
  let connected = false;
  let observerError: { error: unknown } | undefined;
  let messageStream: ReturnType<Anthropic['messages']['stream']>;
  try {
    // R1: the one call site of messages.stream in @muster/query.
    messageStream = anthropic.messages.stream(params, { signal, maxRetries: resolved.maxRetries });
  } catch (error) {
    return { ok: false, error, connected, observerError };
  }
  const guarded =
    <Value>(callback: (value: Value) => void) =>
    (value: Value): void => {
      if (observerError !== undefined) return;
      try {
        callback(value);
      } catch (error) {
        observerError = { error };
        messageStream.abort();
      }
    };
  messageStream.on('connect', () => {
    connected = true;
  });
  const { onText, onThinking, onResponseStart } = observer ?? {};
  if (onResponseStart)
    messageStream.on(
      'streamEvent',
      guarded((event: Anthropic.MessageStreamEvent) => {
        if (event.type === 'message_start') onResponseStart.call(observer, attempt);
      }),
    );
  if (onText)
    messageStream.on(
      'text',
      guarded((text: string) => onText.call(observer, text)),
    );
  if (onThinking)
    messageStream.on(
      'thinking',
      guarded((thinking: string) => onThinking.call(observer, thinking)),
    );
  try {
    const message = await messageStream.finalMessage();
    // Model output is hostile input: a message the loop cannot act on is a broken stream.
    if (typeof message.stop_reason !== 'string' || !Array.isArray(message.content)) {
      throw new Anthropic.AnthropicError(`${MISSING_STOP_REASON} (message ${String(message.id)})`);
    }
    return { ok: true, message };
  } catch (error) {
    return { ok: false, error, connected, observerError };
  }
}

async function streamWithRetries(
  anthropic: Anthropic,
  resolved: ResolvedModelClientOptions,
  params: Anthropic.MessageCreateParamsNonStreaming,
  streamOptions: { signal: AbortSignal; observer?: StreamObserver },
): Promise<{ message: Anthropic.Message; attempts: number }> {
  const signal = checkSignal(streamOptions?.signal, 'stream');
  checkParams(params, 'stream');
  const observer = streamOptions.observer;
  const kinds: string[] = [];
  for (let attempt = 0; ; attempt += 1) {
    if (signal.aborted) throw abortedError(signal);
    observer?.onAttempt?.(attempt);
    const outcome = await runAttempt(anthropic, resolved, params, signal, observer, attempt);
    if (outcome.ok) return { message: outcome.message, attempts: attempt + 1 };
    if (outcome.observerError) throw outcome.observerError.error;
    if (signal.aborted) throw abortedError(signal, outcome.error);
    const classification = classifyModelError(outcome.error);
    kinds.push(classification.kind);
    if (classification.class === 'cancelled') throw abortedError(signal, outcome.error);
    if (classification.class === 'final') {
      if (classification.status !== undefined || outcome.error instanceof Anthropic.APIError)
        throw refusedError(classification, outcome.error, attempt + 1);
      throw new QueryError({
        code: 'STREAM_FAILED',
        message: `${sentence(classification.message)} Not retried: it is not a known transient failure.`,
        cause: outcome.error,
        details: { kind: classification.kind, attempts: attempt + 1 },
      });
    }
    if (!outcome.connected) {
      // Before the headers the SDK has already retried it `maxRetries` times.
      throw new QueryError({
        code: 'RETRIES_EXHAUSTED',
        message: `${sentence(classification.message)} The SDK already retried it before the response headers (maxRetries: ${resolved.maxRetries}); try again later or raise maxRetries.`,
        cause: outcome.error,
        details: {
          kind: classification.kind,
          status: classification.status,
          requestId: classification.requestId,
          attempts: attempt + 1,
          maxRetries: resolved.maxRetries,
        },
      });
    }
    if (resolved.streamRetries === 0) throw failedError(classification, outcome.error, attempt + 1);
    if (attempt >= resolved.streamRetries) {
      throw new QueryError({
        code: 'RETRIES_EXHAUSTED',
        message: `The model's response failed ${attempt + 1} times in a row after its headers (${kinds.join(', ')}); the last time: ${sentence(classification.message)} Gave up after ${resolved.streamRetries} turn-level retries (streamRetries); try again later.`,
        cause: outcome.error,
        details: {
          kind: classification.kind,
          kinds: [...kinds],
          requestId: classification.requestId,
          attempts: attempt + 1,
          streamRetries: resolved.streamRetries,
        },
      });
    }
    const delayMs = retryDelayMs(attempt, resolved.retryBaseMs);
    observer?.onRetry?.({
      attempt: attempt + 1,
      delayMs,
      kind: classification.kind,
      message: classification.message,
    });
    await sleepUnlessAborted(delayMs, signal);
  }
}

async function countTokens(
  anthropic: Anthropic,
  resolved: ResolvedModelClientOptions,
  params: Anthropic.MessageCountTokensParams,
  countOptions: { signal: AbortSignal },
): Promise<number> {
  const signal = checkSignal(countOptions?.signal, 'countTokens');
  checkParams(params, 'countTokens');
  if (signal.aborted) throw abortedError(signal);
  let result: Anthropic.MessageTokensCount;
  try {
    result = await anthropic.messages.countTokens(params, {
      signal,
      maxRetries: resolved.maxRetries,
    });
  } catch (error) {
    if (signal.aborted) throw abortedError(signal, error);
    const classification = classifyModelError(error);
    if (classification.class === 'cancelled') throw abortedError(signal, error);
    if (classification.class === 'final') throw refusedError(classification, error, 1);
    throw new QueryError({
      code: 'RETRIES_EXHAUSTED',
      message: `${sentence(classification.message)} Counting tokens failed after the SDK's retries (maxRetries: ${resolved.maxRetries}); try again later.`,
      cause: error,
      details: {
        kind: classification.kind,
        status: classification.status,
        requestId: classification.requestId,
      },
    });
  }
  const tokens: unknown = (result as { input_tokens?: unknown } | null)?.input_tokens;
  if (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens < 0) {
    throw new QueryError({
      code: 'STREAM_FAILED',
      message: `count_tokens answered without a whole input_tokens count (got ${describeValue(tokens)}); check the base URL points at the Messages API.`,
    });
  }
  return tokens;
}
