// ModelClient.countTokens against the scripted model (a TEST DOUBLE of the Messages API) through
// the real @anthropic-ai/sdk 1.12.0.
import { text } from '@muster/scripted-model';
import { MusterError } from '@muster/protocol';
import { describe, expect, it } from 'vitest';
import { openScriptedModelClient, QUESTION, rejectionOf } from './model-client-test-support.js';
import type { QueryError } from './query-error.js';

const COUNT = { model: QUESTION.model, messages: QUESTION.messages };

describe('createModelClient: countTokens()', () => {
  it('answers count_tokens with the prompt tokens a reply to the same prompt is billed', async () => {
    const { client, scriptedFetch } = openScriptedModelClient(() => text('Hello'));
    try {
      const tokens = await client.countTokens(COUNT, { signal: new AbortController().signal });
      expect(Number.isInteger(tokens)).toBe(true);
      expect(tokens).toBeGreaterThan(0);
      const { message } = await client.stream(QUESTION, { signal: new AbortController().signal });
      expect(tokens).toBe(message.usage.input_tokens);
    } finally {
      scriptedFetch.stop();
    }
  });

  it('a refusal is MODEL_REQUEST_REFUSED with the status and the API message, not retried', async () => {
    // The scripted model refuses an unknown anthropic-version with 400 on every path.
    const { client, scriptedFetch } = openScriptedModelClient(() => text('Hello'), {
      maxRetries: 2,
      defaultHeaders: { 'anthropic-version': '1999-01-01' },
    });
    try {
      const error = await rejectionOf(
        client.countTokens(COUNT, { signal: new AbortController().signal }),
      );
      expect(MusterError.hasCode(error, 'MODEL_REQUEST_REFUSED')).toBe(true);
      expect((error as QueryError).details).toMatchObject({
        status: 400,
        type: 'invalid_request_error',
      });
      expect((error as Error).message).toContain('anthropic-version');
      expect((error as Error).message).toContain('Fix the request');
    } finally {
      scriptedFetch.stop();
    }
  });

  it('an aborted signal is ABORTED and a call without a signal is refused', async () => {
    const { client, scriptedFetch } = openScriptedModelClient(() => text('Hello'));
    try {
      const aborted = await rejectionOf(client.countTokens(COUNT, { signal: AbortSignal.abort() }));
      expect(MusterError.hasCode(aborted, 'ABORTED')).toBe(true);
      const unsigned = await rejectionOf(client.countTokens(COUNT, {} as never));
      expect(MusterError.hasCode(unsigned, 'INVALID_OPTIONS')).toBe(true);
      expect((unsigned as Error).message).toContain('signal');
    } finally {
      scriptedFetch.stop();
    }
  });
});
