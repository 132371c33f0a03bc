// R4, table-driven: each row makes the scripted model (a TEST DOUBLE of the Messages API) fail one
// way, lets the real @anthropic-ai/sdk 1.12.0 turn it into its error, and classifies that error.
import Anthropic from '@anthropic-ai/sdk';
import { createScriptedFetch, fault, text, type Reply } from '@muster/scripted-model';
import { describe, expect, it } from 'vitest';
import { classifyModelError } from './error-classification.js';
import { createIdleWatchdogFetch } from './idle-watchdog.js';
import { QUESTION, SCRIPTED_BASE_URL, rejectionOf } from './model-client-test-support.js';
import { QueryError } from './query-error.js';

const IDLE_MS = 1_000; // long enough that a loaded machine never turns another failure into STREAM_IDLE

/** The error the real SDK gives for one scripted reply (no SDK retries, the watchdog on). */
async function sdkErrorFor(
  reply: Reply,
  options: { abortAfterMs?: number; fetch?: typeof fetch; timeout?: number } = {},
): Promise<unknown> {
  const scriptedFetch = createScriptedFetch({ script: () => reply });
  try {
    const anthropic = new Anthropic({
      apiKey: 'test',
      baseURL: SCRIPTED_BASE_URL,
      maxRetries: 0,
      timeout: options.timeout ?? 10_000,
      fetch: createIdleWatchdogFetch(options.fetch ?? scriptedFetch, IDLE_MS),
    });
    const signal =
      options.abortAfterMs === undefined ? undefined : AbortSignal.timeout(options.abortAfterMs);
    return await rejectionOf(anthropic.messages.stream(QUESTION, { signal }).finalMessage());
  } finally {
    scriptedFetch.stop();
  }
}

const httpError = (status: number, errorType: string) =>
  fault('http-error', { status, errorType, message: `scripted ${errorType}` });

/** Waits for the request's abort, then fails as fetch does: the SDK calls it a timeout. */
const fetchThatNeverAnswers = ((_input: unknown, init?: RequestInit) =>
  new Promise((_resolve, reject) => {
    init?.signal?.addEventListener('abort', () =>
      reject(new DOMException('This operation was aborted', 'AbortError')),
    );
  })) as typeof fetch;

const fetchThatCannotConnect = (async () => {
  throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
}) as typeof fetch;

