// Messages that arrive while an agent's tools run reach its model together with the tool
// results (muster's mid-turn delivery, read once): the demo agents must act on them there too.
// Before this was handled, a revised plan delivered with the result of the lead's rejection was
// never approved, so bob never ran his tests (the CI flake of `muster demo --run -p`).
import { describe, expect, it } from 'vitest';
import { createScriptContext } from '../script-context.js';
import type { Reply } from '../types.js';
import { PLAN_FEEDBACK, PLAN_REVISED, testerPrompt } from './demo-team-content.js';
import {
  claudeCodeRequest,
  continueAfter,
  teammateMessage,
  toolUsesOf,
  type AgentKind,
  type Message,
  type ResultSpec,
} from './demo-team-test-support.js';
import { demoTeamScript } from './demo-team.js';

const repository = '/tmp/demo/repo';
const planFile = '/tmp/demo/home/plans/slugify-team-bob.md';

function ask(kind: AgentKind, messages: Message[]): Reply {
  return demoTeamScript(
    claudeCodeRequest(kind, messages, repository),
    createScriptContext(),
  ) as Reply;
}

/** The conversation after `reply`'s tools returned `results`, with `delivered` joined to them. */
function afterWith(
  messages: Message[],
  reply: Reply,
  results: ResultSpec[],
  ...delivered: string[]
): Message[] {
  const next = continueAfter(messages, reply, results);
  const last = next.at(-1)!;
  const content = [...(last.content as object[]), { type: 'text', text: delivered.join('\n\n') }];
  return [...next.slice(0, -1), { role: 'user', content } as Message];
}

function withMessage(messages: Message[], reply: Reply, entry: string): Message[] {
  return [
    ...messages,
    { role: 'assistant', content: reply.content },
    { role: 'user', content: entry },
  ];
}

const planRequest = (id: string) =>
  teammateMessage(
    'bob',
    JSON.stringify({
      type: 'plan_approval_request',
      from: 'bob',
      planFilePath: planFile,
      planContent: '# Plan',
      requestId: id,
    }),
  );

/** The lead with its team spawned (tasks 1 to 4), having just rejected bob's first plan. */
function leadAfterRejection(): { messages: Message[]; rejection: Reply } {
  let messages: Message[] = [{ role: 'user', content: 'Add a slugify(text) function.' }];
  const steps: ResultSpec[][] = [
    ['{"team_name":"slugify-team"}'],
    [
      'Task #1 created successfully',
      'Task #2 created successfully',
      'Task #3 created successfully',
      'Task #4 created successfully',
    ],
    ['Updated task #2 blockedBy', 'Updated task #3 blockedBy', 'Updated task #4 blockedBy'],
    ['Spawned successfully.', 'Spawned successfully.', 'Spawned successfully.'],
  ];
  for (const results of steps) messages = continueAfter(messages, ask('lead', messages), results);
  messages = withMessage(messages, ask('lead', messages), planRequest('plan_approval-1@bob@t'));
  const rejection = ask('lead', messages);
  expect(toolUsesOf(rejection)).toEqual([
    {
      name: 'SendMessage',
      input: {
        type: 'plan_approval_response',
        request_id: 'plan_approval-1@bob@t',
        recipient: 'bob',
        approve: false,
        content: PLAN_FEEDBACK,
      },
    },
  ]);
  return { messages, rejection };
}

const approval = {
  name: 'SendMessage',
  input: {
    type: 'plan_approval_response',
    request_id: 'plan_approval-2@bob@t',
    recipient: 'bob',
    approve: true,
  },
};

