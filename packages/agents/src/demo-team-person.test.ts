// The offline demo's team (@muster/scripted-model's `demo-team`, a TEST DOUBLE of the Messages
// API playing the lead, alice, bob and carol) in a real team runtime answered by a person: the
// test allows or denies alice's `npm test`, rejects bob's first plan with free-text feedback,
// talks to teammates while they work, and interrupts the lead. Files, tests and team are real.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEMO_SCRIPT_LABEL, DEMO_TEAM_PROMPT } from '@muster/scripted-model';
import { describe, expect, it } from 'vitest';
import type { TeamEvent } from './team-event.js';
import type { AskAnswer, TeamAsk } from './team-runtime-options.js';
import { until } from './team-runtime-test-support.js';
import {
  openDemoRuntime,
  repositoryTests,
  spawnsOf,
  textsOf,
  untilDone,
  untilSaid,
} from './demo-team-test-support.js';

// alice is the repository's `implementer` (isolation: worktree); her worktree takes a moment
// to make, so her spawn may be reported after bob's.
const SPAWNS = [
  ['alice', 'implementer'],
  ['bob', 'general-purpose'],
  ['carol', 'Explore'],
];

/** The spawns in the order of SPAWNS (they run at once and end in any order). */
function sortedSpawns(events: readonly TeamEvent[]): string[][] {
  return spawnsOf(events).sort(([left = ''], [right = '']) => left.localeCompare(right));
}

type Ask = Extract<TeamEvent, { type: 'ask' }>;

/** The asks raised so far. */
function asksOf(events: readonly TeamEvent[]): Ask[] {
  return events.filter((event): event is Ask => event.type === 'ask');
}

