// A pane teammate does not hold the lead's permission rules, so it asks the lead about calls
// those rules allow. With a person answering, such a call is allowed by the rule at once (the
// ask and its answer are still events); only what the rules do not allow waits for the person.
// The lead is answered in-process and the teammate over HTTP by @muster/scripted-model (a TEST
// DOUBLE of the Messages API, never a model); the PTY, the process, the team and inboxes are real.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInProcessBackend, createPtyBackend } from '@muster/backends';
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

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.allSettled(servers.splice(0).map((server) => server.close()));
});

/** The lead: creates "crew" and spawns bob on a PTY. */
function leadScript(request: ScriptRequest) {
  const previous = previousTool(request);
  if (previous === 'TeamCreate') {
    return call('Task', {
      description: 'Files',
      prompt: 'Make the two files.',
      subagent_type: 'general-purpose',
      name: 'bob',
      team_name: 'crew',
    });
  }
  if (previous === 'Task') return say('bob is on it.');
  if (lastText(request).includes('Lead the crew')) return call('TeamCreate', { team_name: 'crew' });
  return say('Noted.');
}

/** bob: one call the lead's rule allows, then one it does not. */
function bobScript(request: ScriptRequest) {
  const previous = previousTool(request);
  if (previous === undefined && lastText(request).includes('Make the two files')) {
    return call('Bash', { command: 'touch allowed.txt', description: 'The allowed file' });
  }
  if (previous === 'Bash' && !lastText(request).includes('asked.txt')) {
    return call('Bash', { command: 'touch asked.txt', description: 'The file a person decides' });
  }
  return say('Both done.');
}

const asks = (events: TeamEvent[]) =>
  events.filter((event): event is Extract<TeamEvent, { type: 'ask' }> => event.type === 'ask');
const answers = (events: TeamEvent[]) =>
  events.filter(
    (event): event is Extract<TeamEvent, { type: 'ask_answer' }> => event.type === 'ask_answer',
  );

describe("a pane teammate's asks under the lead's rules, with a person answering", () => {
  it('allows what a lead rule allows without asking the person, and asks about the rest', async () => {
    const server = await startScriptedModel({ script: bobScript });
    servers.push(server);
    const environment = { PATH: process.env.PATH, HOME: process.env.HOME };
    const { runtime, events, cwd } = await openTestRuntime(leadScript, undefined, {
      askPolicy: 'person',
      teammateMode: 'pty',
      permissionRules: { allow: ['Bash(touch allowed.txt)'] },
      backends: [
        createPtyBackend({ environment }),
        createInProcessBackend({ processReaper: false }),
      ],
      modelEnvironment: {
        ANTHROPIC_API_KEY: 'sk-test-lead-rules-0123456789',
        ANTHROPIC_BASE_URL: server.url,
      },
    });
    await runtime.prompt('Lead the crew.');

    // The second call waits for the person; the first was allowed by the rule before it.
    const waiting = await until(
      'the ask about asked.txt',
      () => runtime.pendingAsks().find((ask) => ask.input?.command === 'touch asked.txt'),
      30_000,
    );
    expect(waiting).toMatchObject({ kind: 'permission', agentName: 'bob', toolName: 'Bash' });
    expect(existsSync(join(cwd, 'allowed.txt'))).toBe(true);
    const allowedAsk = asks(events).find((ask) => ask.input?.command === 'touch allowed.txt');
    expect(allowedAsk).toMatchObject({ agentName: 'bob', toolName: 'Bash' });
    expect(answers(events).find((answer) => answer.askId === allowedAsk!.askId)).toMatchObject({
      behavior: 'allow',
      by: "the lead's rule Bash(touch allowed.txt)",
    });
    expect(runtime.pendingAsks()).toHaveLength(1);
    expect(existsSync(join(cwd, 'asked.txt'))).toBe(false);

    await runtime.answer(waiting.askId, { behavior: 'allow' });
    await until('asked.txt', () => existsSync(join(cwd, 'asked.txt')) || undefined, 30_000);
    expect(answers(events).find((answer) => answer.askId === waiting.askId)).toMatchObject({
      behavior: 'allow',
      by: 'person',
    });
  }, 60_000);
});
