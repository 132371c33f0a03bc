import { describe, expect, it } from 'vitest';
import {
  agentNameOf,
  allTeammateMessages,
  firstUserText,
  hasTool,
  isLeadRequest,
  isTeammateRequest,
  lastUserText,
  parseTeammateMessages,
  spawnPromptOf,
  systemText,
  teammateMessages,
  toolCalls,
  toolNames,
  toolResults,
  userIdOf,
  workingDirectoryOf,
} from './script-helpers-tellers.js';
import { claudeCodeRequest, teammateMessage } from './scripts/demo-team-test-support.js';
import type { ScriptRequest } from './types.js';

const spawn = (prompt: string) => [
  { role: 'user' as const, content: teammateMessage('team-lead', prompt) },
];

describe('telling agents apart by what Claude Code 2.1.45 sends', () => {
  it('the lead is offered Task and TeamCreate and is named team-lead', () => {
    const lead = claudeCodeRequest('lead', [{ role: 'user', content: 'Add slugify' }]);
    expect(isLeadRequest(lead)).toBe(true);
    expect(isTeammateRequest(lead)).toBe(false);
    expect(agentNameOf(lead)).toBe('team-lead');
    expect(hasTool(lead, 'TeamCreate')).toBe(true);
  });

  it('a teammate is named from the spawn prompt in its first user message', () => {
    const cases: [string, string | undefined][] = [
      ['You are alice, the implementer on team t.', 'alice'],
      ['SCENARIO-TEAMMATE:alpha You are alpha. Claim task 1.', 'alpha'],
      ['Your name is "reviewer-2". Review the diff.', 'reviewer-2'],
      ['You are teammate gamma in team t.', 'gamma'],
      ['Hi bob, please write the tests.', 'bob'],
      ['You are a careful tester. Write tests.', undefined],
      ['You are an expert. Go.', undefined],
      ['Please write the tests.', undefined],
    ];
    for (const [prompt, name] of cases) {
      const request = claudeCodeRequest('teammate', spawn(prompt));
      expect(isTeammateRequest(request), prompt).toBe(true);
      expect(isLeadRequest(request)).toBe(false);
      expect(agentNameOf(request), prompt).toBe(name);
      expect(spawnPromptOf(request)).toBe(prompt);
    }
  });

  it('a name stated in the system prompt wins; the lead-looking spawn of a teammate is still a teammate', () => {
    const request = claudeCodeRequest('teammate', spawn('You are alice.'));
    (request.body.system as { text: string }[]).push({
      type: 'text',
      text: 'agent name: carol',
    } as never);
    expect(agentNameOf(request)).toBe('carol');
    const offeredLeadTools = claudeCodeRequest('lead', spawn('You are dave.'));
    expect(isLeadRequest(offeredLeadTools)).toBe(false);
    expect(agentNameOf(offeredLeadTools)).toBe('dave');
  });

  it('reads the system prompt, working directory, tools and user id', () => {
    const request = claudeCodeRequest('teammate', spawn('You are alice.'), '/tmp/run/repo');
    expect(systemText(request)).toContain(
      "You are Claude Code, Anthropic's official CLI for Claude.",
    );
    expect(systemText(request)).toContain('# Agent Teammate Communication');
    expect(workingDirectoryOf(request)).toBe('/tmp/run/repo');
    expect(toolNames(request)).toContain('SendMessage');
    expect(toolNames(request)).not.toContain('Task');
    expect(userIdOf(request)).toBe('user_demo_account__session_1');
  });

  it("reads the working directory from a list item, as muster's system prompts state it", () => {
    const request = claudeCodeRequest('teammate', spawn('You are alice.'));
    const body = {
      ...request.body,
      system: '# Environment\n- Working directory: /tmp/muster/repo\n- Platform: linux',
    };
    expect(workingDirectoryOf({ ...request, body } as ScriptRequest)).toBe('/tmp/muster/repo');
  });
});

