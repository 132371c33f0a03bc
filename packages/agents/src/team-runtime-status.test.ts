// What a UI reads from the lead's runtime: each teammate's color, type, model, state, usage,
// cost, current task and view (`members()`), the task list (`tasks()` and `tasks` events) and
// the status line (`status()`). The lead and the in-process teammate are answered by
// @muster/scripted-model (a TEST DOUBLE of the Messages API, never a model) behind the real SDK;
// the team, inboxes and tasks are real files.
import type { ScriptRequest } from '@muster/scripted-model';
import { estimateCostUsd, type TokenUsage } from '@muster/query';
import { createTaskStore } from '@muster/tasks';
import { describe, expect, it } from 'vitest';
import {
  call,
  lastText,
  openTestRuntime,
  previousTool,
  say,
  until,
} from './team-runtime-test-support.js';
import type { TeamEvent } from './team-event.js';

/** The lead: creates "crew", a task with a spinner text, then spawns alice to take it. */
function leadScript(request: ScriptRequest) {
  const previous = previousTool(request);
  if (previous === 'TeamCreate') {
    return call('TaskCreate', {
      subject: 'Write the tests',
      description: 'Cover the parser.',
      activeForm: 'Writing the tests',
    });
  }
  if (previous === 'TaskCreate') {
    return call('Task', {
      description: 'Tests',
      prompt: 'Take task 1 and work on it.',
      subagent_type: 'general-purpose',
      name: 'alice',
      team_name: 'crew',
    });
  }
  if (previous === 'Task') return say('alice is on it.');
  if (lastText(request).includes('Lead the crew')) {
    return call('TeamCreate', { team_name: 'crew', description: 'A test crew' });
  }
  return say('Noted.');
}

/** alice: claims task 1, then says she is working. */
function aliceScript(request: ScriptRequest) {
  if (previousTool(request) === 'TaskUpdate') return say('Working on it.');
  if (lastText(request).includes('Take task 1')) {
    return call('TaskUpdate', { taskId: '1', status: 'in_progress', owner: 'alice' });
  }
  return say('Waiting.');
}

/** The sum of an agent's per-request estimates, from its `agent` usage events. */
function requestCosts(events: readonly TeamEvent[], agentName: string, model: string): number {
  let total = 0;
  for (const event of events) {
    if (event.type !== 'agent' || event.agentName !== agentName) continue;
    if (event.event.type !== 'usage') continue;
    total += estimateCostUsd(model, event.event.request) ?? Number.NaN;
  }
  return total;
}

async function teamWithAliceWorking(model: string) {
  const test = await openTestRuntime(leadScript, aliceScript, { model, taskPollMs: 0 });
  await test.runtime.prompt('Lead the crew.');
  // No poll: the read after alice's TaskUpdate is what shows her task.
  const alice = await until('alice to show her task', () => {
    const found = test.runtime.members().find((member) => member.name === 'alice');
    return found?.currentTask !== undefined && found.state === 'idle' ? found : undefined;
  });
  return { ...test, alice };
}