describe('the demo lead, with messages delivered together with tool results', () => {
  it("approves bob's revised plan that came with the result of the rejection", () => {
    const { messages, rejection } = leadAfterRejection();
    const next = afterWith(
      messages,
      rejection,
      ['{"success":true}'],
      planRequest('plan_approval-2@bob@t'),
    );
    expect(toolUsesOf(ask('lead', next))).toEqual([approval]);
  });

  it('approves a revised plan that came with a TaskList result, and still reads the list', () => {
    const { messages, rejection } = leadAfterRejection();
    let next = continueAfter(messages, rejection, ['{"success":true}']);
    next = withMessage(next, ask('lead', next), teammateMessage('alice', 'Task #1 is done'));
    const check = ask('lead', next);
    expect(toolUsesOf(check)).toEqual([{ name: 'TaskList', input: {} }]);
    const reply = ask(
      'lead',
      afterWith(
        next,
        check,
        ['#1 [completed] Implement\n#2 [pending] Tests\n#3 [pending] Docs\n#4 [completed] Review'],
        planRequest('plan_approval-2@bob@t'),
      ),
    );
    expect(toolUsesOf(reply)).toEqual([approval]);
    expect(reply.content[0]).toMatchObject({ text: expect.stringContaining('Still open: #2, #3') });
  });

  it('checks the task list on a report that came with a tool result, and deletes the team once all three approved their shutdown', () => {
    const { messages, rejection } = leadAfterRejection();
    const report = ask(
      'lead',
      afterWith(
        messages,
        rejection,
        ['{"success":true}'],
        teammateMessage('bob', 'Tasks #2 and #3 are done'),
      ),
    );
    expect(toolUsesOf(report)).toEqual([{ name: 'TaskList', input: {} }]);
    const approved = (name: string) =>
      teammateMessage(
        name,
        JSON.stringify({ type: 'shutdown_approved', requestId: `s@${name}`, from: name }),
      );
    const shutdown = afterWith(
      messages,
      rejection,
      ['{"success":true}'],
      approved('alice'),
      approved('bob'),
      approved('carol'),
    );
    expect(toolUsesOf(ask('lead', shutdown))).toEqual([{ name: 'TeamDelete', input: {} }]);
  });
});

describe('the demo teammates, with the lead message delivered together with a tool result', () => {
  const start: Message[] = [
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: teammateMessage('team-lead', testerPrompt('2', '3', '1', undefined)),
        },
        {
          type: 'text',
          text: `<system-reminder>\nPlan mode is active. You should create your plan at ${planFile} using the Write tool.\n</system-reminder>`,
        },
      ],
    },
  ];

  /** bob's conversation up to his ExitPlanMode call. */
  function submitting(): { messages: Message[]; exit: Reply } {
    let messages = continueAfter(start, ask('teammate-plan-mode', start), ['export {}']);
    messages = continueAfter(messages, ask('teammate-plan-mode', messages), ['ok']);
    const exit = ask('teammate-plan-mode', messages);
    expect(toolUsesOf(exit).map((use) => use.name)).toEqual(['ExitPlanMode']);
    return { messages, exit };
  }
  const submittedText = 'Your plan has been submitted to the team lead for approval.';

  it('bob revises his plan when the rejection (muster text) came with the ExitPlanMode result', () => {
    const { messages, exit } = submitting();
    const revise = ask(
      'teammate-plan-mode',
      afterWith(messages, exit, [submittedText], `[Plan Rejected] ${PLAN_FEEDBACK}`),
    );
    expect(toolUsesOf(revise)).toEqual([
      { name: 'Write', input: { file_path: planFile, content: PLAN_REVISED } },
    ]);
  });

  it('bob takes an approval (Claude Code message) that came with the ExitPlanMode result', () => {
    const { messages, exit } = submitting();
    const answer = teammateMessage(
      'team-lead',
      JSON.stringify({ type: 'plan_approval_response', requestId: 'p', approved: true }),
    );
    const reply = ask('teammate-plan-mode', afterWith(messages, exit, [submittedText], answer));
    expect(reply.content).toEqual([
      { type: 'text', text: 'Plan approved. Waiting for alice to finish slugify().' },
    ]);
  });

  it('bob approves a shutdown request that came with a tool result', () => {
    const { messages, exit } = submitting();
    const request = teammateMessage(
      'team-lead',
      JSON.stringify({ type: 'shutdown_request', requestId: 'shutdown-7@bob', from: 'team-lead' }),
    );
    expect(
      toolUsesOf(ask('teammate-plan-mode', afterWith(messages, exit, [submittedText], request))),
    ).toEqual([
      {
        name: 'SendMessage',
        input: { type: 'shutdown_response', request_id: 'shutdown-7@bob', approve: true },
      },
    ]);
  });
});