describe('classifyModelError against the scripted model through the real SDK', () => {
  it.each([
    [
      '429 rate_limit_error',
      httpError(429, 'rate_limit_error'),
      {},
      'retryable',
      'rate_limit_error',
    ],
    [
      '529 overloaded_error',
      httpError(529, 'overloaded_error'),
      {},
      'retryable',
      'overloaded_error',
    ],
    ['500 api_error', httpError(500, 'api_error'), {}, 'retryable', 'api_error'],
    ['503 api_error', httpError(503, 'api_error'), {}, 'retryable', 'api_error'],
    ['408 timeout_error', httpError(408, 'timeout_error'), {}, 'retryable', 'timeout_error'],
    [
      'event: error overloaded_error',
      fault('stream-error', { afterEvents: 3, errorType: 'overloaded_error' }, text('hi')),
      {},
      'retryable',
      'overloaded_error',
    ],
    [
      'event: error api_error',
      fault('stream-error', { afterEvents: 1, errorType: 'api_error' }, text('hi')),
      {},
      'retryable',
      'api_error',
    ],
    [
      'socket reset mid-stream',
      fault('socket-reset', { afterEvents: 3 }, text('hi')),
      {},
      'retryable',
      'stream_terminated',
    ],
    [
      'event: error rate_limit_error',
      fault('stream-error', { afterEvents: 2, errorType: 'rate_limit_error' }, text('hi')),
      {},
      'retryable',
      'rate_limit_error',
    ],
    [
      'event: error invalid_request_error',
      fault('stream-error', { afterEvents: 2, errorType: 'invalid_request_error' }, text('hi')),
      {},
      'final',
      'invalid_request_error',
    ],
    [
      'no message_start',
      fault('omit-message-start', {}, text('hi')),
      {},
      'retryable',
      'missing_message_start',
    ],
    [
      'no message_stop',
      fault('omit-message-stop', {}, text('hi')),
      {},
      'retryable',
      'missing_message_stop',
    ],
    [
      'silence after the headers (watchdog)',
      fault('silence-after-headers', {}, text('hi')),
      {},
      'retryable',
      'STREAM_IDLE',
    ],
    [
      'no headers before the SDK timeout',
      text('hi'),
      { fetch: fetchThatNeverAnswers, timeout: 100 },
      'retryable',
      'connection_timeout',
    ],
    [
      'connection refused',
      text('hi'),
      { fetch: fetchThatCannotConnect },
      'retryable',
      'connection_error',
    ],
    [
      '400 invalid_request_error',
      httpError(400, 'invalid_request_error'),
      {},
      'final',
      'invalid_request_error',
    ],
    [
      '401 authentication_error',
      httpError(401, 'authentication_error'),
      {},
      'final',
      'authentication_error',
    ],
    ['402 billing_error', httpError(402, 'billing_error'), {}, 'final', 'billing_error'],
    ['403 permission_error', httpError(403, 'permission_error'), {}, 'final', 'permission_error'],
    ['404 not_found_error', httpError(404, 'not_found_error'), {}, 'final', 'not_found_error'],
    [
      '413 request_too_large',
      httpError(413, 'request_too_large'),
      {},
      'final',
      'request_too_large',
    ],
    [
      '422 invalid_request_error',
      httpError(422, 'invalid_request_error'),
      {},
      'final',
      'invalid_request_error',
    ],
    [
      'the caller aborts (APIUserAbortError)',
      fault('silence-after-headers', {}, text('hi')),
      { abortAfterMs: 50 },
      'cancelled',
      'aborted',
    ],
  ] as const)('%s → %s', async (_name, reply, options, expectedClass, expectedKind) => {
    const error = await sdkErrorFor(reply, options);
    const classification = classifyModelError(error);
    expect(classification).toMatchObject({ class: expectedClass, kind: expectedKind });
    expect(classification.message.length).toBeGreaterThan(10);
    if (reply.fault?.kind === 'http-error') {
      expect(classification.status).toBe(reply.fault.status);
      expect(classification.requestId).toMatch(/^req_/);
      expect(classification.message).toContain(`scripted ${reply.fault.errorType}`);
    }
  });
});

describe('classifyModelError on errors built by hand', () => {
  it.each([
    [
      'muster ABORTED',
      new QueryError({ code: 'ABORTED', message: 'stop' }),
      'cancelled',
      'aborted',
    ],
    ['a bare AbortError', new DOMException('aborted', 'AbortError'), 'cancelled', 'aborted'],
    ['fetch TypeError: terminated', new TypeError('terminated'), 'retryable', 'stream_terminated'],
    [
      'STREAM_IDLE wrapped by the SDK',
      new Anthropic.AnthropicError('idle', {
        cause: new QueryError({ code: 'STREAM_IDLE', message: 'idle' }),
      }),
      'retryable',
      'STREAM_IDLE',
    ],
    ['an unrelated TypeError', new TypeError('x is not a function'), 'final', 'unknown'],
    ['a string', 'boom', 'final', 'unknown'],
    ['null', null, 'final', 'unknown'],
  ])('%s → %s %s', (_name, error, expectedClass, expectedKind) => {
    expect(classifyModelError(error)).toMatchObject({ class: expectedClass, kind: expectedKind });
  });

  it('stops on a cause chain that loops', () => {
    const first = new Error('first');
    const second = new Error('second', { cause: first });
    (first as { cause?: unknown }).cause = second;
    expect(classifyModelError(first)).toMatchObject({ class: 'final', kind: 'unknown' });
  });
});
