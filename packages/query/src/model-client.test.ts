// The model client against the scripted model (a TEST DOUBLE of the Messages API) through the
// real @anthropic-ai/sdk 1.12.0: R1 (one streaming call per attempt, signal and maxRetries passed),
// R2 (idle watchdog), R3 at the stream level (turn-level retry) and the errors it throws.
import { getEventListeners } from 'node:events';
import { fault, text, thinking, reply, type Script } from '@muster/scripted-model';
import { MusterError } from '@muster/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import {
  QUESTION,
  openScriptedModelClient,
  recordingObserver,
  rejectionOf,
  type ScriptedModelClient,
} from './model-client-test-support.js';
import type { ModelClientOptions } from './model-types.js';
import { QueryError } from './query-error.js';

const HELLO = 'Hello from the script ✓';

describe('createModelClient: stream()', () => {
  let opened: ScriptedModelClient | undefined;
  afterEach(() => {
    opened?.scriptedFetch.stop();
    opened = undefined;
  });
  const open = (script: Script, options: Omit<ModelClientOptions, 'fetch'> = {}) => {
    opened = openScriptedModelClient(script, options);
    return opened;
  };
  const signal = () => new AbortController().signal;

  it('streams one request to its final message through messages.stream, with the text reported as it comes', async () => {
    const { client, scriptedFetch } = open(() =>
      reply({ content: [thinking('Let me think.'), HELLO] }),
    );
    const observer = recordingObserver();
    const result = await client.stream(QUESTION, { signal: signal(), observer });
    expect(result.attempts).toBe(1);
    expect(result.message.content.at(-1)).toEqual({ type: 'text', text: HELLO });
    expect(result.message.stop_reason).toBe('end_turn');
    const texts = observer.calls.filter(([name]) => name === 'text').map(([, value]) => value);
    expect(texts.join('')).toBe(HELLO);
    const thoughts = observer.calls.filter(([name]) => name === 'thinking');
    expect(thoughts.map(([, value]) => value).join('')).toBe('Let me think.');
    expect(observer.calls[0]).toEqual(['attempt', 0]);
    const [request] = scriptedFetch.requests();
    expect(request?.headers['x-stainless-helper-method']).toBe('stream');
    expect((request?.body as { stream?: boolean }).stream).toBe(true);
    expect(request?.headers.authorization).toBe('Bearer test');
  });

  it('passes maxRetries to the SDK: 0 gives one attempt at a 529, 2 gives three and then succeeds', async () => {
    const overloaded = fault('http-error', { status: 529, errorType: 'overloaded_error' });
    const none = open(() => overloaded, { maxRetries: 0 });
    const error = await rejectionOf(none.client.stream(QUESTION, { signal: signal() }));
    expect(MusterError.hasCode(error, 'RETRIES_EXHAUSTED')).toBe(true);
    expect((error as QueryError).details).toMatchObject({ kind: 'overloaded_error', status: 529 });
    expect((error as Error).message).toContain('maxRetries: 0');
    expect(none.scriptedFetch.requests()).toHaveLength(1);
    none.scriptedFetch.stop();

    const two = open(
      (request) =>
        request.index < 2
          ? fault('http-error', { status: 429, errorType: 'rate_limit_error', retryAfterMs: 1 })
          : text(HELLO),
      { maxRetries: 2 },
    );
    const result = await two.client.stream(QUESTION, { signal: signal() });
    expect(result.attempts).toBe(1); // the SDK's retries happen inside one attempt
    expect(
      two.scriptedFetch.requests().map((request) => request.headers['x-stainless-retry-count']),
    ).toEqual(['0', '1', '2']);
  });

  it.each([
    [
      'an overloaded_error event',
      fault('stream-error', { afterEvents: 4, errorType: 'overloaded_error' }, text(HELLO)),
      'overloaded_error',
    ],
    [
      'an api_error event',
      fault('stream-error', { afterEvents: 2, errorType: 'api_error' }, text(HELLO)),
      'api_error',
    ],
    ['a socket reset', fault('socket-reset', { afterEvents: 3 }, text(HELLO)), 'stream_terminated'],
    [
      'a stream without message_start',
      fault('omit-message-start', {}, text(HELLO)),
      'missing_message_start',
    ],
    [
      'a stream without message_stop',
      fault('omit-message-stop', {}, text(HELLO)),
      'missing_message_stop',
    ],
    [
      'a stream without message_delta (no stop reason)',
      fault('omit-message-delta', {}, text(HELLO)),
      'missing_stop_reason',
    ],
    [
      'a rate_limit_error event',
      fault('stream-error', { afterEvents: 2, errorType: 'rate_limit_error' }, text(HELLO)),
      'rate_limit_error',
    ],
    ['a stalled stream', fault('silence-after-headers', {}, text(HELLO)), 'STREAM_IDLE'],
  ])(
    '%s after the headers is retried at the turn level and the retry succeeds',
    async (_name, broken, kind) => {
      const { client, scriptedFetch } = open(
        (request) => (request.index === 0 ? broken : text(HELLO)),
        {
          streamIdleMs: 1_000,
          maxRetries: 2,
        },
      );
      const observer = recordingObserver();
      const result = await client.stream(QUESTION, { signal: signal(), observer });
      expect(result.attempts).toBe(2);
      expect(result.message.content).toEqual([{ type: 'text', text: HELLO }]);
      const retries = observer.calls.filter(([name]) => name === 'retry').map(([, value]) => value);
      expect(retries).toEqual([expect.objectContaining({ attempt: 1, kind })]);
      expect(observer.calls.filter(([name]) => name === 'attempt')).toEqual([
        ['attempt', 0],
        ['attempt', 1],
      ]);
      // The SDK did not retry it itself: exactly two requests, each a first SDK attempt.
      expect(
        scriptedFetch.requests().map((request) => request.headers['x-stainless-retry-count']),
      ).toEqual(['0', '0']);
    },
  );

  it('a stream of only pings for 3 × streamIdleMs is not abandoned (pings count as bytes)', async () => {
    const { client } = open(
      () => fault('pings-only', { durationMs: 1_300, intervalMs: 40 }, text(HELLO)),
      {
        streamIdleMs: 400,
      },
    );
    const observer = recordingObserver();
    const result = await client.stream(QUESTION, { signal: signal(), observer });
    expect(result.attempts).toBe(1);
    expect(observer.calls.filter(([name]) => name === 'retry')).toEqual([]);
    expect(result.message.content).toEqual([{ type: 'text', text: HELLO }]);
  });

  it('a stall with turn-level retries off fails with STREAM_IDLE (the SDK alone would wait for ever)', async () => {
    let scriptSignal: AbortSignal | undefined;
    const { client } = open(
      (_request, context) => {
        scriptSignal = context.signal;
        return fault('silence-after-headers', {}, text(HELLO));
      },
      { streamIdleMs: 200, streamRetries: 0 },
    );
    const error = await rejectionOf(client.stream(QUESTION, { signal: signal() }));
    expect(error).toBeInstanceOf(QueryError);
    expect((error as QueryError).code).toBe('STREAM_IDLE');
    expect((error as Error).message).toContain('200 ms');
    // The watchdog released the connection: the server side saw the client go.
    await expect.poll(() => scriptSignal?.aborted, { timeout: 5_000 }).toBe(true);
  });

  it('retryable failures past streamRetries end with RETRIES_EXHAUSTED naming each failure', async () => {
    const { client, scriptedFetch } = open(
      () => fault('stream-error', { afterEvents: 3, errorType: 'overloaded_error' }, text(HELLO)),
      { streamRetries: 2 },
    );
    const observer = recordingObserver();
    const error = await rejectionOf(client.stream(QUESTION, { signal: signal(), observer }));
    expect(MusterError.hasCode(error, 'RETRIES_EXHAUSTED')).toBe(true);
    expect((error as QueryError).details).toMatchObject({
      attempts: 3,
      streamRetries: 2,
      kinds: ['overloaded_error', 'overloaded_error', 'overloaded_error'],
    });
    expect((error as Error).message).toMatch(/failed 3 times .*streamRetries/);
    expect(observer.calls.filter(([name]) => name === 'retry')).toHaveLength(2);
    expect(scriptedFetch.requests()).toHaveLength(3);
  });

  it('an invalid_request_error event in the stream is final: MODEL_REQUEST_REFUSED, not retried', async () => {
    const { client, scriptedFetch } = open(() =>
      fault('stream-error', {
        afterEvents: 3,
        errorType: 'invalid_request_error',
        message: 'scripted: the prompt is too long',
      }),
    );
    const error = await rejectionOf(client.stream(QUESTION, { signal: signal() }));
    expect(MusterError.hasCode(error, 'MODEL_REQUEST_REFUSED')).toBe(true);
    expect((error as QueryError).details).toMatchObject({
      type: 'invalid_request_error',
      apiMessage: 'scripted: the prompt is too long',
    });
    expect(scriptedFetch.requests()).toHaveLength(1);
  });

  it('a broken stream with streamRetries 0 is STREAM_FAILED, not retried', async () => {
    const { client, scriptedFetch } = open(
      () => fault('socket-reset', { afterEvents: 3 }, text(HELLO)),
      {
        streamRetries: 0,
      },
    );
    const error = await rejectionOf(client.stream(QUESTION, { signal: signal() }));
    expect(MusterError.hasCode(error, 'STREAM_FAILED')).toBe(true);
    expect((error as QueryError).details).toMatchObject({ kind: 'stream_terminated' });
    expect(scriptedFetch.requests()).toHaveLength(1);
  });

  it.each([
    [400, 'invalid_request_error', 'Fix the request'],
    [401, 'authentication_error', 'ANTHROPIC_API_KEY'],
    [403, 'permission_error', 'permissions'],
    [404, 'not_found_error', 'model id'],
    [413, 'request_too_large', 'compact'],
    [422, 'invalid_request_error', 'Fix the request'],
  ])(
    '%i %s is final: MODEL_REQUEST_REFUSED with status, type, request id and message, never retried',
    async (status, errorType, advice) => {
      const { client, scriptedFetch } = open(
        () => fault('http-error', { status, errorType, message: `scripted ${status}` }),
        { maxRetries: 2 },
      );
      const observer = recordingObserver();
      const error = await rejectionOf(client.stream(QUESTION, { signal: signal(), observer }));
      expect(MusterError.hasCode(error, 'MODEL_REQUEST_REFUSED')).toBe(true);
      expect((error as QueryError).details).toMatchObject({
        status,
        type: errorType,
        apiMessage: `scripted ${status}`,
        requestId: expect.stringMatching(/^req_/),
      });
      expect((error as Error).message).toContain(`scripted ${status}`);
      expect((error as Error).message).toContain(advice);
      expect(scriptedFetch.requests()).toHaveLength(1);
      expect(observer.calls.filter(([name]) => name === 'retry')).toEqual([]);
    },
  );

  it('aborting the signal mid-stream ends with ABORTED at once, and the server sees the client go', async () => {
    let scriptSignal: AbortSignal | undefined;
    const { client } = open((_request, context) => {
      scriptSignal = context.signal;
      return fault('silence-after-headers', {}, text(HELLO));
    });
    const controller = new AbortController();
    const pending = client.stream(QUESTION, { signal: controller.signal });
    await expect.poll(() => scriptSignal, { timeout: 5_000 }).toBeDefined();
    controller.abort('the user pressed Escape');
    const error = await rejectionOf(pending);
    expect(MusterError.hasCode(error, 'ABORTED')).toBe(true);
    expect((error as Error).message).toContain('the user pressed Escape');
    await expect.poll(() => scriptSignal?.aborted, { timeout: 5_000 }).toBe(true);
  });

  it('aborting during the backoff before a retry ends with ABORTED without another request', async () => {
    const controller = new AbortController();
    const { client, scriptedFetch } = open(
      () => fault('stream-error', { afterEvents: 3, errorType: 'overloaded_error' }, text(HELLO)),
      { retryBaseMs: 8_000 },
    );
    const error = await rejectionOf(
      client.stream(QUESTION, {
        signal: controller.signal,
        observer: { onRetry: () => setTimeout(() => controller.abort(), 10) },
      }),
    );
    expect(MusterError.hasCode(error, 'ABORTED')).toBe(true);
    expect(scriptedFetch.requests()).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    const { client, scriptedFetch } = open(() => text(HELLO));
    const error = await rejectionOf(client.stream(QUESTION, { signal: AbortSignal.abort() }));
    expect(MusterError.hasCode(error, 'ABORTED')).toBe(true);
    expect(scriptedFetch.requests()).toHaveLength(0);
  });

  it('an observer that throws ends the request and its error reaches the caller unchanged', async () => {
    const { client, scriptedFetch } = open(() => text(HELLO));
    const broken = new Error('the UI crashed');
    const error = await rejectionOf(
      client.stream(QUESTION, {
        signal: signal(),
        observer: {
          onText: () => {
            throw broken;
          },
        },
      }),
    );
    expect(error).toBe(broken);
    expect(scriptedFetch.requests()).toHaveLength(1);
  });

  it('200 requests on one long-lived signal leave no abort listener on it', async () => {
    const { client } = open(() => text('ok'));
    const lifecycle = new AbortController();
    const before = getEventListeners(lifecycle.signal, 'abort').length;
    for (let index = 0; index < 200; index += 1) {
      await client.stream(QUESTION, { signal: lifecycle.signal });
    }
    expect(getEventListeners(lifecycle.signal, 'abort').length).toBe(before);
  });

  it('refuses a call without a signal or with a malformed request, saying what to pass', async () => {
    const { client, scriptedFetch } = open(() => text(HELLO));
    const noSignal = await rejectionOf(client.stream(QUESTION, {} as never));
    expect(MusterError.hasCode(noSignal, 'INVALID_OPTIONS')).toBe(true);
    expect((noSignal as Error).message).toContain('signal');
    const noModel = await rejectionOf(
      client.stream({ ...QUESTION, model: '' }, { signal: signal() }),
    );
    expect((noModel as Error).message).toContain('params.model');
    const noTokens = await rejectionOf(
      client.stream({ ...QUESTION, max_tokens: 0 }, { signal: signal() }),
    );
    expect((noTokens as Error).message).toContain('max_tokens');
    expect(scriptedFetch.requests()).toHaveLength(0);
  });
});
