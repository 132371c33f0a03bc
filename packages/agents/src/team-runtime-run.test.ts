// Headless runs that do not end by themselves, and interrupts: the bound shuts the team down,
// an interrupt ends only the lead's turn. Models are @muster/scripted-model, a TEST DOUBLE.
import type { Script, ScriptRequest } from '@muster/scripted-model';
import { readTeam } from '@muster/teams';
import { describe, expect, it } from 'vitest';
import {
  call,
  lastText,
  openTestRuntime,
  previousTool,
  say,
  until,
} from './team-runtime-test-support.js';

/** alice idles until asked to stop, then approves. */
const patientAlice: Script = (request: ScriptRequest) => {
  const text = lastText(request).replaceAll('\\"', '"');
  if (previousTool(request) === 'SendMessage') return say('Bye.');
  const shutdown = /"request_id":"(shutdown-[^"]+)"/.exec(text);
  if (shutdown !== null) {
    return call('SendMessage', {
      type: 'shutdown_response',
      request_id: shutdown[1],
      approve: true,
    });
  }
  return say('Waiting for work.');
};

function open(lead: Script, alice: Script = patientAlice) {
  return openTestRuntime(lead, alice, { permissionRules: { allow: ['Bash(sleep:*)'] } });
}

/** A lead that makes the team, spawns alice, then never stops working. */
const endlessLead: Script = (request) => {
  const previous = previousTool(request);
  if (previous === 'TeamCreate') {
    return call('Task', {
      description: 'Wait',
      prompt: 'Wait for work.',
      subagent_type: 'general-purpose',
      name: 'alice',
      team_name: 'crew',
    });
  }
  if (previous === undefined && lastText(request).includes('Begin'))
    return call('TeamCreate', { team_name: 'crew' });
  return call('Bash', { command: 'sleep 0.05' });
};

/** A lead that makes the team and a task, spawns alice, and stops before the task is done. */
const hastyLead: Script = (request) => {
  const previous = previousTool(request);
  if (previous === 'TeamCreate') {
    return call('TaskCreate', { subject: 'Write the docs', description: 'README.md' });
  }
  if (previous === 'TaskCreate') {
    return call('Task', {
      description: 'Wait',
      prompt: 'Wait for work.',
      subagent_type: 'general-purpose',
      name: 'alice',
      team_name: 'crew',
    });
  }
  if (previous === undefined && lastText(request).includes('Begin'))
    return call('TeamCreate', { team_name: 'crew' });
  return say('That will do.');
};

describe('team runtime: bounds and interrupts', () => {
  it('a team that goes quiet with a task open is shut down, and a warning names the open task', async () => {
    const { runtime, events } = await open(hastyLead);
    const outcome = await runtime.run('Begin.', { timeoutMs: 30_000 });
    expect(outcome.status).toBe('completed');
    // alice approved and ended: the report says so even when her run ended before the lead's
    // inbox watch took her shutdown_approved.
    expect(outcome.shutdown.approved).toEqual(['alice']);
    const notices = events.filter(
      (event): event is Extract<typeof event, { type: 'notice' }> =>
        event.type === 'notice' && event.text.includes('The lead has finished'),
    );
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ level: 'warning' });
    // Idle, alice claimed the open task herself; it was still not done.
    expect(notices[0]!.text).toContain('task #1 (in_progress, alice) not completed');
  }, 30_000);

  it('a run that does not finish stops at its bound: the lead is interrupted, alice shuts down, nothing runs', async () => {
    const { runtime, root } = await open(endlessLead);
    const outcome = await runtime.run('Begin.', { timeoutMs: 3_000 });
    expect(outcome.status).toBe('timeout');
    expect(outcome.shutdown.approved.concat(outcome.shutdown.killed)).toEqual(['alice']);
    expect(runtime.members().map((member) => member.alive)).toEqual([false]);
    const team = await readTeam(root, 'crew');
    await until('alice out of the config', async () =>
      (await readTeam(root, 'crew')).members.some((member) => member.name === 'alice')
        ? undefined
        : true,
    );
    expect(team.members.map((member) => member.name)).toContain('team-lead');
  }, 30_000);

  it("the caller's signal stops a run with status aborted", async () => {
    const { runtime } = await open(endlessLead);
    const controller = new AbortController();
    const running = runtime.run('Begin.', { timeoutMs: 30_000, signal: controller.signal });
    await until('alice spawned', () => (runtime.members().length === 1 ? true : undefined));
    controller.abort();
    const outcome = await running;
    expect(outcome.status).toBe('aborted');
    expect(runtime.members().every((member) => !member.alive)).toBe(true);
  }, 30_000);

  it("interrupt() ends the lead's turn only; alice's message still starts the next lead turn", async () => {
    let bashCalls = 0;
    const lead: Script = (request) => {
      const text = lastText(request);
      const previous = previousTool(request);
      if (text.includes('still here')) return say('Good to hear.');
      if (previous === 'TeamCreate') {
        return call('Task', {
          description: 'Report',
          prompt: 'Report in a moment.',
          subagent_type: 'general-purpose',
          name: 'alice',
          team_name: 'crew',
        });
      }
      if (previous === undefined && text.includes('Begin'))
        return call('TeamCreate', { team_name: 'crew' });
      bashCalls += 1;
      return call('Bash', { command: 'sleep 0.05' });
    };
    const alice: Script = (request) => {
      const previous = previousTool(request);
      if (previous === 'SendMessage') return say('Reported.');
      if (previous === 'Bash')
        return call('SendMessage', {
          type: 'message',
          recipient: 'team-lead',
          content: 'still here',
          summary: 'still here',
        });
      if (lastText(request).includes('Report in a moment'))
        return call('Bash', { command: 'sleep 1' });
      return say('Waiting.');
    };
    const { runtime, events } = await open(lead, alice);
    const firstTurn = runtime.prompt('Begin.');
    await until('alice spawned and the lead busy', () =>
      runtime.members().length === 1 && bashCalls > 2 ? true : undefined,
    );
    expect(runtime.interrupt()).toBe(true);
    expect((await firstTurn).reason).toBe('aborted');
    await until("the lead's answer to alice", () =>
      events.some(
        (event) =>
          event.type === 'agent' &&
          event.event.type === 'turn_end' &&
          event.event.text === 'Good to hear.',
      )
        ? true
        : undefined,
    );
    expect(runtime.interrupt()).toBe(false);
  }, 30_000);
});
