// R4: what to do with an error from the model API. Retry it, give up on it, or treat it as the
// caller's own cancel. Works on the errors the real @anthropic-ai/sdk 1.12.0 throws, before and
// after the response headers, and on the watchdog's STREAM_IDLE.
import Anthropic from '@anthropic-ai/sdk';
import { MusterError } from '@muster/protocol';
import type { ErrorClass } from './model-types.js';

/** How `classifyModelError` sees one error. */
export interface ModelErrorClassification {
  /** Retry, give up, or the caller cancelled. */
  class: ErrorClass;
  /**
   * What happened, stable for programs and events: the API's error type when it sent one
   * (`overloaded_error`, `rate_limit_error`, `invalid_request_error`, …), else `http_<status>`,
   * `STREAM_IDLE`, `connection_error`, `connection_timeout`, `stream_terminated`,
   * `missing_message_start`, `missing_message_stop`, `missing_stop_reason`, `malformed_stream`, `aborted` or `unknown`.
   */
  kind: string;
  /** One line saying what failed, for people and logs. */
  message: string;
  /** The HTTP status, when the error came with one (before the stream began). */
  status?: number;
  /** The API's `request-id`, when known. */
  requestId?: string;
}

/** API error types (`error.type`) that are worth another attempt. */
export const RETRYABLE_API_ERROR_TYPES: readonly string[] = [
  'rate_limit_error',
  'overloaded_error',
  'api_error',
  'timeout_error',
];

/** HTTP statuses that end a request for good (R4). Other 4xx are final too, except 408/409/429. */
export const FINAL_HTTP_STATUSES: readonly number[] = [400, 401, 403, 404, 413, 422];

/** The message of the error `stream()` raises for a finished message without a stop reason. */
export const MISSING_STOP_REASON = 'stream ended without a stop_reason';

const RETRYABLE_HTTP_STATUSES = new Set([408, 409, 429]);

const STREAM_MESSAGES: ReadonlyArray<{ text: string; kind: string; describe: string }> = [
  {
    text: 'request ended without sending any chunks',
    kind: 'missing_message_start',
    describe: 'the stream ended before its message_start event',
  },
  {
    text: 'stream ended without producing a Message',
    kind: 'missing_message_stop',
    describe: 'the stream ended before its message_stop event',
  },
  {
    text: MISSING_STOP_REASON,
    kind: 'missing_stop_reason',
    describe: 'the stream ended without a stop reason (no message_delta)',
  },
  {
    text: 'Unexpected event order',
    kind: 'malformed_stream',
    describe: 'the stream sent its events out of order',
  },
];

/** The chain of `cause`s from `error` down (bounded, so a cycle cannot loop). */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (
    current !== undefined &&
    current !== null &&
    chain.length < 8 &&
    !chain.includes(current)
  ) {
    chain.push(current);
    current = typeof current === 'object' ? (current as { cause?: unknown }).cause : undefined;
  }
  return chain;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error)
    return String((error as { message: unknown }).message);
  return String(error);
}

function isAbortLike(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'name' in error &&
    (error as { name: unknown }).name === 'AbortError'
  );
}

function classifyApiError(
  error: InstanceType<typeof Anthropic.APIError>,
): ModelErrorClassification {
  const status = typeof error.status === 'number' ? error.status : undefined;
  const type = typeof error.type === 'string' && error.type.length > 0 ? error.type : undefined;
  const requestId = typeof error.requestID === 'string' ? error.requestID : undefined;
  const apiMessage = typeof error.apiMessage === 'string' ? error.apiMessage : undefined;
  const kind = type ?? (status !== undefined ? `http_${status}` : 'unknown');
  let errorClass: ErrorClass;
  if (status !== undefined) {
    errorClass =
      RETRYABLE_HTTP_STATUSES.has(status) ||
      status >= 500 ||
      error instanceof Anthropic.RateLimitError
        ? 'retryable'
        : 'final';
  } else {
    // An `event: error` inside the stream: no status, only the API's type.
    errorClass =
      type !== undefined && RETRYABLE_API_ERROR_TYPES.includes(type) ? 'retryable' : 'final';
  }
  const where = status !== undefined ? `answered ${status}` : 'sent an error event in the stream';
  const detail = apiMessage ?? messageOf(error);
  const message = `The model API ${where}${type ? ` (${type})` : ''}: ${detail}${requestId ? ` [request ${requestId}]` : ''}`;
  return {
    class: errorClass,
    kind,
    message,
    ...(status !== undefined ? { status } : {}),
    ...(requestId !== undefined ? { requestId } : {}),
  };
}

/**
 * Classifies an error from the model client (R4):
 * - retryable: `RateLimitError`, `OverloadedError`, any 408/409/429/5xx, an in-stream error event
 *   whose type is `rate_limit_error`, `overloaded_error`, `api_error` or `timeout_error`,
 *   `APIConnectionError` (and its timeout), a stream cut short (`terminated`, no
 *   `message_start`, no `message_stop`, events out of order) and the watchdog's `STREAM_IDLE`;
 * - final: 400, 401, 403, 404, 413, 422 and the other 4xx, other in-stream error types, and
 *   anything unrecognised (a bug is not retried);
 * - cancelled: `APIUserAbortError`, an `AbortError`, or muster's own `ABORTED`.
 *
 * Looks through `cause` chains, since the SDK wraps what a `fetch` body throws.
 */
export function classifyModelError(error: unknown): ModelErrorClassification {
  for (const link of causeChain(error)) {
    const classification = classifyLink(link);
    if (classification) return classification;
  }
  return {
    class: 'final',
    kind: 'unknown',
    message: `Unexpected error from the model client: ${messageOf(error)}`,
  };
}

function classifyLink(link: unknown): ModelErrorClassification | undefined {
  if (
    MusterError.hasCode(link, 'ABORTED') ||
    link instanceof Anthropic.APIUserAbortError ||
    isAbortLike(link)
  ) {
    return {
      class: 'cancelled',
      kind: 'aborted',
      message: `The request was aborted: ${messageOf(link)}`,
    };
  }
  if (MusterError.hasCode(link, 'STREAM_IDLE')) {
    return { class: 'retryable', kind: 'STREAM_IDLE', message: messageOf(link) };
  }
  if (link instanceof Anthropic.APIConnectionTimeoutError) {
    return {
      class: 'retryable',
      kind: 'connection_timeout',
      message: `No response headers from the model API before the SDK timeout: ${messageOf(link)}`,
    };
  }
  if (link instanceof Anthropic.APIConnectionError) {
    const cause = (link as { cause?: unknown }).cause;
    return {
      class: 'retryable',
      kind: 'connection_error',
      message: `Could not reach the model API: ${messageOf(link)}${cause ? ` (${messageOf(cause)})` : ''}`,
    };
  }
  if (link instanceof Anthropic.APIError) return classifyApiError(link);
  const text = messageOf(link);
  if (
    text === 'terminated' &&
    (link instanceof Anthropic.AnthropicError || link instanceof TypeError)
  ) {
    return {
      class: 'retryable',
      kind: 'stream_terminated',
      message:
        'The connection to the model API was cut in the middle of the response (terminated).',
    };
  }
  if (link instanceof Anthropic.AnthropicError) {
    for (const known of STREAM_MESSAGES) {
      if (text.includes(known.text)) {
        return {
          class: 'retryable',
          kind: known.kind,
          message: `The model's response was incomplete: ${known.describe}.`,
        };
      }
    }
  }
  return undefined;
}
