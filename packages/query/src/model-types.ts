// The contract of the one model client wrapper (R1): every request of every agent goes
// through `ModelClient.stream`. Implemented in model-client.ts.
import type Anthropic from '@anthropic-ai/sdk';

/** Options of `createModelClient`. */
export interface ModelClientOptions {
  /** Defaults to `ANTHROPIC_API_KEY` as the SDK reads it. */
  apiKey?: string;
  /** Defaults to `ANTHROPIC_BASE_URL` as the SDK reads it, then the public API. */
  baseURL?: string;
  /** Replaces the network (e.g. `createScriptedFetch` of `@muster/scripted-model`). */
  fetch?: typeof fetch;
  /** SDK retries before response headers (default 2; always passed explicitly, R1). */
  maxRetries?: number;
  /** Abort a stream after this many ms without a byte; pings count (default 90_000, R2). */
  streamIdleMs?: number;
  /** Turn-level retries of errors after headers (default 4, R3). */
  streamRetries?: number;
  /** Base of the turn-level backoff: `min(base · 2^attempt, 8 s) × (1 − rand·0.25)` (default 500). */
  retryBaseMs?: number;
  /** Extra headers on every request. */
  defaultHeaders?: Record<string, string>;
}

/** What one call of `stream` reports as it goes. */
export interface StreamObserver {
  /** Each text delta. */
  onText?(text: string): void;
  /** Each thinking delta. */
  onThinking?(thinking: string): void;
  /** Before each attempt after the first: what failed and how long it waits. */
  onRetry?(retry: { attempt: number; delayMs: number; kind: string; message: string }): void;
  /** When an attempt starts (attempt 0 first). */
  onAttempt?(attempt: number): void;
  /**
   * When the response of an attempt starts streaming (its `message_start`): from then on the
   * API can serve its prompt from the cache to other requests (a fork fan-out waits for it).
   */
  onResponseStart?(attempt: number): void;
}

/** How an error is treated (R4). */
export type ErrorClass =
  /** Retry it (rate limit, overload, 5xx in a stream, a broken stream, an idle stream). */
  | 'retryable'
  /** Do not retry (400, 401, 403, 404, 413, a bad request). */
  | 'final'
  /** The caller aborted: not an error. */
  | 'cancelled';

/** The one wrapper over `client.messages.stream()`. */
export interface ModelClient {
  /**
   * Streams one request to the end and returns the final message. Retries errors after the
   * headers (`event: error`, broken streams, idle streams) at this level (R3); errors before
   * them are retried by the SDK (`maxRetries`). Throws a `QueryError` (`MODEL_REQUEST_REFUSED`,
   * `RETRIES_EXHAUSTED`, `STREAM_IDLE`, `STREAM_FAILED`, `ABORTED`) naming the cause.
   */
  stream(
    params: Anthropic.MessageCreateParamsNonStreaming,
    options: { signal: AbortSignal; observer?: StreamObserver },
  ): Promise<{ message: Anthropic.Message; attempts: number }>;
  /** `POST /v1/messages/count_tokens`. */
  countTokens(
    params: Anthropic.MessageCountTokensParams,
    options: { signal: AbortSignal },
  ): Promise<number>;
  /** The SDK client underneath (for programs that need another endpoint). */
  readonly anthropic: Anthropic;
}
