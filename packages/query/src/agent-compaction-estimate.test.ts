// The agent's compaction check measures each message once; its estimate must equal serialising
// the whole request every time (estimateRequestTokens), whatever the conversation holds.
import { describe, expect, it } from 'vitest';
import { createRequestTokenEstimator, estimateRequestTokens } from './agent-compaction.js';
import type { ConversationMessage } from './agent-types.js';

describe('createRequestTokenEstimator', () => {
  it('equals estimateRequestTokens as a conversation grows, merges and is replaced', () => {
    const input = {
      system: [{ type: 'text' as const, text: 'You are a tester. ✓ ünïcödé' }],
      tools: [
        { name: 'Read', description: 'Reads', input_schema: { type: 'object' as const } },
        { name: 'Write', description: 'Writes 日本語', input_schema: { type: 'object' as const } },
      ],
    };
    const estimate = createRequestTokenEstimator(input);
    expect(estimate([])).toBe(estimateRequestTokens(input, []));
    let messages: ConversationMessage[] = [];
    for (let turn = 0; turn < 30; turn += 1) {
      messages = [
        ...messages,
        { role: 'user', content: [{ type: 'text', text: `turn ${turn} — ✓` }] },
      ];
      expect(estimate(messages)).toBe(estimateRequestTokens(input, messages));
      if (turn % 3 === 0) {
        // The history merges into the last user message by replacing the object.
        const last = messages.at(-1)!;
        messages = [
          ...messages.slice(0, -1),
          { role: 'user', content: [...(last.content as []), { type: 'text', text: 'more' }] },
        ];
        expect(estimate(messages)).toBe(estimateRequestTokens(input, messages));
      }
      messages = [
        ...messages,
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'x'.repeat(turn * 7) },
            { type: 'tool_use', id: `toolu_${turn}`, name: 'Read', input: { file_path: '/a' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: `toolu_${turn}`, content: 'é' }],
        },
      ];
      expect(estimate(messages)).toBe(estimateRequestTokens(input, messages));
    }
    // A compacted conversation: new objects, shorter.
    const compacted: ConversationMessage[] = [{ role: 'user', content: 'summary' }];
    expect(estimate(compacted)).toBe(estimateRequestTokens(input, compacted));
  });
});
