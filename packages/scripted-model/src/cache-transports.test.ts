import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createPromptCache } from './prompt-cache.js';
import { conversationBody, markLastBlock } from './prompt-cache-test-support.js';
import { createRequestLog, type RequestLog } from './request-log.js';
import { openScriptedClient, TRANSPORTS, type ScriptedClient } from './transport-test-support.js';
import type { Script } from './types.js';

type StreamParams = Anthropic.MessageStreamParams;
const totalInput = (usage: Anthropic.Usage): number =>
  usage.input_tokens +
  (usage.cache_creation_input_tokens ?? 0) +
  (usage.cache_read_input_tokens ?? 0);
const turn = (text: string): StreamParams =>
  conversationBody(markLastBlock([{ role: 'user', content: text }])) as unknown as StreamParams;
const followUp = (first: string, answer: string, second: string): StreamParams =>
  conversationBody(
    markLastBlock([
      { role: 'user', content: first },
      { role: 'assistant', content: answer },
      { role: 'user', content: second },
    ]),
  ) as unknown as StreamParams;

describe.each(TRANSPORTS)('prompt-cache usage through the %s transport', (transport) => {
  let opened: ScriptedClient | undefined;
  let log: RequestLog | undefined;
  afterEach(async () => {
    await opened?.close();
    await log?.close();
    opened = undefined;
  });
  const open = async (script: Script) => {
    log = createRequestLog();
    opened = await openScriptedClient(transport, { script, cache: createPromptCache(), log });
    return opened;
  };

  it('reads the shared prefix once an earlier request sent message_start, and logs hashes and usage', async () => {
    const { client } = await open(() => ({ content: [{ type: 'text', text: 'ok' }] }));
    const first = await client.messages.stream(turn('first question')).finalMessage();
    const second = await client.messages
      .stream(followUp('first question', 'ok', 'second question'))
      .finalMessage();
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(1024);
    expect(second.usage.cache_read_input_tokens).toBeGreaterThan(1024);
    expect(second.usage.cache_read_input_tokens).toBe(totalInput(first.usage));
    const records = log!.records();
    expect(records.map((record) => record.status)).toEqual([200, 200]);
    expect(records[0]?.toolsSystemHash).toBe(records[1]?.toolsSystemHash);
    expect(records[0]?.breakpointHashes).toHaveLength(1);
    expect(records[1]?.usage.cache_read_input_tokens).toBe(second.usage.cache_read_input_tokens);
    expect(records[1]?.stopReason).toBe('end_turn');
  });

  it('three requests in flight at once read nothing from each other; the next one reads', async () => {
    const { client } = await open(async (request, context) => {
      if (request.index < 3) {
        await context.waitFor(() => context.requests.length >= 3, {
          timeoutMs: 5000,
          description: 'three requests in flight',
        });
      }
      return { content: [{ type: 'text', text: `reply ${request.index}` }] };
    });
    const parallel = await Promise.all(
      [0, 1, 2].map(() => client.messages.stream(turn('same question')).finalMessage()),
    );
    expect(parallel.map((message) => message.usage.cache_read_input_tokens)).toEqual([0, 0, 0]);
    const after = await client.messages.stream(turn('same question')).finalMessage();
    expect(after.usage.cache_read_input_tokens).toBe(totalInput(after.usage));
  });

  it('a fifth cache breakpoint is a 400 invalid_request_error from the cache, before the script runs', async () => {
    let ran = false;
    const { client } = await open(() => {
      ran = true;
      return { content: [{ type: 'text', text: 'never' }] };
    });
    const blocks = [1, 2, 3, 4, 5].map((n) => ({
      type: 'text' as const,
      text: `part ${n}`,
      cache_control: { type: 'ephemeral' as const },
    }));
    const error = await client.messages
      .create({
        model: 'claude-test-model',
        max_tokens: 10,
        messages: [{ role: 'user', content: blocks }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe('invalid_request_error');
    expect(ran).toBe(false);
  });
});
