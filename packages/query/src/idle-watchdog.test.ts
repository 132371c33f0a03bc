// The idle watchdog on hand-made response bodies (the SDK-level behaviour is in
// model-client.test.ts, against the scripted model).
import { MusterError } from '@muster/protocol';
import { describe, expect, it, vi } from 'vitest';
import { createIdleWatchdogFetch } from './idle-watchdog.js';
import { rejectionOf } from './model-client-test-support.js';

const IDLE_MS = 100;
const encoder = new TextEncoder();
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A body the test feeds by hand, which records whether (and why) it was cancelled. */
function handFedBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const cancelled: unknown[] = [];
  const body = new ReadableStream<Uint8Array>({
    start(given) {
      controller = given;
    },
    cancel(reason) {
      cancelled.push(reason);
    },
  });
  return {
    body,
    cancelled,
    send: (chunk: string) => controller.enqueue(encoder.encode(chunk)),
    end: () => controller.close(),
    fail: (error: unknown) => controller.error(error),
  };
}

function fetchReturning(response: Response | (() => Promise<Response>)): typeof fetch {
  return (async () => (typeof response === 'function' ? response() : response)) as typeof fetch;
}

async function readAll(response: Response): Promise<string> {
  return response.text();
}

describe('createIdleWatchdogFetch', () => {
  it('passes status, headers and every byte through while chunks keep coming (more than 3 × idle in all)', async () => {
    // Fake timers: each chunk comes 1 ms before the limit, deterministically, whatever the load.
    vi.useFakeTimers();
    try {
      const source = handFedBody();
      const watched = createIdleWatchdogFetch(
        fetchReturning(
          new Response(source.body, {
            status: 200,
            statusText: 'OK',
            headers: { 'content-type': 'text/event-stream', 'request-id': 'req_1' },
          }),
        ),
        IDLE_MS,
      );
      const response = await watched('http://scripted-model.invalid/v1/messages');
      expect(response.status).toBe(200);
      expect(response.headers.get('request-id')).toBe('req_1');
      const text = readAll(response);
      for (let index = 0; index < 8; index += 1) {
        await vi.advanceTimersByTimeAsync(IDLE_MS - 1);
        source.send(`event: ping\ndata: {"type":"ping"}\n\n`);
      }
      source.send('event: message_stop\n');
      source.end();
      const received = await text;
      expect(received.match(/event: ping/g)).toHaveLength(8);
      expect(received.endsWith('event: message_stop\n')).toBe(true);
      expect(source.cancelled).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the same body with one gap of exactly the limit fails (the check above can fail)', async () => {
    vi.useFakeTimers();
    try {
      const source = handFedBody();
      const watched = createIdleWatchdogFetch(fetchReturning(new Response(source.body)), IDLE_MS);
      const response = await watched('http://scripted-model.invalid/v1/messages');
      const text = rejectionOf(readAll(response));
      await vi.advanceTimersByTimeAsync(IDLE_MS - 1);
      source.send('ping');
      await vi.advanceTimersByTimeAsync(IDLE_MS);
      expect(MusterError.hasCode(await text, 'STREAM_IDLE')).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a body that stalls after the headers fails with STREAM_IDLE and the source is cancelled', async () => {
    const source = handFedBody();
    const watched = createIdleWatchdogFetch(fetchReturning(new Response(source.body)), IDLE_MS);
    const response = await watched('http://scripted-model.invalid/v1/messages');
    const reader = response.body!.getReader();
    source.send('event: message_start\n');
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('event: message_start\n');
    const error = await rejectionOf(reader.read());
    expect(MusterError.hasCode(error, 'STREAM_IDLE')).toBe(true);
    expect((error as Error).message).toContain(`${IDLE_MS} ms`);
    expect(source.cancelled).toHaveLength(1);
    expect(MusterError.hasCode(source.cancelled[0], 'STREAM_IDLE')).toBe(true);
  });

  it('does not watch the wait for the headers (the SDK timeout covers it)', async () => {
    const watched = createIdleWatchdogFetch(
      fetchReturning(async () => {
        await wait(IDLE_MS * 3);
        return new Response('late but whole');
      }),
      IDLE_MS,
    );
    const response = await watched('http://scripted-model.invalid/v1/messages');
    expect(await response.text()).toBe('late but whole');
  });

  it('runs only while someone waits for bytes: a reader that pauses for 3 × idle still gets the rest', async () => {
    const source = handFedBody();
    const watched = createIdleWatchdogFetch(fetchReturning(new Response(source.body)), IDLE_MS);
    const response = await watched('http://scripted-model.invalid/v1/messages');
    const reader = response.body!.getReader();
    source.send('first');
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first');
    source.send('second');
    source.end();
    await wait(IDLE_MS * 3);
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('second');
    expect((await reader.read()).done).toBe(true);
  });

  it('an abort of the request surfaces as the abort, never as STREAM_IDLE', async () => {
    const source = handFedBody();
    const controller = new AbortController();
    const watched = createIdleWatchdogFetch(fetchReturning(new Response(source.body)), IDLE_MS);
    const response = await watched('http://scripted-model.invalid/v1/messages', {
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const pending = rejectionOf(reader.read());
    controller.abort();
    await wait(IDLE_MS * 2);
    source.fail(new DOMException('This operation was aborted', 'AbortError'));
    const error = await pending;
    expect((error as Error).name).toBe('AbortError');
  });

  it('an error of the source body passes through unchanged', async () => {
    const source = handFedBody();
    const watched = createIdleWatchdogFetch(fetchReturning(new Response(source.body)), IDLE_MS);
    const response = await watched('http://scripted-model.invalid/v1/messages');
    const broken = new TypeError('terminated');
    const pending = rejectionOf(response.text());
    source.fail(broken);
    expect(await pending).toBe(broken);
  });

  it('returns a response without a body as it is', async () => {
    const original = new Response(null, { status: 204 });
    const watched = createIdleWatchdogFetch(fetchReturning(original), IDLE_MS);
    expect(await watched('http://scripted-model.invalid/')).toBe(original);
  });

  it.each([[0], [-1], [1.5], ['90000'], [Number.NaN]])(
    'refuses idleMs %j with INVALID_OPTIONS saying what it must be',
    (idleMs) => {
      let error: unknown;
      try {
        createIdleWatchdogFetch(fetch, idleMs as number);
      } catch (caught) {
        error = caught;
      }
      expect(MusterError.hasCode(error, 'INVALID_OPTIONS')).toBe(true);
      expect((error as Error).message).toContain('positive whole number of milliseconds');
    },
  );

  it('refuses a fetch that is not a function', () => {
    expect(() => createIdleWatchdogFetch('fetch' as never, IDLE_MS)).toThrow(
      /needs a fetch function/,
    );
  });
});
