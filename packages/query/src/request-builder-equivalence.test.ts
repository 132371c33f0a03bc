// buildRequest walks the conversation once without allocating per block. This test keeps the
// straightforward version it replaced (every block's position listed, then marked) as a
// reference and checks both give the same request and breakpoints on many generated
// conversations: user and assistant messages, string content, empty arrays, thinking and empty
// text blocks (which cannot carry a marker), markers already present, with and without the
// previous request's breakpoints.
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { ConversationMessage } from './agent-types.js';
import {
  buildRequest,
  INTERMEDIATE_BREAKPOINT_BLOCKS,
  type BreakpointState,
  type BuildRequestInput,
} from './request-builder.js';

type Block = Anthropic.ContentBlockParam;

function canCarryMarker(block: Block | string): boolean {
  if (typeof block === 'string') return block !== '';
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  if (block.type === 'text') return block.text !== '';
  return true;
}
const hasMarker = (block: unknown) =>
  typeof block === 'object' && block !== null && 'cache_control' in block;
function withoutMarker<Value extends object>(block: Value): Value {
  if (!hasMarker(block)) return block;
  const { cache_control: _marker, ...rest } = block as Value & { cache_control?: unknown };
  return rest as Value;
}
const blocksOf = (message: ConversationMessage): ReadonlyArray<Block | string> =>
  typeof message.content === 'string' ? [message.content] : message.content;

/** The messages and breakpoints of the previous implementation. */
function referenceMessages(input: BuildRequestInput): {
  messages: ConversationMessage[];
  breakpoints: BreakpointState;
} {
  const marker = input.cacheTtl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const positions: Array<{ message: number; block: number }> = [];
  const starts: number[] = [];
  input.messages.forEach((message, messageIndex) => {
    starts.push(positions.length);
    blocksOf(message).forEach((_block, blockIndex) =>
      positions.push({ message: messageIndex, block: blockIndex }),
    );
  });
  const blockAt = (flat: number) => {
    const position = positions[flat]!;
    return blocksOf(input.messages[position.message]!)[position.block]!;
  };
  const marked = new Set<number>();
  let tail = -1;
  for (let flat = positions.length - 1; flat >= 0; flat -= 1) {
    if (input.messages[positions[flat]!.message]!.role !== 'user') continue;
    if (canCarryMarker(blockAt(flat))) {
      tail = flat;
      break;
    }
    if (positions[flat]!.block === 0) break;
  }
  if (tail >= 0) marked.add(tail);
  const previous = input.previousBreakpoints;
  const previousBlock =
    previous &&
    Number.isInteger(previous.lastMessageBlock) &&
    previous.lastMessageBlock >= 0 &&
    previous.messageBlocks <= positions.length
      ? previous.lastMessageBlock
      : -1;
  if (tail >= 0 && previousBlock >= 0 && tail - previousBlock > INTERMEDIATE_BREAKPOINT_BLOCKS) {
    for (
      let flat = previousBlock + INTERMEDIATE_BREAKPOINT_BLOCKS;
      flat > previousBlock;
      flat -= 1
    ) {
      if (canCarryMarker(blockAt(flat))) {
        marked.add(flat);
        break;
      }
    }
  }
  const messages = input.messages.map((message, messageIndex) => {
    const start = starts[messageIndex]!;
    const blocks = blocksOf(message);
    const needsCopy = blocks.some(
      (block, blockIndex) => marked.has(start + blockIndex) || hasMarker(block),
    );
    if (!needsCopy) return message;
    const content = blocks.map((block, blockIndex): Block => {
      const plain: Block =
        typeof block === 'string' ? { type: 'text', text: block } : withoutMarker(block);
      return marked.has(start + blockIndex)
        ? ({ ...plain, cache_control: marker } as Block)
        : plain;
    });
    return { ...message, content } as ConversationMessage;
  });
  return {
    messages,
    breakpoints: {
      lastMessageBlock: tail >= 0 ? tail : previousBlock,
      messageBlocks: positions.length,
    },
  };
}

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function generatedConversation(next: () => number, length: number): ConversationMessage[] {
  const block = (index: number): Block => {
    const kind = next();
    const marked = next() < 0.1 ? { cache_control: { type: 'ephemeral' as const } } : {};
    if (kind < 0.15) return { type: 'text', text: '' };
    if (kind < 0.3) return { type: 'thinking', thinking: 'hmm', signature: 'sig' } as Block;
    if (kind < 0.45)
      return { type: 'tool_result', tool_use_id: `toolu_${index}`, content: 'ok', ...marked };
    if (kind < 0.55)
      return { type: 'tool_use', id: `toolu_${index}`, name: 'Read', input: {}, ...marked };
    return { type: 'text', text: `text ${index}`, ...marked };
  };
  return Array.from({ length }, (_unused, index): ConversationMessage => {
    const role = index % 2 === 0 || next() < 0.1 ? 'user' : 'assistant';
    const shape = next();
    if (shape < 0.15) return { role, content: next() < 0.2 ? '' : `plain ${index}` };
    if (shape < 0.2) return { role, content: [] };
    const count = 1 + Math.floor(next() * 9);
    return { role, content: Array.from({ length: count }, (_block, at) => block(index * 10 + at)) };
  });
}

describe('buildRequest (single pass) equals the reference implementation', () => {
  it('on 400 generated conversations, with and without previous breakpoints', () => {
    const next = random(14);
    let intermediate = 0;
    for (let run = 0; run < 400; run += 1) {
      const messages = generatedConversation(next, 1 + Math.floor(next() * 40));
      const base = {
        model: 'claude-test',
        maxTokens: 100,
        system: [{ type: 'text' as const, text: 'system' }],
        tools: [],
        messages,
        ...(next() < 0.3 ? { cacheTtl: '1h' as const } : {}),
      };
      const totalBlocks = messages.reduce(
        (sum, message) => sum + (typeof message.content === 'string' ? 1 : message.content.length),
        0,
      );
      const previousOptions: Array<BreakpointState | undefined> = [
        undefined,
        { lastMessageBlock: Math.floor(next() * totalBlocks), messageBlocks: totalBlocks },
        { lastMessageBlock: 0, messageBlocks: Math.floor(next() * totalBlocks) },
        { lastMessageBlock: 3, messageBlocks: totalBlocks + 5 },
      ];
      for (const previousBreakpoints of previousOptions) {
        const input: BuildRequestInput = {
          ...base,
          ...(previousBreakpoints === undefined ? {} : { previousBreakpoints }),
        };
        const before = structuredClone(messages);
        const built = buildRequest(input);
        const reference = referenceMessages(input);
        expect(built.params.messages).toEqual(reference.messages);
        expect(built.breakpoints).toEqual(reference.breakpoints);
        // Unchanged messages are passed by reference, exactly as before.
        built.params.messages.forEach((message, index) =>
          expect(message === messages[index]).toBe(reference.messages[index] === messages[index]),
        );
        expect(messages).toEqual(before);
        const markers = JSON.stringify(built.params.messages).split('"cache_control"').length - 1;
        if (markers === 2) intermediate += 1;
      }
    }
    // The generator reaches the intermediate breakpoint, not only the tail.
    expect(intermediate).toBeGreaterThan(20);
  });
});
