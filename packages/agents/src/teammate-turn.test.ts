// What a teammate tells its lead after a turn: the idle notification built from the turn's events.
import { IdleNotificationSchema, IDLE_RESULT_MAXIMUM_CHARACTERS } from '@muster/protocol';
import type { AgentEvent, TurnResult } from '@muster/query';
import { describe, expect, it } from 'vitest';
import { buildIdleNotification, createTurnFactsCollector } from './teammate-turn.js';

const result = (overrides: Partial<TurnResult> = {}): TurnResult => ({
  reason: 'completed',
  stopReason: 'end_turn',
  text: 'All done.',
  usage: { inputTokens: 1, outputTokens: 1, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
  requests: 1,
  toolCalls: 0,
  durationMs: 1,
  ...overrides,
});

function feed(events: Array<[string, Record<string, unknown>, { isError?: boolean }?]>) {
  const collector = createTurnFactsCollector('alice', 'team-lead');
  events.forEach(([name, input, outcome], index) => {
    const toolUseId = `toolu_${index}`;
    collector.observe({ type: 'tool_call_start', toolUseId, name, input } as AgentEvent);
    collector.observe({
      type: 'tool_call_end',
      toolUseId,
      name,
      allowed: true,
      isError: outcome?.isError ?? false,
      durationMs: 1,
      resultText: 'ok',
    } as AgentEvent);
  });
  return collector.facts;
}

describe('idle notification after a turn', () => {
  it('takes the summary of the last SendMessage, marking a message to a peer', () => {
    expect(
      feed([['SendMessage', { type: 'message', recipient: 'bob', summary: 'Renamed utils' }]]),
    ).toMatchObject({ summary: '[to bob] Renamed utils' });
    expect(
      feed([
        ['SendMessage', { type: 'message', recipient: 'bob', summary: 'first' }],
        ['SendMessage', { type: 'message', recipient: 'team-lead', summary: 'Task 1 done' }],
      ]),
    ).toMatchObject({ summary: 'Task 1 done' });
    // A call that failed did not send anything.
    expect(
      feed([
        ['SendMessage', { type: 'message', recipient: 'bob', summary: 'x' }, { isError: true }],
      ]),
    ).toEqual({});
  });

  it('reports the task completed in the turn and a shutdown it approved', () => {
    const facts = feed([
      ['TaskUpdate', { taskId: '3', status: 'in_progress' }],
      ['TaskUpdate', { taskId: '3', status: 'completed' }],
      ['SendMessage', { type: 'shutdown_response', request_id: 'shutdown-1@alice', approve: true }],
    ]);
    expect(facts).toMatchObject({
      currentTaskId: '3',
      completedTaskId: '3',
      approvedShutdownRequestId: 'shutdown-1@alice',
    });
    const notification = buildIdleNotification({
      agentName: 'alice',
      result: result(),
      facts,
      dialect: 'v1',
      now: new Date('2026-11-24T10:00:00.000Z'),
    });
    expect(notification).toEqual({
      type: 'idle_notification',
      from: 'alice',
      timestamp: '2026-11-24T10:00:00.000Z',
      idleReason: 'available',
      completedTaskId: '3',
      completedStatus: 'success',
    });
    expect(IdleNotificationSchema.safeParse(notification).success).toBe(true);
  });

  it('gives a failed turn its reason and, in a v2 team, the last text cut as Claude Code cuts it', () => {
    const failed = buildIdleNotification({
      agentName: 'alice',
      result: result({ reason: 'failed', error: { code: 'MODEL_ERROR', message: 'overloaded' } }),
      facts: {},
      dialect: 'v2',
    });
    expect(failed).toMatchObject({
      idleReason: 'failed',
      failureReason: 'overloaded',
      result: 'All done.',
    });
    const long = buildIdleNotification({
      agentName: 'alice',
      result: result({ text: 'x'.repeat(IDLE_RESULT_MAXIMUM_CHARACTERS + 10) }),
      facts: {},
      dialect: 'v2',
    });
    expect(long.result).toBe(
      `${'x'.repeat(IDLE_RESULT_MAXIMUM_CHARACTERS)}[result truncated — ask the agent for the rest via SendMessage]`,
    );
    expect(IdleNotificationSchema.safeParse(long).success).toBe(true);
    const interrupted = buildIdleNotification({
      agentName: 'alice',
      result: result({ reason: 'aborted' }),
      facts: {},
      dialect: 'v1',
    });
    expect(interrupted).not.toHaveProperty('result');
    expect(interrupted.idleReason).toBe('interrupted');
  });

  it('carries the usage so far as tokenUsage when given (a process teammate), last, valid in both dialects', () => {
    const usage = {
      inputTokens: 1_840,
      outputTokens: 612,
      cacheCreationInputTokens: 9_210,
      cacheReadInputTokens: 40_412,
    };
    for (const dialect of ['v1', 'v2'] as const) {
      const notification = buildIdleNotification({
        agentName: 'bob',
        result: result(),
        facts: {},
        dialect,
        tokenUsage: { ...usage, extra: 1 } as typeof usage,
      });
      expect(notification.tokenUsage).toEqual(usage);
      expect(Object.keys(notification).at(-1)).toBe('tokenUsage');
      expect(IdleNotificationSchema.safeParse(notification).success).toBe(true);
    }
    const without = buildIdleNotification({
      agentName: 'alice',
      result: result(),
      facts: {},
      dialect: 'v1',
    });
    expect(without).not.toHaveProperty('tokenUsage');
  });
});
