// The agent's conversation bookkeeping: roles alternate, owed results go first, a failure never
// leaves a tool call without a result.
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { createAgentHistory, type HistoryRecord } from './agent-history.js';
import { emptyUsage } from './agent-usage.js';

function assistant(
  content: Anthropic.ContentBlock[],
  stop: Anthropic.StopReason,
): Anthropic.Message {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 } as Anthropic.Usage,
  } as Anthropic.Message;
}

const call = (id: string) =>
  ({
    type: 'tool_use',
    id,
    name: 'Read',
    input: {},
    caller: { type: 'direct' },
  }) as unknown as Anthropic.ContentBlock;

describe('the agent history', () => {
  it('answers calls left without results after a failure, first in the next user message, once', () => {
    const records: HistoryRecord[] = [];
    const history = createAgentHistory([], (record) => records.push(record));
    history.appendUser('read both');
    history.appendAssistant(
      assistant([call('toolu_1'), call('toolu_2')], 'tool_use'),
      emptyUsage(),
    );
    history.owe([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'done' }]);
    expect(history.answerUnanswered('Not run: failed.')).toBe(1);
    expect(history.answerUnanswered('Not run: failed.')).toBe(0);
    history.appendUser('again');
    expect(history.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'done' },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          content: 'Not run: failed.',
          is_error: true,
        },
        { type: 'text', text: 'again' },
      ],
    });
    expect(history.pending).toEqual([]);
    expect(records.map((record) => record.message.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('adds to the last user message when the model never answered it, and records only the addition', () => {
    const records: HistoryRecord[] = [];
    const history = createAgentHistory([], (record) => records.push(record));
    history.appendUser('first');
    history.appendUser([{ type: 'text', text: 'second' }]);
    expect(history.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      },
    ]);
    expect(records.map((record) => record.message.content)).toEqual([
      [{ type: 'text', text: 'first' }],
      [{ type: 'text', text: 'second' }],
    ]);
  });

  it('never changes the messages it was given', () => {
    const initial = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }];
    const history = createAgentHistory(initial, () => undefined);
    history.appendUser('more');
    expect(initial).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });
});
