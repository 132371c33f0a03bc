import { createHash } from 'node:crypto';
import type { MessagesRequestBody } from './types.js';
import { ScriptedModelError } from './scripted-model-error.js';

/** Which part of the prompt a canonical segment comes from (the prefix order is tools → system → messages). */
export type SegmentSection = 'tools' | 'system' | 'messages';

/** A `cache_control` marker as read from a block, reduced to what the cache simulation uses. */
export interface CacheMarker {
  /** Lifetime of the entry the breakpoint writes: `5m` (the API's default) or `1h`. */
  ttl: '5m' | '1h';
}

/**
 * One rendered piece of the prompt: a tool definition, a system block, or a message content
 * block, serialized with `JSON.stringify` in received key order with `cache_control` removed.
 */
export interface CanonicalSegment {
  /** Where the segment sits in the prompt. */
  section: SegmentSection;
  /** Path in the request body, for error messages and the log (`tools[2]`, `system[0]`, `messages[3].content[1]`). */
  location: string;
  /** The block's `type` (`text`, `tool_use`, `tool`, …), or `tool` for a tool definition without one. */
  blockType: string;
  /** Canonical text: `JSON.stringify` of the block without its top-level `cache_control`. */
  text: string;
  /** Estimated tokens: ⌈UTF-8 bytes of `text` / 4⌉. */
  tokens: number;
  /** SHA-256 (hex) of the prefix ending with this segment, chained from the previous segment's hash. */
  prefixHash: string;
  /** Sum of `tokens` over this segment and every segment before it. */
  prefixTokens: number;
  /** The explicit `cache_control` marker the block carried, if any. */
  marker?: CacheMarker;
}

/** A request body rendered into its canonical segments. */
export interface CanonicalPrompt {
  /** Every segment, tools first, then system, then messages. */
  segments: CanonicalSegment[];
  /** Hash of the tools and system segments only (the chain's root hash when there are none). */
  toolsSystemHash: string;
  /** Tokens of the whole prompt (sum over the segments). */
  totalTokens: number;
  /** The request's top-level `cache_control` (automatic caching), if any. */
  automaticMarker?: CacheMarker;
}

/** Hash the chain starts from: SHA-256 of the empty string. */
export const ROOT_PREFIX_HASH = createHash('sha256').update('').digest('hex');

/** Tokens the simulation charges for a piece of text: ⌈UTF-8 bytes / 4⌉. */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

function invalid(message: string): ScriptedModelError {
  return new ScriptedModelError({ status: 400, errorType: 'invalid_request_error', message });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a `cache_control` value; undefined when absent, a 400 when malformed. */
export function readCacheMarker(value: unknown, location: string): CacheMarker | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value) || value.type !== 'ephemeral') {
    throw invalid(
      `${location}.cache_control: expected {"type":"ephemeral","ttl"?:"5m"|"1h"}, got ${JSON.stringify(value)}`,
    );
  }
  if (value.ttl === undefined) return { ttl: '5m' };
  if (value.ttl !== '5m' && value.ttl !== '1h') {
    throw invalid(
      `${location}.cache_control.ttl: expected "5m" or "1h", got ${JSON.stringify(value.ttl)}`,
    );
  }
  return { ttl: value.ttl };
}

interface RawSegment {
  section: SegmentSection;
  location: string;
  block: Record<string, unknown>;
  /** Extra identity hashed with the block but not counted as tokens (a message's role at its first block). */
  boundary: string;
}