describe('the team runtime for a UI', () => {
  it('members(): color, type, model, state, current task with its activeForm, usage, cost and view', async () => {
    const { runtime, events, alice } = await teamWithAliceWorking('claude-sonnet-5-5');
    expect(alice).toMatchObject({
      name: 'alice',
      agentId: 'alice@crew',
      backendType: 'in-process',
      color: 'blue',
      agentType: 'general-purpose',
      model: 'claude-sonnet-5-5',
      alive: true,
      state: 'idle',
      currentTask: { id: '1', subject: 'Write the tests', activeForm: 'Writing the tests' },
      view: { kind: 'transcript' },
    });
    // Usage and cost are alice's own requests, priced one by one. (Read together with the
    // events, synchronously: no event can arrive in between.)
    const now = runtime.members().find((member) => member.name === 'alice')!;
    const requests = events.filter(
      (event) =>
        event.type === 'agent' && event.agentName === 'alice' && event.event.type === 'usage',
    );
    expect(requests.length).toBeGreaterThanOrEqual(2);
    const last = requests.at(-1) as Extract<TeamEvent, { type: 'agent' }>;
    const agentTotal = (last.event as { agent: TokenUsage }).agent;
    expect(now.usage).toEqual(agentTotal);
    expect(now.usage!.inputTokens).toBeGreaterThan(0);
    expect(now.costUsd).toBeCloseTo(requestCosts(events, 'alice', 'claude-sonnet-5-5'), 12);
    expect(now.costUsd).toBeGreaterThan(0);
    // Each of alice's requests is also a `usage` event carrying her cost so far.
    const usageEvents = events.filter(
      (event): event is Extract<TeamEvent, { type: 'usage' }> =>
        event.type === 'usage' && event.agentName === 'alice',
    );
    expect(usageEvents.length).toBe(requests.length);
    expect(usageEvents.at(-1)).toMatchObject({ usage: agentTotal, costUsd: now.costUsd });
  });

  it('tasks() and tasks events: the list as it changes, read cheaply', async () => {
    const { runtime, events, root } = await teamWithAliceWorking('claude-sonnet-5-5');
    const list = await runtime.tasks();
    expect(list?.teamName).toBe('crew');
    expect(list?.problems).toEqual([]);
    expect(list?.tasks.map(({ task }) => [task.id, task.status, task.owner])).toEqual([
      ['1', 'in_progress', 'alice'],
    ]);
    const taskEvents = events.filter(
      (event): event is Extract<TeamEvent, { type: 'tasks' }> => event.type === 'tasks',
    );
    // One event per change seen (created as pending, then claimed), never a repeat.
    const seen = taskEvents.map((event) =>
      JSON.stringify(event.tasks.map(({ task }) => task.status)),
    );
    expect(seen.at(-1)).toBe('["in_progress"]');
    expect(seen.every((print, index) => index === 0 || print !== seen[index - 1])).toBe(true);
    expect(taskEvents[0]!.teamName).toBe('crew');
    // A change made behind the runtime's back (another process) shows on the next read.
    await createTaskStore({ root, team: 'crew' }).update('1', { subject: 'Write more tests' });
    expect((await runtime.tasks())?.tasks[0]?.task.subject).toBe('Write more tests');
    const latest = events.filter((event) => event.type === 'tasks').at(-1);
    expect(latest?.type === 'tasks' ? latest.tasks[0]?.task.subject : undefined).toBe(
      'Write more tests',
    );
    expect(runtime.members()[0]?.currentTask?.subject).toBe('Write more tests');
  });

  it('status(): model, permission mode, team and the total cost of lead and teammates', async () => {
    const { runtime, events } = await teamWithAliceWorking('claude-sonnet-5-5');
    const status = runtime.status();
    const alice = runtime.members()[0]!;
    const leadCost = estimateCostUsd('claude-sonnet-5-5', runtime.leadUsage());
    expect(status).toMatchObject({
      model: 'claude-sonnet-5-5',
      permissionMode: 'default',
      teamName: 'crew',
      leadUsage: runtime.leadUsage(),
      unpricedAgents: [],
    });
    expect(status.leadCostUsd).toBeCloseTo(
      requestCosts(events, 'team-lead', 'claude-sonnet-5-5'),
      12,
    );
    expect(status.leadCostUsd).toBeCloseTo(leadCost!, 12);
    expect(status.totalCostUsd).toBeCloseTo(status.leadCostUsd! + alice.costUsd!, 12);
  });

  it('a model without a price has no cost, never a made-up one', async () => {
    const { runtime, events, alice } = await teamWithAliceWorking('claude-test-model');
    expect(alice.usage?.inputTokens).toBeGreaterThan(0);
    expect(alice.costUsd).toBeUndefined();
    expect(alice).not.toHaveProperty('costUsd');
    const status = runtime.status();
    expect(status.totalCostUsd).toBeUndefined();
    expect(status.leadCostUsd).toBeUndefined();
    expect(status.unpricedAgents).toEqual(['team-lead', 'alice']);
    const usage = events.find((event) => event.type === 'usage' && event.agentName === 'alice');
    expect(usage).toBeDefined();
    expect(usage).not.toHaveProperty('costUsd');
  });
});