describe('the demo team answered by a person', () => {
  it('allow npm test, reject the first plan with feedback, approve the revision; messages to carol and alice do not derail it', async () => {
    const demo = await openDemoRuntime();
    const { runtime, events } = demo;
    let plans = 0;
    runtime.subscribe((event) => {
      if (event.type !== 'ask') return;
      if (event.kind === 'plan') {
        plans += 1;
        const answer: AskAnswer =
          plans === 1 ? { behavior: 'deny', message: 'Also cover emoji.' } : { behavior: 'allow' };
        void runtime.answer(event.askId, answer);
        return;
      }
      // alice waits on this ask: the person writes to her first, then allows it.
      void runtime
        .messageTeammate('alice', 'Please keep the code short.')
        .then(() => runtime.answer(event.askId, { behavior: 'allow' }));
    });

    const first = await runtime.prompt(DEMO_TEAM_PROMPT);
    expect(first.text).toContain('are on it');
    expect(sortedSpawns(events)).toEqual(SPAWNS);
    // Three in-process spawns, and the in-process backend's note is said once, not per spawn.
    const notes = events.filter(
      (event) =>
        event.type === 'notice' && event.text.includes('members run inside this Node process'),
    );
    expect(notes).toHaveLength(1);
    await runtime.messageTeammate('carol', 'How is the review going?');
    const carolNote = await untilSaid(events, 'carol', 'carol here: thanks, I read your message');
    expect(carolNote).toContain('("How is the review going?")');
    expect(carolNote).toContain('I wait for alice');

    await untilDone(demo);
    // Exactly these asks: bob's plan twice (the revision names the feedback), alice's npm test.
    const asks = asksOf(events);
    expect(asks.filter((ask) => ask.kind === 'permission')).toEqual([
      expect.objectContaining({
        agentName: 'alice',
        toolName: 'Bash',
        input: expect.objectContaining({ command: 'npm test' }),
      }),
    ]);
    const planAsks = asks.filter((ask) => ask.kind === 'plan');
    expect(planAsks.map((ask) => ask.agentName)).toEqual(['bob', 'bob']);
    expect(planAsks[0]?.description).toContain('# Plan: tests and docs for slugify()');
    expect(planAsks[1]?.description).toContain('(revised)');
    expect(planAsks[1]?.description).toContain('Feedback taken in: Also cover emoji.');
    expect(textsOf(events, 'bob')).toContain('Revising the plan: Also cover emoji.');
    // alice answered the person and went on: npm test ran and passed.
    expect(textsOf(events, 'alice').join('\n')).toContain(
      'alice here: thanks, I read your message ("Please keep the code short.")',
    );
    const messages = events.filter(
      (event): event is Extract<TeamEvent, { type: 'message' }> =>
        event.type === 'message' && event.protocolType === undefined,
    );
    expect(messages.find((message) => message.from === 'alice')?.text).toContain(
      'npm test passes.',
    );
    expect(messages.find((message) => message.from === 'carol')?.text).toContain(
      'Review of src/slugify.js',
    );
    // Every agent's first reply says it is a script.
    for (const name of ['team-lead', 'alice', 'bob', 'carol'])
      expect(textsOf(events, name)[0], name).toMatch(new RegExp(`^\\${DEMO_SCRIPT_LABEL}`));
    expect(await repositoryTests(demo.cwd)).toMatch(/# pass 4/);
    expect(await readFile(join(demo.cwd, 'README.md'), 'utf8')).toContain('slugify(text)');
  }, 60_000);
});

describe('the demo lead interrupted (Esc)', () => {
  it('a message to the lead pauses before its answer; Esc ends that turn only, and "go on" goes on at once (npm test denied: alice reports it untested)', async () => {
    const demo = await openDemoRuntime();
    const { runtime, events } = demo;
    const planAsks: TeamAsk[] = [];
    runtime.subscribe((event) => {
      if (event.type !== 'ask') return;
      if (event.kind === 'plan')
        planAsks.push(event); // answered after the interruption
      else void runtime.answer(event.askId, { behavior: 'deny', message: 'Not now, please.' });
    });
    await runtime.prompt(DEMO_TEAM_PROMPT);
    await until('bob to submit his plan', () => (planAsks.length > 0 ? true : undefined));

    const requestsBefore = events.length;
    const asked = runtime.prompt('How is the team doing?');
    await until('the lead to send its request', () =>
      events
        .slice(requestsBefore)
        .some(
          (event) =>
            event.type === 'agent' &&
            event.agentName === 'team-lead' &&
            event.event.type === 'request_start',
        )
        ? true
        : undefined,
    );
    expect(runtime.interrupt()).toBe(true);
    expect((await asked).reason).toBe('aborted');
    // The teammates were not touched: bob's plan still waits, and he goes on once it is approved.
    expect(runtime.members().every((member) => member.alive)).toBe(true);
    await runtime.answer(planAsks[0]!.askId, { behavior: 'allow' });

    const next = await runtime.prompt('go on');
    expect(next.reason).toBe('completed');
    expect(textsOf(events, 'team-lead')).toContain(
      'Going on after the interruption. Checking the task list.',
    );
    // The paused answer to the interrupted message never came.
    expect(textsOf(events, 'team-lead').join('\n')).not.toContain('paused 3 s');
    await untilDone(demo);
    // Exactly two asks: the plan (approved at once) and the npm test the person denied.
    expect(
      asksOf(events)
        .map((ask) => [ask.agentName, ask.kind])
        .sort(),
    ).toEqual([
      ['alice', 'permission'],
      ['bob', 'plan'],
    ]);
    const alice = events.find(
      (event) =>
        event.type === 'message' && event.from === 'alice' && event.protocolType === undefined,
    );
    expect(alice).toMatchObject({
      text: expect.stringContaining(
        'I was not allowed to run npm test, so it is untested (the answer was: Not now, please.).',
      ),
    });
    expect(await repositoryTests(demo.cwd)).toMatch(/# pass 4/);
  }, 60_000);

  it('interrupted while it spawns, it checks who made it, spawns only the rest, and finishes', async () => {
    const demo = await openDemoRuntime();
    const { runtime, events } = demo;
    let interrupted = false;
    runtime.subscribe((event) => {
      if (event.type === 'spawn' && event.agentName === 'alice' && !interrupted)
        interrupted = runtime.interrupt();
      if (event.type === 'ask') void runtime.answer(event.askId, { behavior: 'allow' });
    });
    const first = await runtime.prompt(DEMO_TEAM_PROMPT);
    expect(interrupted).toBe(true);
    expect(first.reason).toBe('aborted');
    await runtime.prompt('go on');
    await untilDone(demo);
    expect(textsOf(events, 'team-lead').join('\n')).toContain(
      'My last step was interrupted; going on from where it stopped. Checking whether',
    );
    // alice spawned once (no alice-2), then bob and carol.
    expect(sortedSpawns(events)).toEqual(SPAWNS);
  }, 60_000);
});
