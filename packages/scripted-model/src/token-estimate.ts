import type { CacheUsage, MessagesRequestBody } from './types.js';

/** ⌈UTF-8 bytes / 4⌉: the scripted model's token estimate for any text. */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/**
 * Input tokens of a request when no prompt cache is simulated: ⌈UTF-8 bytes / 4⌉ of the JSON of
 * its `tools`, `system` and `messages` (those present), all billed as plain input.
 */
export function estimateInputTokens(
  body: Pick<MessagesRequestBody, 'tools' | 'system' | 'messages'>,
): number {
  let text = '';
  if (body.tools !== undefined) text += JSON.stringify(body.tools);
  if (body.system !== undefined) text += JSON.stringify(body.system);
  text += JSON.stringify(body.messages ?? []);
  return Math.max(1, estimateTokens(text));
}

/** Usage of a request that read and wrote no cache. */
export function uncachedUsage(inputTokens: number): CacheUsage {
  return {
    input_tokens: inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
  };
}
