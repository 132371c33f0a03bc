// Fork children as runtime.md §1.12 builds them: the parent's assistant message whole, one
// placeholder tool_result per tool_use, then the child's directive as the last text block.
import { describe, expect, it } from 'vitest';
import { createPromptCache } from './prompt-cache.js';
import { conversationBody, markLastBlock } from './prompt-cache-test-support.js';
import type { MessagesRequestBody } from './types.js';

const PLACEHOLDER = 'Fork started — processing in background';
const parentHistory = [
  { role: 'user', content: 'Split the refactor between three helpers. '.repeat(10) },
  {
    role: 'assistant',
    content: ['a', 'b', 'c'].map((name) => ({
      type: 'tool_use',
      id: `toolu_fork_${name}`,
      name: 'Task',
      input: { description: `part ${name}`, prompt: `Do part ${name}.` },
    })),
  },
];

function forkChild(name: string, markOn: 'placeholder' | 'directive'): MessagesRequestBody {
  const results: Record<string, unknown>[] = ['a', 'b', 'c'].map((part) => ({
    type: 'tool_result',
    tool_use_id: `toolu_fork_${part}`,
    content: PLACEHOLDER,
  }));
  if (markOn === 'placeholder') results[2]!.cache_control = { type: 'ephemeral' };
  const directive: Record<string, unknown> = {
    type: 'text',
    text: `<fork-boilerplate>You are child ${name}: do part ${name} only.</fork-boilerplate>`,
  };
  if (markOn === 'directive') directive.cache_control = { type: 'ephemeral' };
  return conversationBody([...parentHistory, { role: 'user', content: [...results, directive] }]);
}

describe('createPromptCache: fork children', () => {
  it('with the breakpoint on the last placeholder, siblings share one prefix hash and read it after the first publishes', () => {
    const cache = createPromptCache();
    // The parent's own request wrote its prefix (breakpoint on its last block).
    cache.account(conversationBody(markLastBlock(parentHistory))).publish();
    const first = cache.account(forkChild('a', 'placeholder'));
    first.publish();
    const siblings = ['b', 'c'].map((name) => cache.account(forkChild(name, 'placeholder')));
    for (const sibling of siblings) {
      expect(sibling.breakpoints[0]!.hash).toBe(first.breakpoints[0]!.hash);
      expect(sibling.usage.cache_read_input_tokens).toBe(first.breakpoints[0]!.tokens);
      expect(sibling.usage.cache_creation_input_tokens).toBe(0);
    }
  });

  it('with the breakpoint on the directive, each child writes its own entry and siblings read only the parent prefix', () => {
    const cache = createPromptCache();
    const parent = cache.account(conversationBody(markLastBlock(parentHistory)));
    parent.publish();
    const first = cache.account(forkChild('a', 'directive'));
    first.publish();
    const second = cache.account(forkChild('b', 'directive'));
    expect(second.breakpoints[0]!.hash).not.toBe(first.breakpoints[0]!.hash);
    expect(second.usage.cache_read_input_tokens).toBe(parent.breakpoints[0]!.tokens);
    expect(second.usage.cache_creation_input_tokens).toBeGreaterThan(0);
  });
});
