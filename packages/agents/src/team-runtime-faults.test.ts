// Faults in a lead's team session: a teammate's model stream that stalls, a teammate whose
// turns fail, and a pane teammate SIGKILLed in the middle of its task. The models are
// @muster/scripted-model (a TEST DOUBLE of the Messages API); the pane teammate is a real
// process on a real PTY, reaching the double over HTTP.
import { createInProcessBackend, createPtyBackend } from '@muster/backends';
import { startScriptedModel, type Script, type ScriptRequest } from '@muster/scripted-model';
import { readMemberRuntime } from '@muster/teams';
import { createTaskStore } from '@muster/tasks';
import { afterEach, describe, expect, it } from 'vitest';
import {
  call,
  lastText,
  openTestRuntime,
  previousTool,
  say,
  until,
} from './team-runtime-test-support.js';
import type { TeamRuntimeOptions } from './team-runtime-options.js';
import type { TeamEvent } from './team-event.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A lead that makes the team "crew", optionally a task, and spawns `name` with `prompt`. */
function lead(name: string, prompt: string, task?: string): Script {
  return (request: ScriptRequest) => {
    const previous = previousTool(request);
    if (previous === 'TeamCreate' && task !== undefined) {
      return call('TaskCreate', { subject: task, description: task, activeForm: 'Working' });
    }
    if (previous === 'TeamCreate' || previous === 'TaskCreate') {
      return call('Task', {
        description: 'Work',
        prompt,
        subagent_type: 'general-purpose',
        name,
        team_name: 'crew',
      });
    }
    if (previous !== undefined) return say('Spawned.');
    if (lastText(request).includes('Start')) return call('TeamCreate', { team_name: 'crew' });
    return say('Noted.');
  };
}

function open(
  leadScript: Script,
  options: Partial<TeamRuntimeOptions> & { teammateStreamIdleMs?: number },
  teammates?: Script,
) {
  return openTestRuntime(leadScript, teammates, options);
}

const messagesToLead = (events: TeamEvent[]) =>
  events.filter(
    (event): event is Extract<TeamEvent, { type: 'message' }> =>
      event.type === 'message' && event.to === 'team-lead',
  );

describe('team runtime faults', () => {
  it("a teammate's stalled model stream is abandoned and retried; its message still reaches the lead", async () => {
    let requests = 0;
    const alice: Script = (request) => {
      requests += 1;
      if (requests === 1) return { content: [], fault: { kind: 'silence-after-headers' } };
      if (previousTool(request) === 'SendMessage') return say('Sent.');
      return call('SendMessage', {
        type: 'message',
        recipient: 'team-lead',
        content: 'made it through',
        summary: 'through',
      });
    };
    const { runtime, events } = await open(
      lead('alice', 'Say something.'),
      { teammateStreamIdleMs: 300 },
      alice,
    );
    await runtime.prompt('Start.');
    await until('the message after the stall', () =>
      messagesToLead(events).some((event) => event.text === 'made it through') ? true : undefined,
    );
    const retries = events.filter(
      (event) =>
        event.type === 'agent' && event.agentName === 'alice' && event.event.type === 'retry',
    );
    expect(retries.length).toBeGreaterThan(0);
  }, 30_000);

  it('a teammate whose turns fail tells the lead in its idle notification and keeps waiting for work', async () => {
    const bob: Script = () => ({
      content: [],
      fault: { kind: 'http-error', status: 400, errorType: 'invalid_request_error' },
    });
    const { runtime, events } = await open(lead('bob', 'Do the thing.'), {}, bob);
    await runtime.prompt('Start.');
    const idle = await until('a failed idle notification', () =>
      messagesToLead(events).find(
        (event) =>
          event.protocolType === 'idle_notification' &&
          event.text.includes('"idleReason":"failed"'),
      ),
    );
    expect(idle.from).toBe('bob');
    expect(runtime.members().find((member) => member.name === 'bob')?.alive).toBe(true);
  }, 30_000);

  it('a pane teammate SIGKILLed mid-task: the lead is told it is gone and its task is released', async () => {
    const bob: Script = (request) => {
      const text = lastText(request);
      if (/You took task #1 /.test(text)) return call('Bash', { command: 'sleep 60' });
      return say('Ready for tasks.');
    };
    const server = await startScriptedModel({ script: bob });
    closers.push(() => server.close());
    const { runtime, events, root } = await open(
      lead('bob', 'Take tasks from the list.', 'Long job'),
      {
        teammateMode: 'pty',
        backends: [
          createInProcessBackend({ processReaper: false }),
          createPtyBackend({ environment: { PATH: process.env.PATH } }),
        ],
        modelEnvironment: {
          ANTHROPIC_API_KEY: 'sk-test-faults-0123456789',
          ANTHROPIC_BASE_URL: server.url,
        },
        permissionRules: { allow: ['Bash(sleep:*)'] },
      },
    );
    await runtime.prompt('Start.');
    const tasks = createTaskStore({ root, team: 'crew' });
    await until('bob working on task #1', async () => {
      const task = await tasks.get('1');
      return task?.owner === 'bob' &&
        task.status === 'in_progress' &&
        server
          .requests()
          .some(
            (request) =>
              previousTool(request) === undefined && lastText(request).includes('You took task #1'),
          )
        ? true
        : undefined;
    });
    const sidecar = await readMemberRuntime(root, 'crew');
    const pid = Object.values(sidecar).find(
      (entry) => entry.pid !== undefined && entry.backend === 'pty',
    )?.pid;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid!, 'SIGKILL');
    await until('the lead told bob is gone', () =>
      events.some(
        (event) =>
          event.type === 'notice' && event.agentName === 'bob' && /is gone/.test(event.text),
      )
        ? true
        : undefined,
    );
    const task = await tasks.get('1');
    expect(task?.owner).toBeUndefined();
    expect(task?.status).toBe('pending');
    expect(runtime.members().find((member) => member.name === 'bob')?.alive).toBe(false);
  }, 60_000);
});
