import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { ConversationMessage } from './agent-types.js';
import {
  buildRequest,
  INTERMEDIATE_BREAKPOINT_BLOCKS,
  type BreakpointState,
} from './request-builder.js';
import { renderSystem, renderTools } from './request-builder-render.js';
import { z } from 'zod';

const tools = renderTools([
  {
    name: 'Read',
    description: 'Reads a file.',
    inputSchema: z.strictObject({ file_path: z.string() }),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    call: async () => ({ content: '' }),
  },
]);
const system = renderSystem([
  { type: 'text', text: 'You are a test agent.' },
  { type: 'text', text: 'Be brief.' },
]);

function deepFreeze<Value>(value: Value): Value {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Every `[where, block]` that carries cache_control in a request. */
function markersOf(params: Anthropic.MessageCreateParamsNonStreaming): string[] {
  const found: string[] = [];
  (params.tools ?? []).forEach((tool, index) => {
    if ('cache_control' in tool && tool.cache_control) found.push(`tools[${index}]`);
  });
  (params.system as Anthropic.TextBlockParam[] | undefined)?.forEach((block, index) => {
    if (block.cache_control) found.push(`system[${index}]`);
  });
  params.messages.forEach((message, messageIndex) => {
    if (typeof message.content === 'string') return;
    message.content.forEach((block, blockIndex) => {
      if ('cache_control' in block && block.cache_control)
        found.push(`messages[${messageIndex}].content[${blockIndex}]`);
    });
  });
  return found;
}

/** A conversation of `exchanges` tool round trips after a first prompt, each with `calls` parallel calls. */
function conversation(exchanges: number, calls = 1): ConversationMessage[] {
  const messages: ConversationMessage[] = [{ role: 'user', content: 'Start.' }];
  for (let exchange = 0; exchange < exchanges; exchange += 1) {
    const ids = Array.from({ length: calls }, (_unused, call) => `toolu_${exchange}_${call}`);
    messages.push({
      role: 'assistant',
      content: ids.map((id) => ({ type: 'tool_use', id, name: 'Read', input: { file_path: id } })),
    });
    messages.push({
      role: 'user',
      content: ids.map((id) => ({
        type: 'tool_result',
        tool_use_id: id,
        content: `contents of ${id}`,
      })),
    });
  }
  return messages;
}

describe('buildRequest', () => {
  it('marks the last system block and the last block of the newest user message, and changes nothing it is given', () => {
    const messages = deepFreeze(conversation(2, 2));
    const before = JSON.stringify({ messages, system, tools });
    const { params, breakpoints } = buildRequest({
      model: 'm',
      maxTokens: 100,
      system,
      tools,
      messages,
    });
    expect(markersOf(params)).toEqual(['system[1]', 'messages[4].content[1]']);
    expect(JSON.stringify({ messages, system, tools })).toBe(before);
    expect(params.system).not.toBe(system);
    expect(params.tools).toEqual(tools);
    // Unmarked messages are passed by reference; the marked one is a copy.
    expect(params.messages[1]).toBe(messages[1]);
    expect(params.messages[4]).not.toBe(messages[4]);
    expect(breakpoints).toEqual({ lastMessageBlock: 8, messageBlocks: 9 });
    expect(params).toMatchObject({ model: 'm', max_tokens: 100 });
  });

  it('turns a string user message into one marked text block', () => {
    const { params } = buildRequest({
      model: 'm',
      maxTokens: 10,
      system,
      tools,
      messages: [{ role: 'user', content: 'Hello there' }],
    });
    expect(params.messages[0]!.content).toEqual([
      { type: 'text', text: 'Hello there', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('uses the given TTL on every marker', () => {
    const { params } = buildRequest({
      model: 'm',
      maxTokens: 10,
      system,
      tools,
      messages: conversation(1),
      cacheTtl: '1h',
    });
    expect(JSON.stringify(params).match(/"ttl":"1h"/g)).toHaveLength(2);
  });

  it('adds an intermediate breakpoint when more than 15 blocks were appended since the previous one', () => {
    const first = buildRequest({
      model: 'm',
      maxTokens: 10,
      system,
      tools,
      messages: conversation(1),
    });
    // 10 parallel calls: 20 blocks appended after the previous tail.
    const messages = conversation(1).concat(conversation(1, 10).slice(1));
    const second = buildRequest({
      model: 'm',
      maxTokens: 10,
      system,
      tools,
      messages,
      previousBreakpoints: first.breakpoints,
    });
    const previous = first.breakpoints.lastMessageBlock;
    expect(second.breakpoints.lastMessageBlock - previous).toBeGreaterThan(
      INTERMEDIATE_BREAKPOINT_BLOCKS,
    );
    expect(markersOf(second.params)).toHaveLength(3);
    // Block previous+15 is the 15th appended: assistant has 10 tool_use (3..12), results 13..22.
    expect(markersOf(second.params)).toEqual([
      'system[1]',
      'messages[4].content[4]',
      'messages[4].content[9]',
    ]);
    // Few blocks appended: no intermediate marker.
    const third = buildRequest({
      model: 'm',
      maxTokens: 10,
      system,
      tools,
      messages: messages.concat(conversation(1).slice(1)),
      previousBreakpoints: second.breakpoints,
    });
    expect(markersOf(third.params)).toHaveLength(2);
  });

  it('ignores a previous state that does not fit the conversation (after compaction)', () => {
    const stale: BreakpointState = { lastMessageBlock: 40, messageBlocks: 41 };
    const { params } = buildRequest({
      model: 'm',
      maxTokens: 10,
      system,
      tools,
      messages: conversation(12),
      previousBreakpoints: stale,
    });
    expect(markersOf(params)).toHaveLength(2);
  });

  it('never marks thinking or empty text blocks, and drops markers its inputs carry', () => {
    const marked = { type: 'ephemeral' } as const;
    const messages: ConversationMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'old', cache_control: marked }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'text', text: 'ok', cache_control: marked },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'next' },
          { type: 'text', text: '' },
        ],
      },
    ];
    const { params } = buildRequest({
      model: 'm',
      maxTokens: 10,
      system: [{ type: 'text', text: 's', cache_control: marked }, ...system],
      tools: [{ ...tools[0]!, cache_control: marked }],
      messages,
    });
    expect(markersOf(params)).toEqual(['system[2]', 'messages[2].content[0]']);
    expect(messages[0]!.content).toEqual([{ type: 'text', text: 'old', cache_control: marked }]);
  });

  it('marks the last tool when there is no system prompt, and leaves out empty fields', () => {
    const { params } = buildRequest({
      model: 'm',
      maxTokens: 10,
      system: [],
      tools,
      messages: conversation(0),
    });
    expect(markersOf(params)).toEqual(['tools[0]', 'messages[0].content[0]']);
    expect(Object.isFrozen(tools[0])).toBe(true);
    const bare = buildRequest({
      model: 'm',
      maxTokens: 10,
      system: [],
      tools: [],
      messages: conversation(0),
    });
    expect(Object.keys(bare.params)).toEqual(['model', 'max_tokens', 'messages']);
  });

  it('refuses bad input with a message saying what is wrong', () => {
    const good = { model: 'm', maxTokens: 10, system, tools, messages: conversation(0) };
    expect(() => buildRequest({ ...good, model: '' })).toThrow(/model must be a non-empty/);
    expect(() => buildRequest({ ...good, maxTokens: 0 })).toThrow(
      /maxTokens must be a positive integer, got 0/,
    );
    expect(() => buildRequest({ ...good, messages: [] })).toThrow(
      /messages must be a non-empty array/,
    );
    expect(() =>
      buildRequest({
        ...good,
        messages: [{ role: 'robot', content: 'x' } as unknown as ConversationMessage],
      }),
    ).toThrow(/messages\[0\] is not a message/);
    expect(() => buildRequest({ ...good, cacheTtl: '2h' as '1h' })).toThrow(
      /cacheTtl must be "5m" or "1h"/,
    );
    expect(() =>
      buildRequest({ ...good, skipTailMarker: true as unknown as () => boolean }),
    ).toThrow(/skipTailMarker must be a function/);
  });

  it('puts the tail marker before the blocks skipTailMarker names (a fork directive), or nowhere when all are skipped', () => {
    const messages = conversation(1, 2);
    const last = messages[messages.length - 1]!;
    const directive = { type: 'text' as const, text: 'DIRECTIVE' };
    messages[messages.length - 1] = {
      role: 'user',
      content: [...(last.content as Anthropic.ContentBlockParam[]), directive],
    };
    const skip = (block: unknown) => block === directive;
    const built = buildRequest({
      model: 'm',
      maxTokens: 10,
      system,
      tools,
      messages,
      skipTailMarker: skip,
    });
    expect(markersOf(built.params)).toEqual(['system[1]', 'messages[2].content[1]']);
    const alone = buildRequest({
      model: 'm',
      maxTokens: 10,
      system,
      tools,
      messages: [{ role: 'user', content: [directive] }],
      skipTailMarker: skip,
    });
    expect(markersOf(alone.params)).toEqual(['system[1]']);
  });
});
