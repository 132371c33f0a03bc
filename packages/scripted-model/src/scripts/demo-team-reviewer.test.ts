// carol, the read-only reviewer, step by step; and how every demo teammate answers a person's
// message (alone, beside a tool result, or beside a plan answer) and goes on with its part.
import { describe, expect, it } from 'vitest';
import type { Reply } from '../types.js';
import {
  DEMO_SCRIPT_LABEL,
  PLAN_REVISED,
  SLUGIFY_REVIEW,
  SLUGIFY_SOURCE,
  implementerPrompt,
  reviewerPrompt,
  testerPrompt,
} from './demo-team-content.js';
import { teammateMessage, toolUsesOf, type Message } from './demo-team-test-support.js';
import {
  after,
  ask,
  message,
  planFile,
  repository,
  shutdownRequest,
} from './demo-team-teammate-test-support.js';

const textOf = (reply: Reply) =>
  reply.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');

const aliceReady = teammateMessage('alice', 'slugify(text) is ready in src/slugify.js', {
  color: 'blue',
});

describe('carol, the read-only reviewer', () => {
  const start: Message[] = [
    { role: 'user', content: teammateMessage('team-lead', reviewerPrompt('7', '4', repository)) },
  ];

  it('waits for alice, then claims the review, reads src/slugify.js, completes and sends team-lead the review', () => {
    const first = ask('teammate', start);
    expect(toolUsesOf(first)).toEqual([]);
    expect(textOf(first)).toBe(
      `${DEMO_SCRIPT_LABEL} I review src/slugify.js once alice says it is ready (task #7). I only read: I change nothing.`,
    );
    let messages = message(start, first, aliceReady);
    const claim = ask('teammate', messages);
    expect(toolUsesOf(claim)).toEqual([
      { name: 'TaskUpdate', input: { taskId: '7', owner: 'carol', status: 'in_progress' } },
    ]);
    messages = after(messages, claim, 'Updated task #7 owner, status');
    const read = ask('teammate', messages);
    expect(toolUsesOf(read)).toEqual([
      { name: 'Read', input: { file_path: `${repository}/src/slugify.js` } },
    ]);
    messages = after(messages, read, SLUGIFY_SOURCE);
    const complete = ask('teammate', messages);
    expect(toolUsesOf(complete)).toEqual([
      { name: 'TaskUpdate', input: { taskId: '7', status: 'completed' } },
    ]);
    messages = after(messages, complete, 'Updated task #7 status');
    const review = ask('teammate', messages);
    expect(toolUsesOf(review)).toEqual([
      {
        name: 'SendMessage',
        input: {
          type: 'message',
          recipient: 'team-lead',
          content: `Task #7 is done. ${SLUGIFY_REVIEW}`,
          summary: 'Task #7 done: review of slugify()',
        },
      },
    ]);
    messages = after(messages, review, '{"success":true}');
    const idle = ask('teammate', messages);
    expect(toolUsesOf(idle)).toEqual([]);
    const shutdown = ask('teammate', message(messages, idle, shutdownRequest('carol')));
    expect(toolUsesOf(shutdown)).toEqual([
      {
        name: 'SendMessage',
        input: { type: 'shutdown_response', request_id: 'shutdown-99@carol', approve: true },
      },
    ]);
  });

  it("claims at once when alice's word came with the spawn prompt, and never reviews a file without slugify()", () => {
    const batched: Message[] = [
      {
        role: 'user',
        content: `${teammateMessage('team-lead', reviewerPrompt('7', '4', repository))}\n\n${aliceReady}`,
      },
    ];
    const claim = ask('teammate', batched);
    expect(toolUsesOf(claim)[0]?.name).toBe('TaskUpdate');
    const read = after(batched, claim, 'ok');
    const empty = after(read, ask('teammate', read), '(the file is empty)');
    expect(toolUsesOf(ask('teammate', empty))).toEqual([]);
    expect(textOf(ask('teammate', empty))).toContain('holds no slugify() function');
  });
});

describe("a person's message to a teammate", () => {
  it('carol, waiting, answers with where she stands', () => {
    const start: Message[] = [
      { role: 'user', content: teammateMessage('team-lead', reviewerPrompt('7', '4', repository)) },
    ];
    const waiting = ask('teammate', start);
    const note = ask(
      'teammate',
      message(start, waiting, teammateMessage('team-lead', 'How is the review going?')),
    );
    expect(toolUsesOf(note)).toEqual([]);
    expect(textOf(note)).toBe(
      `${DEMO_SCRIPT_LABEL} carol here: thanks, I read your message ("How is the review going?"). I wait for alice to finish slugify() before I review it (task #7). I carry on with my part.`,
    );
  });

  it('alice, mid-work, answers in front of her next step and goes on with it', () => {
    const start: Message[] = [
      { role: 'user', content: teammateMessage('team-lead', implementerPrompt('4', repository)) },
    ];
    const claim = ask('teammate', start);
    const claimed = after(start, claim, 'ok');
    const last = claimed.at(-1)!;
    (last.content as Record<string, unknown>[]).push({
      type: 'text',
      text: teammateMessage('team-lead', 'Please keep the code short.'),
    });
    const read = ask('teammate', claimed);
    expect(toolUsesOf(read)).toEqual([
      { name: 'Read', input: { file_path: `${repository}/src/index.js` } },
    ]);
    expect(textOf(read)).toContain(
      'alice here: thanks, I read your message ("Please keep the code short."). I am implementing slugify() in src/slugify.js (task #4).',
    );
  });

  it('bob revises his plan when the rejection and a message come together, and answers the message', () => {
    const start: Message[] = [
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: teammateMessage('team-lead', testerPrompt('5', '6', '4', repository)),
          },
          {
            type: 'text',
            text: `<system-reminder>\nPlan mode is active. You should create your plan at ${planFile} using the Write tool.\n</system-reminder>`,
          },
        ],
      },
    ];
    let messages = after(start, ask('teammate-plan-mode', start), 'export {}');
    messages = after(messages, ask('teammate-plan-mode', messages), 'ok');
    const exit = ask('teammate-plan-mode', messages);
    messages = after(messages, exit, 'Your plan has been submitted to the team lead for approval.');
    const waiting = ask('teammate-plan-mode', messages);
    const both = message(
      messages,
      waiting,
      `[Plan Rejected] Also cover emoji.\n\n${teammateMessage('team-lead', 'No rush.')}`,
    );
    const revise = ask('teammate-plan-mode', both);
    expect(toolUsesOf(revise)).toEqual([
      {
        name: 'Write',
        input: {
          file_path: planFile,
          content: `${PLAN_REVISED}5. Feedback taken in: Also cover emoji.\n`,
        },
      },
    ]);
    expect(textOf(revise)).toContain(
      'bob here: thanks, I read your message ("No rush."). My plan waits for approval.',
    );
    expect(textOf(revise)).toContain('Revising the plan: Also cover emoji.');
  });
});
