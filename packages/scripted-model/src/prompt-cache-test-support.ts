// Request bodies shared by the prompt-cache tests (not exported from the package).
import type { MessagesRequestBody } from './types.js';

/** The model id the cache tests use unless they test scoping. */
export const TEST_MODEL = 'claude-sonnet-4-6';

/** Two tool definitions with a stable schema (about 300 tokens together). */
export function stableTools(): unknown[] {
  return ['Read', 'Edit'].map((name) => ({
    name,
    description: `${name} a file in the repository. `.repeat(12),
    input_schema: {
      type: 'object',
      properties: { file_path: { type: 'string', description: 'Absolute path.' } },
      required: ['file_path'],
    },
  }));
}

/** A system prompt of two text blocks, about 1,600 tokens: above the default 1,024 minimum. */
export function stableSystem(): unknown[] {
  return [
    { type: 'text', text: 'You are a scripted teammate in a test.' },
    { type: 'text', text: 'Follow the task list and report to the lead. '.repeat(140) },
  ];
}

/** Puts `cache_control` on the last content block of the last message (a copy; the input is unchanged). */
export function markLastBlock(messages: unknown[], ttl?: '5m' | '1h'): unknown[] {
  const copy = structuredClone(messages) as {
    role: string;
    content: string | Record<string, unknown>[];
  }[];
  const last = copy[copy.length - 1]!;
  if (typeof last.content === 'string') last.content = [{ type: 'text', text: last.content }];
  const block = last.content[last.content.length - 1]!;
  block.cache_control = ttl ? { type: 'ephemeral', ttl } : { type: 'ephemeral' };
  return copy;
}

/** A request with the stable tools and system and the given messages. */
export function conversationBody(messages: unknown[], model = TEST_MODEL): MessagesRequestBody {
  return {
    model,
    max_tokens: 1024,
    tools: stableTools(),
    system: stableSystem(),
    messages,
    stream: true,
  };
}

/** Total prompt tokens of a usage (ours or the SDK's, whose cache fields may be null): uncached input + cache writes + cache reads. */
export function totalInput(usage: {
  input_tokens: number;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
}): number {
  return (
    usage.input_tokens +
    (usage.cache_creation_input_tokens ?? 0) +
    (usage.cache_read_input_tokens ?? 0)
  );
}
