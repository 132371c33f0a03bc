// Token usage per request and per agent (R8).
import type Anthropic from '@anthropic-ai/sdk';
import type { TokenUsage } from './agent-types.js';

/** Usage with every figure 0. */
export function emptyUsage(): TokenUsage {
  return { inputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0, outputTokens: 0 };
}

/** The sum of two usages (a new object). */
export function addUsage(left: TokenUsage, right: TokenUsage): TokenUsage {
  return {
    inputTokens: left.inputTokens + right.inputTokens,
    cacheCreationInputTokens: left.cacheCreationInputTokens + right.cacheCreationInputTokens,
    cacheReadInputTokens: left.cacheReadInputTokens + right.cacheReadInputTokens,
    outputTokens: left.outputTokens + right.outputTokens,
  };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** The usage of one response, as the API reported it (missing or null figures count 0). */
export function usageOfMessage(message: Pick<Anthropic.Message, 'usage'>): TokenUsage {
  const usage = (message.usage ?? {}) as Partial<Anthropic.Usage>;
  return {
    inputTokens: count(usage.input_tokens),
    cacheCreationInputTokens: count(usage.cache_creation_input_tokens),
    cacheReadInputTokens: count(usage.cache_read_input_tokens),
    outputTokens: count(usage.output_tokens),
  };
}
