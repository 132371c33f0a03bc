import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { openScriptedClient, TRANSPORTS, type ScriptedClient } from './transport-test-support.js';
import type { Fault, Script } from './types.js';

const question = {
  model: 'claude-test-model',
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'go' }],
};
const withFault =
  (fault: Fault): Script =>
  () => ({ content: [{ type: 'text', text: 'a reply long enough to be cut in half' }], fault });

describe.each(TRANSPORTS)(
  'faults on non-streaming messages.create over the %s transport',
  (transport) => {
    let opened: ScriptedClient | undefined;
    afterEach(async () => {
      await opened?.close();
      opened = undefined;
    });
    const open = async (script: Script, maxRetries = 0) => {
      opened = await openScriptedClient(transport, { script }, { maxRetries });
      return opened;
    };

    it('stream-error overloaded_error becomes HTTP 529: OverloadedError', async () => {
      const { client } = await open(
        withFault({ kind: 'stream-error', afterEvents: 3, errorType: 'overloaded_error' }),
      );
      const error = await client.messages.create(question).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.OverloadedError);
      expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    });

    it('stream-error of another type becomes its HTTP status (rate_limit_error 429, invalid_request_error 400)', async () => {
      for (const [errorType, status] of [
        ['rate_limit_error', 429],
        ['invalid_request_error', 400],
      ] as const) {
        const { client } = await open(
          withFault({ kind: 'stream-error', afterEvents: 3, errorType }),
        );
        const error = await client.messages.create(question).catch((caught: unknown) => caught);
        expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(status);
        expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe(errorType);
        await opened?.close();
        opened = undefined;
      }
    });

    it('http-error with retryAfterMs: retry-after-ms is honoured and the retry succeeds', async () => {
      const { client, requests } = await open(
        (request) =>
          request.index === 0
            ? {
                content: [],
                fault: {
                  kind: 'http-error',
                  status: 500,
                  errorType: 'api_error',
                  retryAfterMs: 10,
                },
              }
            : { content: [{ type: 'text', text: 'second try' }] },
        1,
      );
      const message = await client.messages.create(question);
      expect(message.content).toEqual([{ type: 'text', text: 'second try' }]);
      expect(requests()).toHaveLength(2);
    });

    it('pings-only delays the JSON reply, which then arrives whole', async () => {
      const { client } = await open(withFault({ kind: 'pings-only', durationMs: 50 }));
      const message = await client.messages.create(question);
      expect(message.content).toEqual([
        { type: 'text', text: 'a reply long enough to be cut in half' },
      ]);
    });

    it('socket-reset cuts the JSON body: the SDK call fails, not retried', async () => {
      const { client, requests } = await open(
        withFault({ kind: 'socket-reset', afterEvents: 0 }),
        2,
      );
      const error = await client.messages.create(question).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/terminated/);
      expect(requests()).toHaveLength(1);
    });

    it('silence-after-headers: only an abort ends the call, as a raw AbortError', async () => {
      const { client } = await open(withFault({ kind: 'silence-after-headers' }));
      const error = await client.messages
        .create(question, { signal: AbortSignal.timeout(200) })
        .catch((caught: unknown) => caught);
      // Observed with SDK 1.12.0: the abort lands while the body is read, so it is the raw DOMException.
      expect(error).not.toBeInstanceOf(Anthropic.APIUserAbortError);
      expect((error as Error).name).toBe('AbortError');
    });
  },
);
