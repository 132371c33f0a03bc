// The demo lead's decisions, step by step, from Claude Code 2.1.45-shaped requests.
import { describe, expect, it } from 'vitest';
import { createScriptContext } from '../script-context.js';
import type { Reply } from '../types.js';
import { PLAN_FEEDBACK } from './demo-team-content.js';
import {
  claudeCodeRequest,
  schemaProblems,
  teammateMessage,
  toolSchema,
  toolUsesOf,
  type Message,
} from './demo-team-test-support.js';
import { demoTeamScript } from './demo-team.js';

const repository = '/tmp/demo/repo';

function ask(messages: Message[]): Reply {
  const reply = demoTeamScript(
    claudeCodeRequest('lead', messages, repository),
    createScriptContext(),
  ) as Reply;
  for (const use of toolUsesOf(reply))
    expect(schemaProblems(toolSchema(use.name), use.input), use.name).toEqual([]);
  return reply;
}

let counter = 0;
/** The conversation after the lead answered with `reply` and its tools returned `results`. */
function after(
  messages: Message[],
  reply: Reply,
  results: (string | { content: string; isError: true })[],
): Message[] {
  const content = reply.content.map((block) =>
    block.type === 'tool_use' ? { ...block, id: `toolu_${++counter}` } : block,
  );
  const uses = content.filter((block) => block.type === 'tool_use');
  expect(uses).toHaveLength(results.length);
  return [
    ...messages,
    { role: 'assistant', content },
    {
      role: 'user',
      content: uses.map((use, position) => {
        const result = results[position]!;
        return typeof result === 'string'
          ? { type: 'tool_result', tool_use_id: use.id, content: result }
          : { type: 'tool_result', tool_use_id: use.id, content: result.content, is_error: true };
      }),
    },
  ];
}

function withMessages(messages: Message[], reply: Reply, ...entries: string[]): Message[] {
  return [
    ...messages,
    { role: 'assistant', content: reply.content },
    { role: 'user', content: entries.join('\n\n') },
  ];
}

const start: Message[] = [
  { role: 'user', content: 'Add a slugify(text) function with tests and docs.' },
];
const teamCreated = JSON.stringify(
  {
    team_name: 'slugify-team-2',
    team_file_path: '/h/.claude/teams/slugify-team-2/config.json',
    lead_agent_id: 'team-lead@slugify-team-2',
  },
  null,
  2,
);

/** Plays the lead up to the spawned team, with task ids 4, 5, 6 (another list already had 3). */
function spawnedTeam(): { messages: Message[]; spawnReply: Reply } {
  let messages = start;
  const create = ask(messages);
  messages = after(messages, create, [teamCreated]);
  const tasks = ask(messages);
  messages = after(messages, tasks, [
    'Task #4 created successfully: Implement slugify()',
    'Task #5 created successfully: Write tests for slugify()',
    'Task #6 created successfully: Document slugify() in README.md',
  ]);
  const dependencies = ask(messages);
  messages = after(messages, dependencies, [
    'Updated task #5 blockedBy',
    'Updated task #6 blockedBy',
  ]);
  const spawnReply = ask(messages);
  messages = after(messages, spawnReply, [
    'Spawned successfully.\nagent_id: alice@slugify-team-2',
    'Spawned successfully.\nagent_id: bob@slugify-team-2',
  ]);
  return { messages, spawnReply };
}

