import type { CacheUsage } from './types.js';

/** ⌈UTF-8 bytes / 4⌉: the scripted model's token estimate for any text. */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
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
