// The demo lead's decisions, step by step, from Claude Code 2.1.45-shaped requests.
import { describe, expect, it } from 'vitest';
import { PLAN_FEEDBACK } from './demo-team-content.js';
import { teammateMessage, toolUsesOf } from './demo-team-test-support.js';
import {
  after,
  ask,
  spawnedTeam,
  start,
  teamCreated,
  withMessages,
} from './demo-team-lead-test-support.js';

describe('the demo lead', () => {
  it('creates the team, four tasks, three dependencies on the first, then spawns alice, plan-mode bob and Explore carol', () => {
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
      ['TaskCreate', 'Review slugify()'],
    ]);
    const { messages, spawnReply } = spawnedTeam();
    const dependencies = toolUsesOf(ask(messages.slice(0, -4)));
    expect(dependencies.map((use) => use.input)).toEqual([
      { taskId: '5', addBlockedBy: ['4'] },
      { taskId: '6', addBlockedBy: ['4'] },
      { taskId: '7', addBlockedBy: ['4'] },
    ]);
    const [alice, bob, carol] = toolUsesOf(spawnReply);
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
    expect(carol).toMatchObject({
      name: 'Task',
      input: { name: 'carol', team_name: 'slugify-team-2', subagent_type: 'Explore' },
    });
    expect(carol?.input.prompt).toMatch(/^You are carol\b[\s\S]*#7 [\s\S]*blocked by #4/);
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

  it('checks the task list on a report, waits while tasks are open, and asks all three to shut down when all are completed', () => {
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
      '#4 [completed] Implement slugify() (alice)\n#5 [pending] Write tests for slugify()\n#6 [pending] Document slugify() in README.md\n#7 [completed] Review slugify() (carol)',
    ]);
    expect(ask(open).content).toEqual([
      { type: 'text', text: 'Still open: #5, #6. Waiting for the team.' },
    ]);
    const done = after(report, check, [
      '#4 [completed] Implement slugify() (alice)\n#5 [completed] Write tests for slugify() (bob)\n#6 [completed] Document slugify() in README.md (bob)\n#7 [completed] Review slugify() (carol)',
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
      {
        type: 'shutdown_request',
        recipient: 'carol',
        content: 'All tasks are completed. Thank you, please shut down.',
      },
    ]);
  });

  it('deletes the team only once all three teammates approved their shutdown, then sums up', () => {
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
    const two = withMessages(one, ask(one), approved('bob'));
    expect(toolUsesOf(ask(two))).toEqual([]);
    const both = withMessages(two, ask(two), approved('carol'));
    const deletion = ask(both);
    expect(toolUsesOf(deletion)).toEqual([{ name: 'TeamDelete', input: {} }]);
    const batch = withMessages(
      messages,
      ask(messages),
      approved('alice'),
      approved('bob'),
      approved('carol'),
    );
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
      ['created', 'created', 'created', 'created'],
    );
    expect(ask(missingIds).content[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('could not read the four task ids'),
    });
  });
});
