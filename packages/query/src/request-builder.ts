// Builds each request of an agent from its rendered tools and system prompt and the
// conversation, and places the prompt-cache breakpoints (R9). Nothing it is given is changed:
// a block that carries a marker is a copy.
import type Anthropic from '@anthropic-ai/sdk';
import type { ConversationMessage } from './agent-types.js';
import { QueryError } from './query-error.js';

/**
 * An intermediate breakpoint is added when more than this many message blocks were appended
 * since the previous request's last breakpoint (the API looks back at most 20 blocks for a
 * cached prefix; the intermediate one sits this many blocks after the previous one).
 */
export const INTERMEDIATE_BREAKPOINT_BLOCKS = 15;

/** Where the previous request put its breakpoints, so the next one can keep reading the cache. */
export interface BreakpointState {
  /**
   * Position of the last message block that carried a marker, counting every content block of
   * every message from 0 (a string `content` is one block); -1 when none did.
   */
  readonly lastMessageBlock: number;
  /** How many message blocks that request had. */
  readonly messageBlocks: number;
}

/** What `buildRequest` needs. */
export interface BuildRequestInput {
  /** Model id or alias. */
  model: string;
  /** `max_tokens` (a positive integer). */
  maxTokens: number;
  /** The rendered system prompt (`renderSystem`), byte-identical on every request of the agent. */
  system: readonly Anthropic.TextBlockParam[];
  /** The rendered tools (`renderTools`), byte-identical on every request of the agent. */
  tools: readonly Anthropic.Tool[];
  /** The conversation, oldest first. */
  messages: readonly ConversationMessage[];
  /** What the previous `buildRequest` of this agent returned as `breakpoints`. */
  previousBreakpoints?: BreakpointState;
  /** TTL of every marker (default `5m`; `1h` for agents that idle between requests). */
  cacheTtl?: '5m' | '1h';
  /**
   * Blocks of the newest user message that never take the tail marker: it goes on the last
   * block before them instead (a fork child's directive, so siblings share the entry, R12).
   */
  skipTailMarker?: (block: Anthropic.ContentBlockParam | string) => boolean;
}

/** What `buildRequest` returns. */
export interface BuiltRequest {
  /** The request, ready for `ModelClient.stream`. */
  params: Anthropic.MessageCreateParamsNonStreaming;
  /** Give it back as `previousBreakpoints` when building the agent's next request. */
  breakpoints: BreakpointState;
}

type Block = Anthropic.ContentBlockParam;

function invalid(message: string): QueryError {
  return new QueryError({ code: 'INVALID_OPTIONS', message });
}

function checkInput(input: BuildRequestInput): void {
  if (typeof input !== 'object' || input === null) {
    throw invalid('buildRequest: give { model, maxTokens, system, tools, messages }');
  }
  if (typeof input.model !== 'string' || input.model === '') {
    throw invalid('buildRequest: model must be a non-empty model id (like "claude-sonnet-4-5")');
  }
  if (!Number.isInteger(input.maxTokens) || input.maxTokens < 1) {
    throw invalid(
      `buildRequest: maxTokens must be a positive integer, got ${String(input.maxTokens)}`,
    );
  }
  if (!Array.isArray(input.system)) {
    throw invalid('buildRequest: system must be the array renderSystem returned');
  }
  if (!Array.isArray(input.tools)) {
    throw invalid('buildRequest: tools must be the array renderTools returned');
  }
  if (!Array.isArray(input.messages) || input.messages.length === 0) {
    throw invalid(
      'buildRequest: messages must be a non-empty array (the conversation, oldest first)',
    );
  }
  input.messages.forEach((message, index) => {
    const valid =
      typeof message === 'object' &&
      message !== null &&
      (message.role === 'user' || message.role === 'assistant' || message.role === 'system') &&
      (typeof message.content === 'string' || Array.isArray(message.content));
    if (!valid) {
      throw invalid(
        `buildRequest: messages[${index}] is not a message ({ role: "user" | "assistant" | "system", content: string | blocks })`,
      );
    }
  });
  if (input.skipTailMarker !== undefined && typeof input.skipTailMarker !== 'function') {
    throw invalid('buildRequest: skipTailMarker must be a function (block) => boolean');
  }
  if (input.cacheTtl !== undefined && input.cacheTtl !== '5m' && input.cacheTtl !== '1h') {
    throw invalid(`buildRequest: cacheTtl must be "5m" or "1h", got ${String(input.cacheTtl)}`);
  }
}

/** Whether the API accepts `cache_control` on this block (not on thinking or empty text). */
function canCarryMarker(block: Block | string): boolean {
  if (typeof block === 'string') return block !== '';
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  if (block.type === 'text') return block.text !== '';
  return true;
}

function hasMarker(block: unknown): boolean {
  return typeof block === 'object' && block !== null && 'cache_control' in block;
}

function withoutMarker<Value extends object>(block: Value): Value {
  if (!hasMarker(block)) return block;
  const { cache_control: _marker, ...rest } = block as Value & { cache_control?: unknown };
  return rest as Value;
}

/** The blocks of a message as an array (a string is one text block, rendered the same way). */
function blocksOf(message: ConversationMessage): ReadonlyArray<Block | string> {
  return typeof message.content === 'string' ? [message.content] : message.content;
}

/** How many blocks a message has (a string `content` is one block). */
function blockCount(message: ConversationMessage): number {
  return typeof message.content === 'string' ? 1 : message.content.length;
}

