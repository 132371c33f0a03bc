import { afterEach, describe, expect, it } from 'vitest';
import { TEST_DOUBLE_MODEL_SUFFIX } from './scripted-model-core.js';
import { openScriptedClient, TRANSPORTS, type ScriptedClient } from './transport-test-support.js';
import type { Reply, Script } from './types.js';

const MODEL = 'claude-test-model';
const question = {
  model: MODEL,
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'Hello, double' }],
};

const parallelReply: Reply = {
  content: [
    { type: 'thinking', thinking: 'Two files to read — ünïcødé ✓ 🎉', signature: 'c2lnbmF0dXJl' },
    { type: 'text', text: 'Reading both files now. 🎉 done' },
    {
      type: 'tool_use',
      id: 'toolu_01first',
      name: 'Read',
      input: { file_path: '/tmp/a.txt', limit: 10 },
    },
    {
      type: 'tool_use',
      name: 'Read',
      input: { file_path: '/tmp/ü/b.txt', nested: { list: [1, 2, 'x'] } },
    },
  ],
};

describe.each(TRANSPORTS)('the real SDK 1.12 over the %s transport', (transport) => {
  let opened: ScriptedClient | undefined;
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
  });
  const open = async (script: Script) => {
    opened = await openScriptedClient(transport, { script });
    return opened;
  };

  it('streams text with messages.stream: finalMessage, model label, usage, request id', async () => {
    const { client, requests } = await open(() => ({
      content: [{ type: 'text', text: 'Hi! I am a script. ✓' }],
    }));
    const stream = client.messages.stream(question);
    const texts: string[] = [];
    stream.on('text', (delta) => texts.push(delta));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'Hi! I am a script. ✓' }]);
    expect(texts.join('')).toBe('Hi! I am a script. ✓');
    expect(message.model).toBe(MODEL + TEST_DOUBLE_MODEL_SUFFIX);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.id).toMatch(/^msg_01[0-9A-Za-z]{22}$/);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBe(
      Math.ceil(Buffer.byteLength('Hi! I am a script. ✓') / 4),
    );
    expect(stream.request_id).toMatch(/^req_/);
    expect(requests()).toHaveLength(1);
    expect(requests()[0]?.body.messages).toEqual(question.messages);
    expect(requests()[0]?.headers['anthropic-version']).toBe('2026-10-21');
  });

  it('streams thinking, text and parallel tool_use blocks that the accumulator rebuilds exactly', async () => {
    const { client } = await open(() => parallelReply);
    const message = await client.messages.stream(question).finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toHaveLength(4);
    expect(message.content[0]).toEqual({
      type: 'thinking',
      thinking: 'Two files to read — ünïcødé ✓ 🎉',
      signature: 'c2lnbmF0dXJl',
    });
    expect(message.content[1]).toEqual({ type: 'text', text: 'Reading both files now. 🎉 done' });
    expect(message.content[2]).toEqual({
      type: 'tool_use',
      id: 'toolu_01first',
      name: 'Read',
      input: { file_path: '/tmp/a.txt', limit: 10 },
    });
    const second = message.content[3];
    expect(second?.type).toBe('tool_use');
    if (second?.type !== 'tool_use') return;
    expect(second.id).toMatch(/^toolu_01[0-9A-Za-z]{22}$/);
    expect(second.input).toEqual({ file_path: '/tmp/ü/b.txt', nested: { list: [1, 2, 'x'] } });
  });

  it('sends raw events in strict order with input {} then input_json_delta chunks starting with ""', async () => {
    const { client } = await open(() => ({ ...parallelReply, stream: { inputJsonSplits: 5 } }));
    const stream = await client.messages.create({ ...question, stream: true });
    const events: {
      type: string;
      index?: number;
      delta?: { type: string; partial_json?: string };
      content_block?: { type: string; input?: unknown };
    }[] = [];
    for await (const event of stream) events.push(event as (typeof events)[number]);
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('message_start');
    expect(types.at(-2)).toBe('message_delta');
    expect(types.at(-1)).toBe('message_stop');
    const blockIndexes = events
      .filter((event) => event.index !== undefined)
      .map((event) => event.index);
    expect(blockIndexes).toEqual([...blockIndexes].sort((a, b) => (a ?? 0) - (b ?? 0)));
    const starts = events.filter((event) => event.type === 'content_block_start');
    expect(starts.map((event) => event.content_block?.type)).toEqual([
      'thinking',
      'text',
      'tool_use',
      'tool_use',
    ]);
    expect(starts[2]?.content_block?.input).toEqual({});
    const jsonDeltas = events.filter(
      (event) => event.index === 3 && event.delta?.type === 'input_json_delta',
    );
    expect(jsonDeltas[0]?.delta?.partial_json).toBe('');
    expect(jsonDeltas).toHaveLength(6);
    expect(JSON.parse(jsonDeltas.map((event) => event.delta?.partial_json).join(''))).toEqual({
      file_path: '/tmp/ü/b.txt',
      nested: { list: [1, 2, 'x'] },
    });
    const delta = events.at(-2) as unknown as {
      delta: { stop_reason: string };
      usage: Record<string, number>;
    };
    expect(delta.delta.stop_reason).toBe('tool_use');
    expect(Object.keys(delta.usage)).toEqual([
      'input_tokens',
      'cache_creation_input_tokens',
      'cache_read_input_tokens',
      'output_tokens',
    ]);
  });

  it('answers messages.create without stream with the same content as JSON', async () => {
    const { client } = await open(() => parallelReply);
    const message = await client.messages.create(question);
    expect(message.type).toBe('message');
    expect(message.model).toBe(MODEL + TEST_DOUBLE_MODEL_SUFFIX);
    expect(message.content.slice(0, 3)).toEqual(parallelReply.content.slice(0, 3));
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage.cache_read_input_tokens).toBe(0);
  });

  it('counts tokens with messages.countTokens exactly as the usage of the same prompt', async () => {
    const { client, requests } = await open(() => ({ content: [{ type: 'text', text: 'ok' }] }));
    const system = 'You are a careful engineer. ✓';
    const counted = await client.messages.countTokens({
      model: MODEL,
      system,
      messages: question.messages,
    });
    expect(requests()).toHaveLength(0);
    const message = await client.messages.create({ ...question, system });
    expect(counted).toEqual({ input_tokens: message.usage.input_tokens });
    // per canonical segment ⌈UTF-8 bytes / 4⌉: the system block and the message's text block
    const segment = (text: string) =>
      Math.ceil(Buffer.byteLength(JSON.stringify({ type: 'text', text })) / 4);
    expect(counted.input_tokens).toBe(segment(system) + segment('Hello, double'));
  });

  it('wakes a script waiting for another request as soon as it arrives (context.waitForRequest)', async () => {
    const { client } = await open(async (request, context) => {
      if (request.index === 0) {
        const other = await context.waitForRequest((candidate) => candidate.index === 1, {
          timeoutMs: 5000,
          pollMs: 60_000, // only the arrival notification can wake it in time
          description: 'the second request',
        });
        return { content: [{ type: 'text', text: `saw request ${other.index}` }] };
      }
      return { content: [{ type: 'text', text: 'second' }] };
    });
    const first = client.messages.stream(question).finalMessage();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await client.messages.stream(question).finalMessage();
    expect((await first).content).toEqual([{ type: 'text', text: 'saw request 1' }]);
    expect(second.content).toEqual([{ type: 'text', text: 'second' }]);
  });

  it('uses the stop reasons the script names: pause_turn, refusal, model_context_window_exceeded', async () => {
    const reasons = ['pause_turn', 'refusal', 'model_context_window_exceeded'] as const;
    const { client } = await open((request) => ({
      content: [{ type: 'text', text: 'stopping' }],
      stopReason: reasons[request.index],
    }));
    for (const reason of reasons) {
      const message = await client.messages.stream(question).finalMessage();
      expect(message.stop_reason).toBe(reason);
    }
  });
});
