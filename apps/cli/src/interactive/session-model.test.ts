import type { TeamEvent } from '@muster/agents';
import type { AgentEvent, TokenUsage } from '@muster/query';
import { describe, expect, it } from 'vitest';
import { tasksEvent } from '../test-support/team-events.js';
import { CONVERSATION_ENTRY_LIMIT } from './conversation-model.js';
import {
  agentCost,
  initialSessionModel,
  LEAD_NAME,
  reduceSession,
  selectableAgents,
  totalCost,
  type SessionAction,
  type SessionModel,
} from './session-model.js';

const at = 1;
const usage = (tokens: number): TokenUsage => ({
  inputTokens: tokens,
  outputTokens: 0,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens: 0,
});

function run(actions: SessionAction[], start?: SessionModel): SessionModel {
  return actions.reduce(
    reduceSession,
    start ??
      initialSessionModel({ scriptedDemo: false, model: 'sonnet', permissionMode: 'default' }),
  );
}

const agent = (
  agentName: string,
  event: AgentEvent,
): Extract<SessionAction, { type: 'event' }> => ({
  type: 'event',
  event: { type: 'agent', agentName, event, at },
});
const team = (event: TeamEvent): SessionAction => ({ type: 'event', event });

describe('the session view-model', () => {
  it('a spawned teammate appears with its backend and type, then its state, task, color, usage and cost', () => {
    const model = run([
      team({
        type: 'spawn',
        path: 'teammate',
        agentName: 'alice',
        agentType: 'general-purpose',
        parentName: LEAD_NAME,
        backendType: 'in-process',
        at,
      }),
      // A subagent is not a teammate: it stays out of the panel.
      team({
        type: 'spawn',
        path: 'subagent',
        agentName: 'explore-1',
        agentType: 'Explore',
        parentName: LEAD_NAME,
        at,
      }),
      team({ type: 'member_state', agentName: 'alice', state: 'working', at }),
      team(
        tasksEvent('slugify-team', [
          {
            id: '1',
            subject: 'Implement slugify()',
            status: 'in_progress',
            owner: 'alice',
            activeForm: 'Implementing slugify()',
          },
          { id: '2', subject: 'Write tests', status: 'pending' },
        ]),
      ),
      {
        type: 'roster',
        members: [
          {
            name: 'alice',
            backendType: 'in-process',
            color: 'blue',
            agentType: 'general-purpose',
            model: 'claude-sonnet-4-5',
            // In-process members report their state as events: this older one is not taken.
            state: 'idle',
            usage: usage(100),
            costUsd: 0.5,
          },
        ],
        status: {
          model: 'claude-sonnet-4-5',
          permissionMode: 'acceptEdits',
          teamName: 'slugify-team',
          unpricedAgents: [],
        },
      },
      team({ type: 'usage', agentName: 'alice', usage: usage(150), costUsd: 0.75, at }),
    ]);
    expect(model.teamName).toBe('slugify-team');
    expect(model.permissionMode).toBe('acceptEdits');
    expect(model.members).toEqual([
      {
        name: 'alice',
        state: 'working',
        agentType: 'general-purpose',
        backend: 'in-process',
        color: 'blue',
        model: 'claude-sonnet-4-5',
        task: { id: '1', subject: 'Implement slugify()', activeForm: 'Implementing slugify()' },
        usage: usage(150),
      },
    ]);
    expect(model.tasks).toHaveLength(2);
    expect(agentCost(model, 'alice')).toBe(0.75);
    expect(selectableAgents(model)).toEqual([LEAD_NAME, 'alice']);
  });

  it('an agent whose model has no price makes its cost unknown, and the total leaves it out', () => {
    const model = run([
      team({ type: 'usage', agentName: LEAD_NAME, usage: usage(10), costUsd: 0.1, at }),
    ]);
    expect(totalCost(model)).toBeCloseTo(0.1);
    const unpriced = run(
      [team({ type: 'usage', agentName: 'carol', usage: usage(15), at })],
      model,
    );
    expect(unpriced.unpriced).toEqual(['carol']);
    expect(agentCost(unpriced, 'carol')).toBeUndefined();
    expect(totalCost(unpriced)).toBeCloseTo(0.1);
    expect(model.leadUsage).toEqual(usage(10));
    // The runtime's status is the truth: carol priced since, the lead's cost as it reports it.
    const priced = run(
      [
        {
          type: 'roster',
          members: [{ name: 'carol', backendType: 'tmux', costUsd: 0.05 }],
          status: {
            model: 'sonnet',
            permissionMode: 'default',
            leadCostUsd: 0.2,
            unpricedAgents: [],
          },
        },
      ],
      unpriced,
    );
    expect(priced.unpriced).toEqual([]);
    expect(agentCost(priced, LEAD_NAME)).toBe(0.2);
    expect(totalCost(priced)).toBeCloseTo(0.25);
  });

  it('a pty teammate reported by the roster shows its backend state and screen; tmux its attach command', () => {
    const model = run([
      {
        type: 'roster',
        members: [
          { name: 'carol', backendType: 'pty', state: 'idle' },
          { name: 'dave', backendType: 'tmux', look: 'attach: tmux -L muster-x attach -t %3' },
        ],
        status: { model: 'sonnet', permissionMode: 'default', unpricedAgents: [] },
      },
      { type: 'screen', agentName: 'carol', text: 'carol here\n> ' },
      { type: 'screen', agentName: 'nobody', text: 'ignored' },
    ]);
    expect(
      model.members.map((member) => [member.name, member.state, member.screen, member.look]),
    ).toEqual([
      ['carol', 'idle', 'carol here\n> ', undefined],
      ['dave', 'starting', undefined, 'attach: tmux -L muster-x attach -t %3'],
    ]);
  });

  it('streams the lead text, collapses a tool call to one entry with its result, notes an interrupted turn', () => {
    const model = run([
      { type: 'person', to: LEAD_NAME, text: 'Add slugify' },
      agent(LEAD_NAME, { type: 'turn_start', turn: 1, at }),
      agent(LEAD_NAME, { type: 'text_delta', text: 'Creating ' }),
      agent(LEAD_NAME, { type: 'text_delta', text: 'the team.' }),
      agent(LEAD_NAME, {
        type: 'tool_call_start',
        toolUseId: 't1',
        name: 'Bash',
        input: { command: 'npm test', description: 'tests' },
      }),
      agent(LEAD_NAME, {
        type: 'tool_call_end',
        toolUseId: 't1',
        name: 'Bash',
        allowed: true,
        isError: false,
        durationMs: 5,
        resultText: '# pass 4',
      }),
    ]);
    const conversation = model.conversations[LEAD_NAME]!;
    expect(conversation.turnRunning).toBe(true);
    expect(conversation.entries).toEqual([
      { kind: 'person', text: 'Add slugify' },
      { kind: 'assistant', text: 'Creating the team.', streaming: false },
      {
        kind: 'tool',
        toolUseId: 't1',
        name: 'Bash',
        input: 'npm test',
        status: 'done',
        result: '# pass 4',
      },
    ]);
    const ended = run(
      [
        agent(LEAD_NAME, {
          type: 'turn_end',
          reason: 'aborted',
          stopReason: null,
          text: '',
          usage: usage(0),
          requests: 1,
          toolCalls: 1,
          durationMs: 9,
        }),
      ],
      model,
    );
    expect(ended.conversations[LEAD_NAME]!.turnRunning).toBe(false);
    expect(ended.conversations[LEAD_NAME]!.entries.at(-1)).toEqual({
      kind: 'notice',
      level: 'warning',
      text: 'the turn was interrupted',
    });
  });

  it('an ask waits until its answer, which is noted in the asking agent’s conversation', () => {
    const asked = run([
      team({
        type: 'ask',
        askId: 'ask-1',
        kind: 'permission',
        agentName: 'alice',
        toolName: 'Write',
        input: { file_path: '/repo/a.js', content: 'line one\nline two' },
        description: 'Write on /repo/a.js',
        at,
      }),
      team({
        type: 'ask',
        askId: 'ask-2',
        kind: 'plan',
        agentName: 'bob',
        description: '# Plan\n1. Test it',
        at,
      }),
    ]);
    expect(asked.asks.map((ask) => ask.askId)).toEqual(['ask-1', 'ask-2']);
    expect(asked.asks[0]?.input).toBe('file_path: /repo/a.js\ncontent: line one\nline two');
    const answered = run(
      [
        team({
          type: 'ask_answer',
          askId: 'ask-2',
          behavior: 'deny',
          by: 'person',
          message: 'Test empty text too',
          at,
        }),
      ],
      asked,
    );
    expect(answered.asks.map((ask) => ask.askId)).toEqual(['ask-1']);
    expect(answered.conversations.bob?.entries.at(-1)).toEqual({
      kind: 'notice',
      level: 'warning',
      text: 'plan rejected by person: Test empty text too',
    });
  });

  it('a message shows in the conversations of both ends', () => {
    const model = run([
      team({
        type: 'message',
        from: LEAD_NAME,
        to: 'alice',
        text: 'Use NFKD',
        summary: 'hint',
        at,
      }),
    ]);
    expect(model.conversations.alice?.entries).toHaveLength(1);
    const idle = run(
      [
        team({
          type: 'message',
          from: 'alice',
          to: LEAD_NAME,
          text: '{"type":"idle_notification","from":"alice"}',
          protocolType: 'idle_notification',
          at,
        }),
      ],
      model,
    );
    expect(idle.conversations[LEAD_NAME]?.entries).toHaveLength(1);
    expect(model.conversations[LEAD_NAME]?.entries).toHaveLength(1);
  });

  it('keeps at most CONVERSATION_ENTRY_LIMIT entries and counts the dropped ones', () => {
    const actions: SessionAction[] = Array.from(
      { length: CONVERSATION_ENTRY_LIMIT + 5 },
      (_, index) => ({
        type: 'person',
        to: LEAD_NAME,
        text: `message ${index}`,
      }),
    );
    const conversation = run(actions).conversations[LEAD_NAME]!;
    expect(conversation.entries).toHaveLength(CONVERSATION_ENTRY_LIMIT);
    expect(conversation.dropped).toBe(5);
    expect(conversation.entries[0]).toEqual({ kind: 'person', text: 'message 5' });
  });
});