function objectBlock(value: unknown, location: string): Record<string, unknown> {
  if (!isRecord(value)) {
    throw invalid(
      `${location}: expected an object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
    );
  }
  return value;
}

function collectRawSegments(body: MessagesRequestBody): RawSegment[] {
  const raw: RawSegment[] = [];
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) throw invalid('tools: expected an array of tool definitions');
    body.tools.forEach((tool, index) => {
      const location = `tools[${index}]`;
      raw.push({ section: 'tools', location, block: objectBlock(tool, location), boundary: '' });
    });
  }
  if (typeof body.system === 'string') {
    raw.push({
      section: 'system',
      location: 'system',
      block: { type: 'text', text: body.system },
      boundary: '',
    });
  } else if (Array.isArray(body.system)) {
    body.system.forEach((block, index) => {
      const location = `system[${index}]`;
      raw.push({ section: 'system', location, block: objectBlock(block, location), boundary: '' });
    });
  } else if (body.system !== undefined) {
    throw invalid('system: expected a string or an array of text blocks');
  }
  if (!Array.isArray(body.messages)) throw invalid('messages: expected an array of messages');
  body.messages.forEach((message, messageIndex) => {
    const location = `messages[${messageIndex}]`;
    const record = objectBlock(message, location);
    if (typeof record.role !== 'string') throw invalid(`${location}.role: expected a string`);
    const boundary = `message ${messageIndex} ${record.role}`;
    if (typeof record.content === 'string') {
      raw.push({
        section: 'messages',
        location: `${location}.content`,
        block: { type: 'text', text: record.content },
        boundary,
      });
    } else if (Array.isArray(record.content)) {
      record.content.forEach((block, blockIndex) => {
        const blockLocation = `${location}.content[${blockIndex}]`;
        raw.push({
          section: 'messages',
          location: blockLocation,
          block: objectBlock(block, blockLocation),
          boundary: blockIndex === 0 ? boundary : '',
        });
      });
    } else {
      throw invalid(`${location}.content: expected a string or an array of content blocks`);
    }
  });
  return raw;
}

/**
 * Request fields that change what the model sees before the first message without being
 * tools or system (`tool_choice`, `thinking`): hashed at the start of the messages tier,
 * so changing them loses the messages' cache and keeps the tools and system cache.
 */
function messageSettingsIdentity(body: MessagesRequestBody): string {
  return JSON.stringify({ tool_choice: body.tool_choice ?? null, thinking: body.thinking ?? null });
}

function chain(previous: string, section: SegmentSection, boundary: string, text: string): string {
  return createHash('sha256')
    .update(previous)
    .update('\n')
    .update(section)
    .update('\n')
    .update(boundary)
    .update('\n')
    .update(text)
    .digest('hex');
}

/**
 * Renders a request body into canonical segments with chained prefix hashes. Identity is the
 * bytes of each block (in received key order, `cache_control` removed), each message's role
 * and position at its first block, and `tool_choice`/`thinking` at the start of the messages.
 * Throws a 400 {@link ScriptedModelError} naming the field when the body is malformed.
 */
export function canonicalPrompt(body: MessagesRequestBody): CanonicalPrompt {
  const raw = collectRawSegments(body);
  const segments: CanonicalSegment[] = [];
  let previousHash = ROOT_PREFIX_HASH;
  let prefixTokens = 0;
  let toolsSystemHash = ROOT_PREFIX_HASH;
  let settingsHashed = false;
  for (const item of raw) {
    const { cache_control: cacheControl, ...rest } = item.block;
    const marker = readCacheMarker(cacheControl, item.location);
    const text = JSON.stringify(rest);
    const tokens = estimateTokens(text);
    let boundary = item.boundary;
    if (item.section === 'messages' && !settingsHashed) {
      boundary = `${messageSettingsIdentity(body)}\n${boundary}`;
      settingsHashed = true;
    }
    previousHash = chain(previousHash, item.section, boundary, text);
    prefixTokens += tokens;
    if (item.section !== 'messages') toolsSystemHash = previousHash;
    const blockType = typeof rest.type === 'string' ? rest.type : 'tool';
    segments.push({
      section: item.section,
      location: item.location,
      blockType,
      text,
      tokens,
      prefixHash: previousHash,
      prefixTokens,
      ...(marker ? { marker } : {}),
    });
  }
  const automaticMarker = readCacheMarker(body.cache_control, 'request');
  return {
    segments,
    toolsSystemHash,
    totalTokens: prefixTokens,
    ...(automaticMarker ? { automaticMarker } : {}),
  };
}
