// The model client over a real socket: the scripted model's HTTP server (a TEST DOUBLE of the
// Messages API) and Node's own fetch, so the watchdog wraps a real network body.
import { fault, startScriptedModel, text, type Script } from '@muster/scripted-model';
import { MusterError } from '@muster/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createModelClient } from './model-client.js';
import { QUESTION, recordingObserver, rejectionOf } from './model-client-test-support.js';
import type { ModelClientOptions } from './model-types.js';

const HELLO = 'Hello over HTTP';

describe('createModelClient over HTTP', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });
  const open = async (script: Script, options: ModelClientOptions = {}) => {
    const server = await startScriptedModel({ script });
    close = () => server.close();
    const client = createModelClient({
      apiKey: 'test',
      baseURL: server.url,
      retryBaseMs: 1,
      ...options,
    });
    return { client, server };
  };
  const signal = () => new AbortController().signal;

  it('a stalled stream fails with STREAM_IDLE and the server sees the connection close', async () => {
    let scriptSignal: AbortSignal | undefined;
    const { client } = await open(
      (_request, context) => {
        scriptSignal = context.signal;
        return fault('silence-after-headers', {}, text(HELLO));
      },
      { streamIdleMs: 300, streamRetries: 0 },
    );
    const error = await rejectionOf(client.stream(QUESTION, { signal: signal() }));
    expect(MusterError.hasCode(error, 'STREAM_IDLE')).toBe(true);
    await expect.poll(() => scriptSignal?.aborted, { timeout: 5_000 }).toBe(true);
  });

  it('a reset socket, an overloaded_error event and a stall in a row: retried until the reply arrives', async () => {
    const failures = [
      fault('socket-reset', { afterEvents: 3 }, text(HELLO)),
      fault('stream-error', { afterEvents: 2, errorType: 'overloaded_error' }, text(HELLO)),
      fault('silence-after-headers', {}, text(HELLO)),
    ];
    const { client, server } = await open((request) => failures[request.index] ?? text(HELLO), {
      streamIdleMs: 1_000,
    });
    const observer = recordingObserver();
    const result = await client.stream(QUESTION, { signal: signal(), observer });
    expect(result.attempts).toBe(4);
    expect(result.message.content).toEqual([{ type: 'text', text: HELLO }]);
    const kinds = observer.calls
      .filter(([name]) => name === 'retry')
      .map(([, retry]) => (retry as { kind: string }).kind);
    expect(kinds).toEqual(['stream_terminated', 'overloaded_error', 'STREAM_IDLE']);
    expect(server.requests()).toHaveLength(4);
  });

  it('pings for 3 × streamIdleMs keep a real connection alive', async () => {
    const { client } = await open(
      () => fault('pings-only', { durationMs: 1_300, intervalMs: 40 }, text(HELLO)),
      { streamIdleMs: 400, streamRetries: 0 },
    );
    const result = await client.stream(QUESTION, { signal: signal() });
    expect(result.attempts).toBe(1);
    expect(result.message.content).toEqual([{ type: 'text', text: HELLO }]);
  });
});
