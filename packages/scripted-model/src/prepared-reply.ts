import { randomBytes } from 'node:crypto';
import { ScriptedModelError } from './scripted-model-error.js';
import { estimateTokens } from './token-estimate.js';
import type { Reply, ReplyBlock, StopReason } from './types.js';

/** One content block ready to be sent, with its tool_use id filled in and its JSON rendered. */
export type PreparedBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown; json: string };

/** A script's Reply checked and made concrete: what both the stream and the JSON reply carry. */
export interface PreparedReply {
  blocks: PreparedBlock[];
  stopReason: StopReason;
  outputTokens: number;
}

const STOP_REASONS: readonly StopReason[] = [
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
];

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random id like the real API's: `prefix` + 24 base62 characters (e.g. `msg_01…`, `toolu_01…`). */
export function randomIdentifier(prefix: string): string {
  const bytes = randomBytes(22);
  let text = '01';
  for (const byte of bytes) text += BASE62[byte % 62];
  return prefix + text;
}

function invalidReply(message: string): ScriptedModelError {
  return new ScriptedModelError({
    status: 500,
    errorType: 'api_error',
    message: `the script returned an invalid reply: ${message} (scripted test double)`,
  });
}

function prepareBlock(block: ReplyBlock, index: number): PreparedBlock {
  const where = `content[${index}]`;
  if (typeof block !== 'object' || block === null) throw invalidReply(`${where} is not an object`);
  switch (block.type) {
    case 'text':
      if (typeof block.text !== 'string') throw invalidReply(`${where}.text is not a string`);
      return { type: 'text', text: block.text };
    case 'thinking':
      if (typeof block.thinking !== 'string')
        throw invalidReply(`${where}.thinking is not a string`);
      return {
        type: 'thinking',
        thinking: block.thinking,
        signature: block.signature ?? randomBytes(48).toString('base64'),
      };
    case 'tool_use': {
      if (typeof block.name !== 'string' || block.name === '') {
        throw invalidReply(`${where}.name must be a non-empty string`);
      }
      if (typeof block.input !== 'object' || block.input === null || Array.isArray(block.input)) {
        throw invalidReply(`${where}.input of tool_use "${block.name}" must be a JSON object`);
      }
      return {
        type: 'tool_use',
        id: block.id ?? randomIdentifier('toolu_'),
        name: block.name,
        input: block.input,
        json: JSON.stringify(block.input),
      };
    }
    default:
      throw invalidReply(
        `${where}.type ${JSON.stringify((block as { type?: unknown }).type)} is not text, tool_use or thinking`,
      );
  }
}

/** Cuts `text` to at most `bytes` UTF-8 bytes without splitting a character. */
export function cutToBytes(text: string, bytes: number): string {
  let used = 0;
  let result = '';
  for (const character of text) {
    const size = Buffer.byteLength(character, 'utf8');
    if (used + size > bytes) break;
    used += size;
    result += character;
  }
  return result;
}

/** The top-level fields of `input` whose complete JSON fits in `json` (what the SDK's lenient parser keeps). */
function completeFields(input: unknown, json: string): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  if (typeof input !== 'object' || input === null) return kept;
  let prefix = '{';
  for (const [key, value] of Object.entries(input)) {
    const next = `${prefix}${prefix === '{' ? '' : ','}${JSON.stringify(key)}:${JSON.stringify(value)}`;
    if (!json.startsWith(next)) break;
    kept[key] = value;
    prefix = next;
  }
  return kept;
}

/** Checks a script's Reply and fills in ids, signatures, the stop reason and output tokens. */
export function prepareReply(reply: Reply): PreparedReply {
  if (typeof reply !== 'object' || reply === null) throw invalidReply('it is not an object');
  if (!Array.isArray(reply.content)) throw invalidReply('content must be an array of blocks');
  if (reply.stopReason !== undefined && !STOP_REASONS.includes(reply.stopReason)) {
    throw invalidReply(
      `stopReason ${JSON.stringify(reply.stopReason)} is not one of ${STOP_REASONS.join(', ')}`,
    );
  }
  let blocks = reply.content.map(prepareBlock);
  let stopReason: StopReason =
    reply.stopReason ??
    (blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn');
  const fault = reply.fault;
  if (fault?.kind === 'max-tokens-in-tool-use') {
    const last = blocks.map((block) => block.type).lastIndexOf('tool_use');
    if (last < 0) throw invalidReply('fault max-tokens-in-tool-use needs a tool_use block to cut');
    const block = blocks[last] as Extract<PreparedBlock, { type: 'tool_use' }>;
    const json = cutToBytes(block.json, Math.max(0, fault.keepInputBytes));
    blocks = [
      ...blocks.slice(0, last),
      { ...block, json, input: completeFields(block.input, json) },
    ];
    stopReason = 'max_tokens';
  }
  const rendered = blocks
    .map((block) =>
      block.type === 'text' ? block.text : block.type === 'thinking' ? block.thinking : block.json,
    )
    .join('');
  const outputTokens = reply.outputTokens ?? Math.max(1, estimateTokens(rendered));
  return { blocks, stopReason, outputTokens };
}

/** The content array of the final message (what `finalMessage().content` holds). */
export function finalContent(prepared: PreparedReply): Record<string, unknown>[] {
  return prepared.blocks.map((block) => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.type === 'thinking')
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
  });
}