describe('reading the conversation', () => {
  const conversation = claudeCodeRequest('lead', [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Add slugify' },
        { type: 'text', text: '<system-reminder>\nTodo list is empty\n</system-reminder>' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Creating tasks.' },
        {
          type: 'tool_use',
          id: 'toolu_1',
          name: 'TaskCreate',
          input: { subject: 'A', description: 'a' },
        },
        { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'npm test' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Task #1 created successfully: A' },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          content: [{ type: 'text', text: 'Permission denied' }],
          is_error: true,
        },
        { type: 'tool_result', tool_use_id: 'toolu_unknown', content: 'orphan' },
      ],
    },
  ]);

  it('toolResults joins each result with the call it answers', () => {
    expect(toolResults(conversation)).toEqual([
      {
        toolUseId: 'toolu_1',
        toolName: 'TaskCreate',
        input: { subject: 'A', description: 'a' },
        content: 'Task #1 created successfully: A',
        isError: false,
      },
      {
        toolUseId: 'toolu_2',
        toolName: 'Bash',
        input: { command: 'npm test' },
        content: 'Permission denied',
        isError: true,
      },
      { toolUseId: 'toolu_unknown', toolName: '', input: {}, content: 'orphan', isError: false },
    ]);
    expect(toolCalls(conversation).map((call) => call.name)).toEqual(['TaskCreate', 'Bash']);
  });

  it('first and last user text drop system reminders unless asked to keep them', () => {
    expect(firstUserText(conversation)).toBe('Add slugify');
    expect(firstUserText(conversation, { keepSystemReminders: true })).toContain(
      'Todo list is empty',
    );
    expect(lastUserText(conversation)).toBe('');
  });

  it('teammate messages parse attributes, escapes and protocol payloads, several per turn', () => {
    const batch = [
      teammateMessage('alice', 'Task #1 is done', { color: 'blue', summary: 'Task 1 done' }),
      teammateMessage(
        'bob',
        JSON.stringify({
          type: 'plan_approval_request',
          requestId: 'plan_approval-1@bob@t',
          planContent: '# Plan',
        }),
      ),
      '<teammate-message teammate_id="a&quot;b" summary="two&#10;lines">\nbody with <b> & "quotes"\n</teammate-message>',
    ].join('\n\n');
    const request = claudeCodeRequest('lead', [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      { role: 'user', content: batch },
    ]);
    const messages = teammateMessages(request);
    expect(messages[0]).toEqual({
      from: 'alice',
      color: 'blue',
      summary: 'Task 1 done',
      text: 'Task #1 is done',
    });
    expect(messages[1]?.payload).toMatchObject({
      type: 'plan_approval_request',
      requestId: 'plan_approval-1@bob@t',
    });
    expect(messages[2]).toEqual({
      from: 'a"b',
      summary: 'two\nlines',
      text: 'body with <b> & "quotes"',
    });
    expect(allTeammateMessages(request)).toHaveLength(3);
    expect(parseTeammateMessages('{"type":"x"} not wrapped')).toEqual([]);
  });

  it('never throws on ill-formed requests', () => {
    const odd = [
      { index: 0, path: '/', headers: {}, receivedAt: 0, body: {} },
      {
        index: 0,
        path: '/',
        headers: {},
        receivedAt: 0,
        body: { messages: 'nope', system: 42, tools: [null, 'x', { name: 3 }], metadata: [] },
      },
      {
        index: 0,
        path: '/',
        headers: {},
        receivedAt: 0,
        body: {
          messages: [
            null,
            { role: 'user', content: 5 },
            { role: 'assistant', content: [null, { type: 'tool_use' }] },
          ],
        },
      },
      { index: 0, path: '/', headers: {}, receivedAt: 0, body: null },
    ] as unknown as ScriptRequest[];
    for (const request of odd) {
      expect(agentNameOf(request)).toBeUndefined();
      expect(lastUserText(request)).toBe('');
      expect(toolResults(request)).toEqual([]);
      expect(toolNames(request)).toEqual([]);
      expect(systemText(request)).toBe('');
      expect(userIdOf(request)).toBeUndefined();
      expect(teammateMessages(request)).toEqual([]);
    }
  });
});