describe('the demo lead', () => {
  it('creates the team, three tasks, two dependencies on the first, then spawns alice and plan-mode bob', () => {
    const create = ask(start);
    expect(toolUsesOf(create)).toEqual([
      {
        name: 'TeamCreate',
        input: { team_name: 'slugify-team', description: 'Add slugify() with tests and docs' },
      },
    ]);
    const afterCreate = after(start, create, [teamCreated]);
    expect(toolUsesOf(ask(afterCreate)).map((use) => [use.name, use.input.subject])).toEqual([
      ['TaskCreate', 'Implement slugify()'],
      ['TaskCreate', 'Write tests for slugify()'],
      ['TaskCreate', 'Document slugify() in README.md'],
    ]);
    const { messages, spawnReply } = spawnedTeam();
    const dependencies = toolUsesOf(ask(messages.slice(0, -4)));
    expect(dependencies.map((use) => use.input)).toEqual([
      { taskId: '5', addBlockedBy: ['4'] },
      { taskId: '6', addBlockedBy: ['4'] },
    ]);
    const [alice, bob] = toolUsesOf(spawnReply);
    expect(alice).toMatchObject({
      name: 'Task',
      input: { name: 'alice', team_name: 'slugify-team-2', subagent_type: 'general-purpose' },
    });
    expect(alice?.input.mode).toBeUndefined();
    expect(alice?.input.prompt).toMatch(
      /^You are alice\b[\s\S]*#4 [\s\S]*The repository is at \/tmp\/demo\/repo\./,
    );
    expect(bob).toMatchObject({
      name: 'Task',
      input: { name: 'bob', team_name: 'slugify-team-2', mode: 'plan' },
    });
    expect(bob?.input.prompt).toMatch(/#5 [\s\S]*#6 [\s\S]*blocked by #4/);
    const waiting = ask(messages);
    expect(toolUsesOf(waiting)).toEqual([]);
    expect(waiting.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('wait'),
    });
  });

  it("rejects bob's first plan with feedback, then approves the revision", () => {
    const { messages } = spawnedTeam();
    const waiting = ask(messages);
    const request = (id: string) =>
      teammateMessage(
        'bob',
        JSON.stringify({
          type: 'plan_approval_request',
          from: 'bob',
          planFilePath: '/h/plans/p.md',
          planContent: '# Plan',
          requestId: id,
        }),
      );
    const firstTurn = withMessages(
      messages,
      waiting,
      request('plan_approval-1@bob@slugify-team-2'),
    );
    const rejection = ask(firstTurn);
    expect(toolUsesOf(rejection)).toEqual([
      {
        name: 'SendMessage',
        input: {
          type: 'plan_approval_response',
          request_id: 'plan_approval-1@bob@slugify-team-2',
          recipient: 'bob',
          approve: false,
          content: PLAN_FEEDBACK,
        },
      },
    ]);
    const afterRejection = after(firstTurn, rejection, ['{"success":true}']);
    const secondTurn = withMessages(
      afterRejection,
      ask(afterRejection),
      request('plan_approval-2@bob@slugify-team-2'),
    );
    expect(toolUsesOf(ask(secondTurn))).toEqual([
      {
        name: 'SendMessage',
        input: {
          type: 'plan_approval_response',
          request_id: 'plan_approval-2@bob@slugify-team-2',
          recipient: 'bob',
          approve: true,
        },
      },
    ]);
  });

  it('checks the task list on a report, waits while tasks are open, and asks both to shut down when all are completed', () => {
    const { messages } = spawnedTeam();
    const idle = withMessages(
      messages,
      ask(messages),
      teammateMessage(
        'alice',
        '{"type":"idle_notification","from":"alice","idleReason":"available"}',
        { color: 'blue' },
      ),
    );
    expect(toolUsesOf(ask(idle))).toEqual([]);
    const report = withMessages(
      messages,
      ask(messages),
      teammateMessage('alice', 'Task #4 is done', { color: 'blue', summary: 'Task #4 done' }),
    );
    const check = ask(report);
    expect(toolUsesOf(check)).toEqual([{ name: 'TaskList', input: {} }]);
    const open = after(report, check, [
      '#4 [completed] Implement slugify() (alice)\n#5 [pending] Write tests for slugify()\n#6 [pending] Document slugify() in README.md',
    ]);
    expect(ask(open).content).toEqual([
      { type: 'text', text: 'Still open: #5, #6. Waiting for the team.' },
    ]);
    const done = after(report, check, [
      '#4 [completed] Implement slugify() (alice)\n#5 [completed] Write tests for slugify() (bob)\n#6 [completed] Document slugify() in README.md (bob)',
    ]);
    const shutdown = ask(done);
    expect(toolUsesOf(shutdown).map((use) => use.input)).toEqual([
      {
        type: 'shutdown_request',
        recipient: 'alice',
        content: 'All tasks are completed. Thank you, please shut down.',
      },
      {
        type: 'shutdown_request',
        recipient: 'bob',
        content: 'All tasks are completed. Thank you, please shut down.',
      },
    ]);
  });

  it('deletes the team only once both teammates approved their shutdown, then sums up', () => {
    const { messages } = spawnedTeam();
    const approved = (name: string) =>
      teammateMessage(
        name,
        JSON.stringify({
          type: 'shutdown_approved',
          requestId: `shutdown-1@${name}`,
          from: name,
          paneId: 'in-process',
          backendType: 'in-process',
        }),
      );
    const one = withMessages(messages, ask(messages), approved('alice'));
    expect(toolUsesOf(ask(one))).toEqual([]);
    const both = withMessages(one, ask(one), approved('bob'));
    const deletion = ask(both);
    expect(toolUsesOf(deletion)).toEqual([{ name: 'TeamDelete', input: {} }]);
    const batch = withMessages(messages, ask(messages), approved('alice'), approved('bob'));
    expect(toolUsesOf(ask(batch))).toEqual([{ name: 'TeamDelete', input: {} }]);
    // A runtime that removes a member only once it really ended may refuse the first TeamDelete.
    const refusal = {
      content: '{"success":false,"message":"Team \\"slugify-team\\" still has teammates: bob."}',
      isError: true as const,
    };
    let pending = after(both, deletion, [refusal]);
    for (let attempt = 2; attempt <= 6; attempt += 1) {
      const retry = ask(pending);
      expect(toolUsesOf(retry)).toEqual([{ name: 'TeamDelete', input: {} }]);
      expect(retry.fault).toEqual({ kind: 'pings-only', durationMs: 500 });
      pending = after(pending, retry, [refusal]);
    }
    expect(ask(pending).content[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('TeamDelete failed'),
    });
    const end = ask(after(both, deletion, ['{"success":true,"team_name":"slugify-team-2"}']));
    expect(end.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('shut down and deleted'),
    });
    expect(end.stopReason).toBeUndefined();
  });

  it('asks again after a rejected shutdown, and stops with a clear text when a tool fails', () => {
    const { messages } = spawnedTeam();
    const rejected = withMessages(
      messages,
      ask(messages),
      teammateMessage(
        'alice',
        JSON.stringify({
          type: 'shutdown_rejected',
          requestId: 'shutdown-1@alice',
          from: 'alice',
          reason: 'Still wrapping up',
        }),
      ),
    );
    expect(toolUsesOf(ask(rejected))).toEqual([
      {
        name: 'SendMessage',
        input: {
          type: 'shutdown_request',
          recipient: 'alice',
          content: 'Every task is completed; please shut down now.',
        },
      },
    ]);
    const failedCreate = after(start, ask(start), [
      { content: 'Already leading team "other"', isError: true },
    ]);
    expect(ask(failedCreate).content).toEqual([
      {
        type: 'text',
        text: 'demo-team lead: TeamCreate failed: Already leading team "other". I stop here.',
      },
    ]);
    const missingIds = after(
      after(start, ask(start), [teamCreated]),
      ask(after(start, ask(start), [teamCreated])),
      ['created', 'created', 'created'],
    );
    expect(ask(missingIds).content[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('could not read the three task ids'),
    });
  });
});