/** The block `index` of a message (a string `content` is its only block). */
function blockOf(message: ConversationMessage, index: number): Block | string {
  return typeof message.content === 'string' ? message.content : message.content[index]!;
}

/** Whether any block of a message carries a marker already (a string never does). */
function carriesMarker(message: ConversationMessage): boolean {
  const content = message.content;
  if (typeof content === 'string') return false;
  for (let index = 0; index < content.length; index += 1)
    if (hasMarker(content[index])) return true;
  return false;
}

/**
 * Builds one request: `{ model, max_tokens, system, tools, messages }` with at most 3
 * `cache_control` markers (the API allows 4): on the last system block (on the last tool when
 * there is no system prompt), on the last block of the newest user message, and, when more than
 * {@link INTERMEDIATE_BREAKPOINT_BLOCKS} message blocks were appended since the previous
 * request's last breakpoint, on a block that many blocks after it (so the lookback of 20 blocks
 * still finds the previous entry). Markers the inputs already carry are dropped. Never changes
 * its inputs: a marked block is a copy, everything else is passed by reference.
 *
 * Cost: one pass over the messages without allocating per block (an agent's conversation only
 * grows, and this runs before every request); only the messages that get or lose a marker are
 * copied.
 */
export function buildRequest(input: BuildRequestInput): BuiltRequest {
  checkInput(input);
  const marker: Anthropic.CacheControlEphemeral =
    input.cacheTtl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const source = input.messages;

  // Flat positions count every block of every message from 0. The tail: the last block that
  // can carry a marker in the newest user message (none when that message has no such block).
  let totalBlocks = 0;
  for (let index = 0; index < source.length; index += 1) totalBlocks += blockCount(source[index]!);
  let tail = -1;
  let tailMessage = -1;
  let tailBlock = -1;
  let blocksAfter = 0; // blocks of the messages after the one being looked at
  for (let messageIndex = source.length - 1; messageIndex >= 0; messageIndex -= 1) {
    const message = source[messageIndex]!;
    const count = blockCount(message);
    if (message.role === 'user' && count > 0) {
      for (let block = count - 1; block >= 0; block -= 1) {
        const candidate = blockOf(message, block);
        if (canCarryMarker(candidate) && input.skipTailMarker?.(candidate) !== true) {
          tail = totalBlocks - blocksAfter - count + block;
          tailMessage = messageIndex;
          tailBlock = block;
          break;
        }
      }
      break;
    }
    blocksAfter += count;
  }

  const previous = input.previousBreakpoints;
  const previousBlock =
    previous &&
    Number.isInteger(previous.lastMessageBlock) &&
    previous.lastMessageBlock >= 0 &&
    previous.messageBlocks <= totalBlocks
      ? previous.lastMessageBlock
      : -1;
  // The intermediate breakpoint: the last block that can carry a marker among the
  // INTERMEDIATE_BREAKPOINT_BLOCKS blocks after the previous breakpoint.
  let middleMessage = -1;
  let middleBlock = -1;
  if (tail >= 0 && previousBlock >= 0 && tail - previousBlock > INTERMEDIATE_BREAKPOINT_BLOCKS) {
    const highest = previousBlock + INTERMEDIATE_BREAKPOINT_BLOCKS;
    let messageIndex = 0;
    let start = 0;
    while (start + blockCount(source[messageIndex]!) <= highest) {
      start += blockCount(source[messageIndex]!);
      messageIndex += 1;
    }
    let block = highest - start;
    for (let flat = highest; flat > previousBlock; flat -= 1) {
      while (block < 0) {
        messageIndex -= 1;
        block = blockCount(source[messageIndex]!) - 1;
      }
      if (canCarryMarker(blockOf(source[messageIndex]!, block))) {
        middleMessage = messageIndex;
        middleBlock = block;
        break;
      }
      block -= 1;
    }
  }

  const messages: ConversationMessage[] = source.slice();
  for (let messageIndex = 0; messageIndex < source.length; messageIndex += 1) {
    const message = source[messageIndex]!;
    const markedHere = messageIndex === tailMessage || messageIndex === middleMessage;
    if (!markedHere && !carriesMarker(message)) continue;
    const content = blocksOf(message).map((block, blockIndex): Block => {
      const plain: Block =
        typeof block === 'string' ? { type: 'text', text: block } : withoutMarker(block);
      const marked =
        (messageIndex === tailMessage && blockIndex === tailBlock) ||
        (messageIndex === middleMessage && blockIndex === middleBlock);
      return marked ? ({ ...plain, cache_control: marker } as Block) : plain;
    });
    messages[messageIndex] = { ...message, content } as ConversationMessage;
  }

  const system = input.system.map((block) => withoutMarker(block));
  const tools = input.tools.map((tool) => withoutMarker(tool));
  if (system.length > 0) {
    system[system.length - 1] = { ...system[system.length - 1]!, cache_control: marker };
  } else if (tools.length > 0) {
    tools[tools.length - 1] = { ...tools[tools.length - 1]!, cache_control: marker };
  }

  const params: Anthropic.MessageCreateParamsNonStreaming = {
    model: input.model,
    max_tokens: input.maxTokens,
    ...(system.length > 0 ? { system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    messages,
  };
  return {
    params,
    breakpoints: Object.freeze({
      lastMessageBlock: tail >= 0 ? tail : previousBlock,
      messageBlocks: totalBlocks,
    }),
  };
}
