// The demo lead with a person at the keyboard: a message while the team works (a paused answer,
// time to press Esc), "go on" after an interrupted turn, a turn cut short mid-setup (it redoes
// only what is missing and checks an interrupted spawn before trying again), and teammate
// messages that arrive beside tool results.
import { describe, expect, it } from 'vitest';
import type { Reply } from '../types.js';
import { DEMO_SCRIPT_LABEL } from './demo-team-content.js';
import { PERSON_REPLY_PAUSE_MS } from './demo-team-lead.js';
import { SPAWN_CHECK_TEXT, SPAWN_SETTLE_MS } from './demo-team-lead-setup.js';
import { after, ask, spawnedTeam, start, teamCreated } from './demo-team-lead-test-support.js';
import { teammateMessage, toolUsesOf, type Message } from './demo-team-test-support.js';

const INTERRUPTED = {
  content:
    'Interrupted: the turn was aborted before this call finished; it was not run (or not to the end).',
  isError: true as const,
};

function textOf(reply: Reply): string {
  return reply.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

/** The conversation with the person's texts as one user message (two: a turn was cut short). */
function person(messages: Message[], lastReply: Reply, ...texts: string[]): Message[] {
  return [
    ...messages,
    { role: 'assistant', content: lastReply.content },
    { role: 'user', content: texts.map((value) => ({ type: 'text', text: value })) },
  ];
}

describe('the demo lead and a person', () => {
  it('opens with the scripted-demo label', () => {
    expect(textOf(ask(start))).toMatch(new RegExp(`^\\${DEMO_SCRIPT_LABEL} I will run this`));
  });

  it("answers a person's message after a pause (time to press Esc) with the task list; after an interruption, at once", () => {
    const { messages } = spawnedTeam();
    const waiting = ask(messages);
    const asked = ask(person(messages, waiting, 'How is the team doing?'));
    expect(toolUsesOf(asked)).toEqual([{ name: 'TaskList', input: {} }]);
    expect(asked.fault).toEqual({ kind: 'pings-only', durationMs: PERSON_REPLY_PAUSE_MS });
    expect(textOf(asked)).toContain('Let me see where the team stands. Checking the task list.');
    // Esc during the pause: the reply never came, so "go on" joins the same user message.
    const goOn = ask(person(messages, waiting, 'How is the team doing?', 'go on'));
    expect(toolUsesOf(goOn)).toEqual([{ name: 'TaskList', input: {} }]);
    expect(goOn.fault).toBeUndefined();
    expect(textOf(goOn)).toBe('Going on after the interruption. Checking the task list.');
  });

  it('interrupted mid-setup, it creates only the tasks that are missing', () => {
    const created = after(start, ask(start), [teamCreated]);
    const tasks = ask(created);
    const cut = after(created, tasks, [
      'Task #1 created successfully: Implement slugify()',
      'Task #2 created successfully: Write tests for slugify()',
      INTERRUPTED,
      INTERRUPTED,
    ]);
    // The interrupted results and the person's "go on" arrive as one user message.
    const last = cut.at(-1)!;
    const withGoOn: Message[] = [
      ...cut.slice(0, -1),
      { role: 'user', content: [...(last.content as []), { type: 'text', text: 'go on' }] },
    ];
    const resumed = ask(withGoOn);
    expect(textOf(resumed)).toMatch(
      /^My last step was interrupted; going on from where it stopped\./,
    );
    expect(toolUsesOf(resumed).map((use) => use.input.subject)).toEqual([
      'Document slugify() in README.md',
      'Review slugify()',
    ]);
  });

  it('checks an interrupted spawn with a message before trying again, and spawns only who is missing', () => {
    const { messages: spawned, spawnReply } = spawnedTeam();
    // Back to the spawn step, this time interrupted: alice made it, bob and carol were cut short.
    const beforeSpawn = spawned.slice(0, -2);
    const cut = after(beforeSpawn, spawnReply, [
      'Spawned successfully.\nagent_id: alice@slugify-team-2',
      INTERRUPTED,
      INTERRUPTED,
    ]);
    const check = ask(cut);
    expect(check.fault).toEqual({ kind: 'pings-only', durationMs: SPAWN_SETTLE_MS });
    expect(toolUsesOf(check)).toEqual(
      ['bob', 'carol'].map((recipient) => ({
        name: 'SendMessage',
        input: {
          type: 'message',
          recipient,
          content: SPAWN_CHECK_TEXT,
          summary: 'Checking you were spawned',
        },
      })),
    );
    const checked = after(cut, check, [
      '{"success":true,"message":"Delivered to bob\'s inbox."}',
      {
        content:
          'No member named "carol" in team "slugify-team-2". Members: team-lead, alice, bob.',
        isError: true,
      },
    ]);
    const respawn = ask(checked);
    expect(toolUsesOf(respawn)).toEqual([
      expect.objectContaining({ name: 'Task', input: expect.objectContaining({ name: 'carol' }) }),
    ]);
    const done = ask(
      after(checked, respawn, ['Spawned successfully.\nagent_id: carol@slugify-team-2']),
    );
    expect(textOf(done)).toBe('alice, bob, carol are on it. I will wait for their reports.');
  });

  it('answers a plan request that arrived beside tool results, in the same reply', () => {
    const { messages } = spawnedTeam();
    const report = [
      ...messages,
      { role: 'assistant' as const, content: ask(messages).content },
      {
        role: 'user' as const,
        content: teammateMessage('alice', 'Task #4 is done', { summary: 'Task #4 done' }),
      },
    ];
    const check = ask(report);
    const withPlan = after(report, check, [
      '#4 [completed] Implement slugify() (alice)\n#5 [pending] Write tests for slugify()\n#6 [pending] Document slugify() in README.md\n#7 [pending] Review slugify()',
    ]);
    const last = withPlan.at(-1)!;
    (last.content as Record<string, unknown>[]).push({
      type: 'text',
      text: teammateMessage(
        'bob',
        JSON.stringify({
          type: 'plan_approval_request',
          from: 'bob',
          planFilePath: '/h/plans/p.md',
          planContent: '# Plan',
          requestId: 'plan_approval-1@bob@slugify-team-2',
        }),
      ),
    });
    const reply = ask(withPlan);
    expect(toolUsesOf(reply)).toEqual([
      expect.objectContaining({
        name: 'SendMessage',
        input: expect.objectContaining({ type: 'plan_approval_response', approve: false }),
      }),
    ]);
    expect(textOf(reply)).toContain('Still open: #5, #6, #7.');
    expect(reply.stopReason).toBeUndefined();
  });
});
