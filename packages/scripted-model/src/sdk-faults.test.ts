import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { UNKNOWN_EVENT_NAME } from './stream-frames.js';
import {
  CLAUDE_CODE_HEADERS,
  openScriptedClient,
  TRANSPORTS,
  type ScriptedClient,
} from './transport-test-support.js';
import type { Fault, Reply, Script, StreamShape } from './types.js';

const question = {
  model: 'claude-test-model',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'go' }],
};
const hello: Reply = {
  content: [{ type: 'text', text: 'Hello from the script: ünïcødé ✓ 🎉 日本語' }],
};
const withFault =
  (fault: Fault, reply: Reply = hello): Script =>
  () => ({ ...reply, fault });
const withShape =
  (stream: StreamShape, reply: Reply = hello): Script =>
  () => ({ ...reply, stream });

describe.each(TRANSPORTS)('faults seen by the real SDK 1.12 over the %s transport', (transport) => {
  let opened: ScriptedClient | undefined;
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
  });
  const open = async (script: Script, maxRetries = 0) => {
    opened = await openScriptedClient(transport, { script }, { maxRetries });
    return opened;
  };
  const rawStream = async (client: ScriptedClient): Promise<string> => {
    const response = await client.rawFetch(client.baseURL + '/v1/messages', {
      method: 'POST',
      headers: CLAUDE_CODE_HEADERS,
      body: JSON.stringify({ ...question, stream: true }),
    });
    return response.text();
  };

  it('429 with retry-after, then OK: the SDK retries (x-stainless-retry-count 0, 1, 2) and succeeds', async () => {
    const { client, requests } = await open(
      (request) =>
        request.index < 2
          ? {
              content: [],
              fault: {
                kind: 'http-error',
                status: 429,
                errorType: 'rate_limit_error',
                retryAfterSeconds: 0.05,
              },
            }
          : hello,
      2,
    );
    const message = await client.messages.stream(question).finalMessage();
    expect(message.content).toEqual(hello.content);
    expect(requests().map((request) => request.headers['x-stainless-retry-count'])).toEqual([
      '0',
      '1',
      '2',
    ]);
  });

  it('529 with x-should-retry: false: OverloadedError after exactly one attempt', async () => {
    const { client, requests } = await open(
      withFault({
        kind: 'http-error',
        status: 529,
        errorType: 'overloaded_error',
        shouldRetry: false,
      }),
      2,
    );
    const error = await client.messages.create(question).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
    expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe('overloaded_error');
    expect((error as InstanceType<typeof Anthropic.APIError>).requestID).toMatch(/^req_/);
    expect(requests()).toHaveLength(1);
  });

  it.each(['overloaded_error', 'api_error'] as const)(
    'event: error %s after 4 events: APIError with that type, status undefined',
    async (errorType) => {
      const { client, requests } = await open(
        withFault({ kind: 'stream-error', afterEvents: 4, errorType }),
        2,
      );
      const stream = client.messages.stream(question);
      const error = await stream.finalMessage().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      expect((error as InstanceType<typeof Anthropic.APIError>).status).toBeUndefined();
      expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe(errorType);
      expect(requests()).toHaveLength(1);
    },
  );

  // Observed with SDK 1.12.0: after the headers, a reset surfaces as fetch's `TypeError: terminated`,
  // which MessageStream wraps into AnthropicError("terminated") (not APIConnectionError); never retried.
  it('a socket reset inside a block: AnthropicError "terminated" from messages.stream, not retried', async () => {
    const { client, requests } = await open(withFault({ kind: 'socket-reset', afterEvents: 4 }), 2);
    const error = await client.messages
      .stream(question)
      .finalMessage()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AnthropicError);
    expect(error).not.toBeInstanceOf(Anthropic.APIError);
    expect((error as Error).message).toBe('terminated');
    const raw = await (async () => {
      for await (const _event of await client.messages.create({ ...question, stream: true }))
        void _event;
    })().catch((caught: unknown) => caught);
    expect(raw).toBeInstanceOf(TypeError);
    expect((raw as Error).message).toBe('terminated');
    expect(requests()).toHaveLength(2);
  });

  it('silence after the headers: the SDK waits until the client aborts (APIUserAbortError), the script sees the abort', async () => {
    let scriptSignal: AbortSignal | undefined;
    const { client } = await open((_request, context) => {
      scriptSignal = context.signal;
      return { ...hello, fault: { kind: 'silence-after-headers' } };
    });
    const stream = client.messages.stream(question, { signal: AbortSignal.timeout(300) });
    const error = await stream.finalMessage().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIUserAbortError);
    await expect.poll(() => scriptSignal?.aborted, { timeout: 2000 }).toBe(true);
  });

  it('pings only for a while, then the normal reply', async () => {
    const client = await open(withFault({ kind: 'pings-only', durationMs: 200, intervalMs: 40 }));
    const message = await client.client.messages.stream(question).finalMessage();
    expect(message.content).toEqual(hello.content);
    const text = await rawStream(client);
    expect(text.match(/event: ping\n/g)?.length).toBeGreaterThanOrEqual(2); // at least one before message_start, one after
    expect(text.indexOf('event: message_start')).toBeGreaterThan(text.indexOf('event: ping'));
  });

  it('no message_start: AnthropicError "request ended without sending any chunks"', async () => {
    const { client } = await open(withFault({ kind: 'omit-message-start' }));
    const error = await client.messages
      .stream(question)
      .finalMessage()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AnthropicError);
    expect((error as Error).message).toContain('request ended without sending any chunks');
  });

  it('no message_stop: AnthropicError from messages.stream, a silently shorter iterator from messages.create', async () => {
    const { client } = await open(withFault({ kind: 'omit-message-stop' }));
    const error = await client.messages
      .stream(question)
      .finalMessage()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AnthropicError);
    expect((error as Error).message).toContain(
      'stream ended without producing a Message with role=assistant',
    );
    const types: string[] = [];
    for await (const event of await client.messages.create({ ...question, stream: true }))
      types.push(event.type);
    expect(types.at(-1)).toBe('message_delta');
  });

  it('event: error of any API type (rate_limit_error, invalid_request_error): APIError with that type', async () => {
    for (const errorType of ['rate_limit_error', 'invalid_request_error']) {
      const { client } = await open(withFault({ kind: 'stream-error', afterEvents: 3, errorType }));
      const error = await client.messages
        .stream(question)
        .finalMessage()
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      expect((error as InstanceType<typeof Anthropic.APIError>).status).toBeUndefined();
      expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe(errorType);
      await opened?.close();
      opened = undefined;
    }
  });

  it('no message_delta: messages.stream resolves a message whose stop_reason is null', async () => {
    const { client } = await open(withFault({ kind: 'omit-message-delta' }));
    const message = await client.messages.stream(question).finalMessage();
    expect(message.content).toEqual(hello.content);
    expect(message.stop_reason).toBeNull();
  });

  it('max_tokens inside a tool_use: stop_reason max_tokens and the truncated input keeps only complete fields', async () => {
    const reply: Reply = {
      content: [
        { type: 'text', text: 'Writing it.' },
        {
          type: 'tool_use',
          id: 'toolu_01cut',
          name: 'Write',
          input: { path: '/etc/passwd.bak', content: 'line1\nline2\nline3' },
        },
      ],
    };
    const { client } = await open(
      withFault({ kind: 'max-tokens-in-tool-use', keepInputBytes: 40 }, reply),
    );
    for (const message of [
      await client.messages.stream(question).finalMessage(),
      await client.messages.create(question),
    ]) {
      expect(message.stop_reason).toBe('max_tokens');
      expect(message.content[1]).toEqual({
        type: 'tool_use',
        id: 'toolu_01cut',
        name: 'Write',
        input: { path: '/etc/passwd.bak' },
      });
    }
  });

  it('1–3-byte chunks, CRLF lines, UTF-8 split across chunks and latency per chunk: the same message', async () => {
    const client = await open(
      withShape({ chunkBytes: { min: 1, max: 3 }, lineEnding: 'crlf', latencyPerChunkMs: 1 }),
    );
    const message = await client.client.messages.stream(question).finalMessage();
    expect(message.content).toEqual(hello.content);
    const text = await rawStream(client);
    expect(text).toContain('event: message_start\r\ndata: ');
    expect(text).not.toMatch(/[^\r]\n/);
  });

  it('delivers at most 3 bytes per chunk so multi-byte characters are split', async () => {
    if (transport === 'http') return; // TCP may merge chunks; the fetch body keeps each chunk.
    const client = await open(withShape({ chunkBytes: { min: 1, max: 3 } }));
    const response = await client.rawFetch(client.baseURL + '/v1/messages', {
      method: 'POST',
      headers: CLAUDE_CODE_HEADERS,
      body: JSON.stringify({ ...question, stream: true }),
    });
    const sizes: number[] = [];
    let splitCharacter = false;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      sizes.push(chunk.length);
      const last = chunk[chunk.length - 1] ?? 0;
      if (last >= 0xc0) splitCharacter = true;
    }
    expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
    expect(splitCharacter).toBe(true);
  });

  it('unknown event names and extra pings are ignored by the accumulator and passed on by the raw iterator', async () => {
    const { client } = await open(withShape({ unknownEvents: true, pingEveryEvents: 2 }));
    const message = await client.messages.stream(question).finalMessage();
    expect(message.content).toEqual(hello.content);
    const types: string[] = [];
    for await (const event of await client.messages.create({ ...question, stream: true }))
      types.push(event.type);
    expect(types).toContain(UNKNOWN_EVENT_NAME);
    expect(types).not.toContain('ping');
  });
});
