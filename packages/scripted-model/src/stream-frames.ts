import type { SeededRandom } from './seeded-random.js';
import { finalContent, type PreparedReply } from './prepared-reply.js';
import type { CacheUsage, Fault, StreamShape } from './types.js';

/** One server-sent event: `event: <event>` and `data: <JSON of data>`. */
export interface StreamFrame {
  event: string;
  data: Record<string, unknown>;
}

/** What the message envelope carries besides the content. */
export interface MessageEnvelope {
  id: string;
  /** The `model` field of the reply (the requested id, labelled as the test double). */
  model: string;
  usage: CacheUsage;
}

/** The name of the made-up event sent when StreamShape.unknownEvents is on. */
export const UNKNOWN_EVENT_NAME = 'scripted_future_event';

/** Splits `text` into pieces of 1–24 characters (never inside a character). */
function splitText(text: string, random: SeededRandom): string[] {
  const characters = Array.from(text);
  const pieces: string[] = [];
  for (let start = 0; start < characters.length;) {
    const size = random.integer(1, 24);
    pieces.push(characters.slice(start, start + size).join(''));
    start += size;
  }
  return pieces.length === 0 ? [''] : pieces;
}

/** Splits `json` into `count` non-empty pieces at arbitrary character positions. */
export function splitJson(json: string, count: number, random: SeededRandom): string[] {
  const characters = Array.from(json);
  const pieceCount = Math.max(1, Math.min(count, characters.length));
  const cuts = new Set<number>();
  while (cuts.size < pieceCount - 1) cuts.add(random.integer(1, characters.length - 1));
  const sorted = [0, ...[...cuts].sort((a, b) => a - b), characters.length];
  const pieces: string[] = [];
  for (let index = 0; index + 1 < sorted.length; index += 1) {
    pieces.push(characters.slice(sorted[index], sorted[index + 1]).join(''));
  }
  return pieces;
}

/** The usage a message_start carries: the cache account's figures plus output_tokens 1. */
function startUsage(usage: CacheUsage): Record<string, unknown> {
  return {
    input_tokens: usage.input_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens,
    cache_creation: { ...usage.cache_creation },
    output_tokens: 1,
    service_tier: 'standard',
  };
}

/** The non-streaming reply body: the same message the stream accumulates to. */
export function buildMessage(
  prepared: PreparedReply,
  envelope: MessageEnvelope,
): Record<string, unknown> {
  return {
    id: envelope.id,
    type: 'message',
    role: 'assistant',
    model: envelope.model,
    content: finalContent(prepared),
    stop_reason: prepared.stopReason,
    stop_sequence: null,
    stop_details: null,
    usage: { ...startUsage(envelope.usage), output_tokens: prepared.outputTokens },
  };
}

function blockFrames(
  prepared: PreparedReply,
  shape: StreamShape,
  random: SeededRandom,
): StreamFrame[] {
  const frames: StreamFrame[] = [];
  prepared.blocks.forEach((block, index) => {
    const delta = (value: Record<string, unknown>): void => {
      frames.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: value },
      });
    };
    if (block.type === 'text') {
      frames.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      });
      for (const text of splitText(block.text, random)) delta({ type: 'text_delta', text });
    } else if (block.type === 'thinking') {
      frames.push({
        event: 'content_block_start',
        data: {
          type: 'content_block_start',
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        },
      });
      for (const thinking of splitText(block.thinking, random))
        delta({ type: 'thinking_delta', thinking });
      delta({ type: 'signature_delta', signature: block.signature });
    } else {
      frames.push({
        event: 'content_block_start',
        data: {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        },
      });
      delta({ type: 'input_json_delta', partial_json: '' });
      if (block.json !== '') {
        const count = shape.inputJsonSplits ?? random.integer(1, 4);
        for (const partial_json of splitJson(block.json, count, random)) {
          delta({ type: 'input_json_delta', partial_json });
        }
      }
    }
    frames.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
    if (shape.unknownEvents) {
      frames.push({ event: UNKNOWN_EVENT_NAME, data: { type: UNKNOWN_EVENT_NAME, index } });
    }
  });
  return frames;
}

/**
 * Every frame of one streamed reply, in the real API's order: message_start, a ping, each block's
 * start/deltas/stop (never interleaved), message_delta with cumulative usage, message_stop. Pings
 * every `pingEveryEvents` frames, made-up events when `unknownEvents`, and the omit-message-start /
 * omit-message-stop faults are applied here; the writer applies the faults that cut the stream.
 */
export function buildStreamFrames(
  prepared: PreparedReply,
  envelope: MessageEnvelope,
  shape: StreamShape = {},
  random: SeededRandom,
  fault?: Fault,
): StreamFrame[] {
  const body: StreamFrame[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: envelope.id,
          type: 'message',
          role: 'assistant',
          model: envelope.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          stop_details: null,
          usage: startUsage(envelope.usage),
        },
      },
    },
  ];
  if (shape.unknownEvents)
    body.push({ event: UNKNOWN_EVENT_NAME, data: { type: UNKNOWN_EVENT_NAME } });
  body.push(...blockFrames(prepared, shape, random));
  body.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: prepared.stopReason, stop_sequence: null, stop_details: null },
      usage: {
        input_tokens: envelope.usage.input_tokens,
        cache_creation_input_tokens: envelope.usage.cache_creation_input_tokens,
        cache_read_input_tokens: envelope.usage.cache_read_input_tokens,
        output_tokens: prepared.outputTokens,
      },
    },
  });
  body.push({ event: 'message_stop', data: { type: 'message_stop' } });
  const kept = body.filter(
    (frame) =>
      !(fault?.kind === 'omit-message-start' && frame.event === 'message_start') &&
      !(fault?.kind === 'omit-message-stop' && frame.event === 'message_stop') &&
      !(fault?.kind === 'omit-message-delta' && frame.event === 'message_delta'),
  );
  const ping: StreamFrame = { event: 'ping', data: { type: 'ping' } };
  const frames: StreamFrame[] = [];
  kept.forEach((frame, position) => {
    frames.push(frame);
    if (frame.event === 'message_start') frames.push(ping);
    else if (shape.pingEveryEvents && (position + 1) % shape.pingEveryEvents === 0)
      frames.push(ping);
  });
  return frames;
}
