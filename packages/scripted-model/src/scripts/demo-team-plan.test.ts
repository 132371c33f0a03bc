// bob's plan submission as the real Claude Code 2.1.45 answered it when its plan-mode reminder
// named no plan file: ExitPlanMode is refused naming the file, bob writes it there and resubmits.
import { describe, expect, it } from 'vitest';
import { createScriptContext } from '../script-context.js';
import type { Reply } from '../types.js';
import { PLAN_FIRST, PLAN_REVISED, testerPrompt } from './demo-team-content.js';
import {
  claudeCodeRequest,
  continueAfter,
  schemaProblems,
  teammateMessage,
  toolSchema,
  toolUsesOf,
  type Message,
} from './demo-team-test-support.js';
import { demoTeamScript } from './demo-team.js';

const repository = '/tmp/demo/repo';
const wanted = '/tmp/demo/home/.claude/plans/twinkly-mixing-patterson-agent-a8fde13.md';
const refusal = {
  content: `No plan file found at ${wanted}. Please write your plan to this file before calling ExitPlanMode.`,
  isError: true as const,
};

function ask(messages: Message[]): Reply {
  const reply = demoTeamScript(
    claudeCodeRequest('teammate-plan-mode', messages, repository),
    createScriptContext(),
  ) as Reply;
  for (const use of toolUsesOf(reply)) {
    expect(schemaProblems(toolSchema(use.name), use.input), use.name).toEqual([]);
  }
  return reply;
}

const start: Message[] = [
  { role: 'user', content: teammateMessage('team-lead', testerPrompt('2', '3', '1', undefined)) },
];

function refusedOnce(): Message[] {
  let messages = continueAfter(start, ask(start), [
    "     1→export { capitalize } from './capitalize.js';",
  ]);
  const exit = ask(messages);
  expect(toolUsesOf(exit)).toEqual([{ name: 'ExitPlanMode', input: {} }]);
  messages = continueAfter(messages, exit, [refusal]);
  return messages;
}

describe('bob when Claude Code names the plan file only on refusal', () => {
  it('writes the plan to the file named in the refusal, then submits again', () => {
    const messages = refusedOnce();
    const write = ask(messages);
    expect(toolUsesOf(write)).toEqual([
      { name: 'Write', input: { file_path: wanted, content: PLAN_FIRST } },
    ]);
    const resubmit = ask(
      continueAfter(messages, write, [`File created successfully at: ${wanted}`]),
    );
    expect(toolUsesOf(resubmit)).toEqual([
      {
        name: 'ExitPlanMode',
        input: { allowedPrompts: [{ tool: 'Bash', prompt: 'run the tests' }] },
      },
    ]);
  });

  it('after a rejection the revision goes to the plan file it already knows', () => {
    let messages = refusedOnce();
    messages = continueAfter(messages, ask(messages), ['ok']);
    messages = continueAfter(messages, ask(messages), [
      'Your plan has been submitted to the team lead for approval.',
    ]);
    const wait = ask(messages);
    const rejected = teammateMessage(
      'team-lead',
      JSON.stringify({
        type: 'plan_approval_response',
        requestId: 'plan_approval-1@bob@t',
        approved: false,
        feedback: 'More cases.',
      }),
    );
    const revise = ask([
      ...messages,
      { role: 'assistant', content: wait.content },
      { role: 'user', content: rejected },
    ]);
    expect(toolUsesOf(revise)).toEqual([
      {
        name: 'Write',
        input: { file_path: wanted, content: `${PLAN_REVISED}5. Feedback taken in: More cases.\n` },
      },
    ]);
  });

  it('gives up with a clear text when refused again after writing there, or when no file is named', () => {
    let messages = refusedOnce();
    messages = continueAfter(messages, ask(messages), ['ok']);
    const again = continueAfter(messages, ask(messages), [refusal]);
    expect(ask(again).content).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(
          /^demo-team bob: submitting the plan failed \(No plan file found/,
        ),
      },
    ]);
    let bare = continueAfter(start, ask(start), ['ok']);
    bare = continueAfter(bare, ask(bare), [{ content: 'Not in plan mode', isError: true }]);
    expect(ask(bare).content).toEqual([
      { type: 'text', text: 'demo-team bob: submitting the plan failed (Not in plan mode).' },
    ]);
  });

  it("takes muster's plain-text answers: [Plan Rejected] revises, [Plan Approved] waits for alice", () => {
    let messages = refusedOnce();
    messages = continueAfter(messages, ask(messages), ['ok']);
    messages = continueAfter(messages, ask(messages), ['Your plan has been submitted.']);
    const wait = ask(messages);
    const answered = (text: string): Message[] => [
      ...messages,
      { role: 'assistant', content: wait.content },
      { role: 'user', content: text },
    ];
    expect(toolUsesOf(ask(answered('[Plan Rejected] More cases.')))).toEqual([
      {
        name: 'Write',
        input: { file_path: wanted, content: `${PLAN_REVISED}5. Feedback taken in: More cases.\n` },
      },
    ]);
    expect(
      ask(answered('[Plan Approved] You can now proceed with implementation')).content,
    ).toEqual([{ type: 'text', text: 'Plan approved. Waiting for alice to finish slugify().' }]);
  });

  it('approves a shutdown request whose JSON is followed by instructions (as muster delivers it)', () => {
    const request = `${JSON.stringify({ type: 'shutdown_request', requestId: 'shutdown-1@bob', from: 'team-lead' })}\n\nThe lead asks you to stop (a shutdown request).`;
    const messages: Message[] = [
      ...start,
      { role: 'assistant', content: [{ type: 'text', text: 'Waiting.' }] },
      { role: 'user', content: teammateMessage('team-lead', request) },
    ];
    expect(toolUsesOf(ask(messages))).toEqual([
      {
        name: 'SendMessage',
        input: { type: 'shutdown_response', request_id: 'shutdown-1@bob', approve: true },
      },
    ]);
  });
});
