// The pieces compaction needs when a conversation is too long to summarise in one request: where
// it may be cut (never between a tool call and its result), how an earlier part's summary is
// carried into the request for the next part, and the usage of several summary requests added up.
import type Anthropic from '@anthropic-ai/sdk';
import type { ConversationMessage } from './agent-types.js';

/** The content of a message as blocks (a string becomes one text block). */
export function blocksOf(message: ConversationMessage): Anthropic.ContentBlockParam[] {
  return typeof message.content === 'string'
    ? [{ type: 'text', text: message.content }]
    : [...message.content];
}

/**
 * Where `messages` may be cut in two so that each part can be summarised on its own: the index
 * nearest the middle of a message that holds no `tool_result` (an assistant message, or a user
 * message that answers no call), so no call is parted from its result. Undefined when there is
 * no such place after the first message.
 */
export function middleCut(messages: readonly ConversationMessage[]): number | undefined {
  const half = messages.length / 2;
  let best: number | undefined;
  messages.forEach((message, index) => {
    if (index === 0) return;
    const answersCalls = blocksOf(message).some((block) => block.type === 'tool_result');
    if (answersCalls) return;
    if (best === undefined || Math.abs(index - half) < Math.abs(best - half)) best = index;
  });
  return best;
}

/** The text that carries an earlier part's summary into the request for the next part. */
export function carriedSummaryText(summary: string): string {
  return [
    '<earlier-summary>',
    'The earlier part of this conversation is no longer shown; this is your summary of it:',
    summary,
    'When asked to summarise, cover this earlier part as well: your summary replaces it.',
    '</earlier-summary>',
  ].join('\n');
}

/**
 * `part` with the summary of what came before it put first: as the first block of its first
 * message when that is a user message, else as a user message of its own before it.
 */
export function withCarriedSummary(
  part: readonly ConversationMessage[],
  summary: string | undefined,
): ConversationMessage[] {
  if (summary === undefined) return [...part];
  const carried: Anthropic.TextBlockParam = { type: 'text', text: carriedSummaryText(summary) };
  const [first, ...rest] = part;
  if (first?.role === 'user') {
    return [{ role: 'user', content: [carried, ...blocksOf(first)] }, ...rest];
  }
  return [{ role: 'user', content: [carried] }, ...part];
}

/** The usage of several requests added up (the non-numeric fields are the last request's). */
export function addUsage(usages: readonly Anthropic.Usage[]): Anthropic.Usage {
  const last = usages.at(-1)!;
  const total = (pick: (usage: Anthropic.Usage) => number | null | undefined) =>
    usages.reduce((sum, usage) => sum + (pick(usage) ?? 0), 0);
  return {
    ...last,
    input_tokens: total((usage) => usage.input_tokens),
    output_tokens: total((usage) => usage.output_tokens),
    cache_creation_input_tokens: total((usage) => usage.cache_creation_input_tokens),
    cache_read_input_tokens: total((usage) => usage.cache_read_input_tokens),
  };
}
