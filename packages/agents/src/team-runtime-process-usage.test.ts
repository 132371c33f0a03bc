// A teammate in its own process on a real PTY: its usage and cost reach the lead through its
// idle notifications (`tokenUsage`, a muster addition), its screen is readable, its current
// task shows, and its states arrive as `member_state` events. The lead is answered in-process and the teammate over HTTP by
// @muster/scripted-model (a TEST DOUBLE of the Messages API, never a model); the PTY, the
// process, the team, inboxes and tasks are real.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInProcessBackend, createPtyBackend } from '@muster/backends';
import { IdleNotificationSchema } from '@muster/protocol';
import { estimateCostUsd } from '@muster/query';
import { startScriptedModel, type ScriptRequest } from '@muster/scripted-model';
import { afterEach, describe, expect, it } from 'vitest';
import {
  call,
  lastText,
  openTestRuntime,
  previousTool,
  say,
  until,
} from './team-runtime-test-support.js';
import type { TeamEvent } from './team-event.js';

/** The JSON value of `text`, or undefined for plain words. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.allSettled(servers.splice(0).map((server) => server.close()));
});

/** The lead: creates "crew" and a task, then spawns bob (on a PTY) to take it. */
function leadScript(request: ScriptRequest) {
  const previous = previousTool(request);
  if (previous === 'TeamCreate') {
    return call('TaskCreate', {
      subject: 'Run the suite',
      description: 'npm test',
      activeForm: 'Running the suite',
    });
  }
  if (previous === 'TaskCreate') {
    return call('Task', {
      description: 'Suite',
      prompt: 'Take task 1 and work on it.',
      subagent_type: 'general-purpose',
      name: 'bob',
      team_name: 'crew',
    });
  }
  if (previous === 'Task') return say('bob is on it.');
  if (lastText(request).includes('Lead the crew')) {
    return call('TeamCreate', { team_name: 'crew', description: 'A test crew' });
  }
  return say('Noted.');
}

/** bob: claims task 1, then says he is working; told to sleep, he runs `sleep 2`. */
function bobScript(request: ScriptRequest) {
  if (previousTool(request) === 'TaskUpdate') return say('Running the suite now.');
  if (previousTool(request) === 'Bash') return say('Slept.');
  if (lastText(request).includes('Sleep a bit')) return call('Bash', { command: 'sleep 2' });
  if (lastText(request).includes('Take task 1')) {
    return call('TaskUpdate', { taskId: '1', status: 'in_progress', owner: 'bob' });
  }
  return say('Waiting.');
}

describe('a process teammate seen by the lead', () => {
  it("reports its usage in its idle notifications: bob's tokens, cost and usage events, on a PTY", async () => {
    const server = await startScriptedModel({ script: bobScript });
    servers.push(server);
    const environment = { PATH: process.env.PATH, HOME: process.env.HOME };
    const { runtime, events, root } = await openTestRuntime(leadScript, undefined, {
      model: 'claude-sonnet-5-5',
      teammateMode: 'pty',
      backends: [
        createPtyBackend({ environment }),
        createInProcessBackend({ processReaper: false }),
      ],
      modelEnvironment: {
        ANTHROPIC_API_KEY: 'sk-test-process-usage-0123456789',
        ANTHROPIC_BASE_URL: server.url,
      },
      permissionRules: { allow: ['Bash(sleep:*)'] },
      taskPollMs: 200,
    });
    await runtime.prompt('Lead the crew.');
    const bob = await until(
      "bob's usage and task",
      () => {
        const found = runtime.members().find((member) => member.name === 'bob');
        return found?.usage !== undefined && found.currentTask !== undefined ? found : undefined;
      },
      30_000,
    );
    expect(bob).toMatchObject({
      backendType: 'pty',
      color: 'blue',
      agentType: 'general-purpose',
      model: 'claude-sonnet-5-5',
      state: 'idle',
      currentTask: { id: '1', subject: 'Run the suite', activeForm: 'Running the suite' },
    });

    // The usage is what bob wrote in his latest idle notification, in the lead's inbox file.
    const inbox = JSON.parse(
      await readFile(join(root, 'teams', 'crew', 'inboxes', 'team-lead.json'), 'utf8'),
    ) as Array<{ from: string; text: string }>;
    const idle = inbox
      .filter((entry) => entry.from === 'bob')
      .map((entry) => IdleNotificationSchema.safeParse(parseJson(entry.text)))
      .filter((parsed) => parsed.success)
      .map((parsed) => parsed.data)
      .at(-1);
    expect(idle?.tokenUsage).toBeDefined();
    const now = runtime.members().find((member) => member.name === 'bob')!;
    expect(now.usage).toEqual(idle!.tokenUsage);
    expect(now.usage!.inputTokens).toBeGreaterThan(0);
    expect(now.usage!.outputTokens).toBeGreaterThan(0);
    expect(now.costUsd).toBeCloseTo(estimateCostUsd('claude-sonnet-5-5', now.usage!)!, 12);

    // The lead's stream has bob's usage, with its cost.
    const usage = events.filter(
      (event): event is Extract<TeamEvent, { type: 'usage' }> =>
        event.type === 'usage' && event.agentName === 'bob',
    );
    expect(usage.at(-1)).toMatchObject({ usage: now.usage, costUsd: now.costUsd });
    expect(runtime.status().totalCostUsd).toBeCloseTo(
      runtime.status().leadCostUsd! + now.costUsd!,
      12,
    );

    // His screen is readable as text.
    expect(now.view.kind).toBe('screen');
    if (now.view.kind !== 'screen') return;
    const view = now.view;
    const screen = await until('bob to print something', async () => {
      const text = await view.read();
      return text.trim() === '' ? undefined : text;
    });
    expect(screen).toContain('bob');

    // His states reach the lead as member_state events (from the team's member runtime
    // sidecar, which he writes): working while he sleeps, then idle again.
    const statesOfBob = () =>
      events.flatMap((event) =>
        event.type === 'member_state' && event.agentName === 'bob' ? [event.state] : [],
      );
    const before = statesOfBob().length;
    await runtime.messageTeammate('bob', 'Sleep a bit.');
    await until(
      'bob to be seen working, then idle',
      () => {
        const later = statesOfBob().slice(before);
        const working = later.indexOf('working');
        return working >= 0 && later.indexOf('idle', working) > working ? true : undefined;
      },
      30_000,
    );
    expect(runtime.members().find((member) => member.name === 'bob')?.state).toBe('idle');
  }, 60_000);
});
