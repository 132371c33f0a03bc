// The lead's team session end to end on the in-process backend: the lead's model and its
// teammates' model are @muster/scripted-model (a TEST DOUBLE of the Messages API) behind the
// real SDK; the team, inboxes and tasks are real files.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInProcessBackend } from '@muster/backends';
import { readTeam } from '@muster/teams';
import { makeTempDirectory } from '@muster/test-utils';
import type { ScriptRequest } from '@muster/scripted-model';
import { describe, expect, it } from 'vitest';
import { createTeamRuntime } from './team-runtime.js';
import {
  call,
  lastText,
  previousTool,
  say,
  scriptedModel,
  until,
} from './team-runtime-test-support.js';
import type { TeamEvent } from './team-event.js';
import type { TeamRuntime } from './team-runtime-options.js';

/** The lead: creates "crew", spawns alice, answers her, asks her to stop, deletes the team. */
function leadScript(request: ScriptRequest) {
  const text = lastText(request);
  const previous = previousTool(request);
  if (previous === 'TeamCreate') {
    return call('Task', {
      description: 'Say hello',
      prompt: 'Say hi to the lead, then wait.',
      subagent_type: 'general-purpose',
      name: 'alice',
      team_name: 'crew',
    });
  }
  if (previous === 'Task') return say('alice is on it.');
  if (previous === 'SendMessage') return say('Asked alice to stop.');
  if (previous === 'TeamDelete') return say('All done: the team is gone.');
  if (text.includes('shutdown_approved')) return call('TeamDelete', {});
  if (text.includes('hi from alice')) {
    return call('SendMessage', {
      type: 'shutdown_request',
      recipient: 'alice',
      content: 'Thanks, we are done.',
    });
  }
  if (text.includes('Lead the crew'))
    return call('TeamCreate', { team_name: 'crew', description: 'A test crew' });
  return say('Noted.');
}

/** alice: says hi, then approves the shutdown request it is shown. */
function aliceScript(request: ScriptRequest) {
  const text = lastText(request);
  const previous = previousTool(request);
  if (previous === 'SendMessage') return say('Done.');
  const shutdown = /"request_id":"(shutdown-[^"]+)"/.exec(text.replaceAll('\\"', '"'));
  if (shutdown !== null) {
    return call('SendMessage', {
      type: 'shutdown_response',
      request_id: shutdown[1],
      approve: true,
    });
  }
  if (text.includes('Say hi to the lead')) {
    return call('SendMessage', {
      type: 'message',
      recipient: 'team-lead',
      content: 'hi from alice',
      summary: 'hi',
    });
  }
  return say('Waiting.');
}

async function openRuntime(options: { askPolicy?: 'person' | 'headless' } = {}) {
  const root = await makeTempDirectory('muster-team-runtime-');
  const cwd = await makeTempDirectory('muster-team-runtime-cwd-');
  const lead = scriptedModel(leadScript);
  const teammates = scriptedModel(aliceScript);
  const events: TeamEvent[] = [];
  const runtime: TeamRuntime = await createTeamRuntime({
    root,
    cwd,
    client: lead.client,
    teammateClient: teammates.client,
    model: 'claude-test-model',
    homeDirectory: cwd,
    environment: { PATH: process.env.PATH },
    backends: [createInProcessBackend({ processReaper: false })],
    askPolicy: options.askPolicy ?? 'headless',
    onEvent: (event) => events.push(event),
  });
  return { root, cwd, runtime, events, lead, teammates };
}

describe('createTeamRuntime', () => {
  it('runs a whole small team headless: TeamCreate, a teammate, messages, shutdown, TeamDelete', async () => {
    const { root, runtime, events } = await openRuntime();
    try {
      const outcome = await runtime.run('Lead the crew.', { timeoutMs: 60_000 });
      expect(outcome.status).toBe('completed');
      expect(outcome.text).toBe('All done: the team is gone.');
      expect(existsSync(join(root, 'teams', 'crew'))).toBe(false);
      expect(events.some((event) => event.type === 'spawn' && event.agentName === 'alice')).toBe(
        true,
      );
      const toLead = events.filter(
        (event): event is Extract<TeamEvent, { type: 'message' }> =>
          event.type === 'message' && event.to === 'team-lead',
      );
      expect(toLead.map((event) => event.protocolType ?? 'text')).toEqual(
        expect.arrayContaining(['text', 'idle_notification', 'shutdown_approved']),
      );
      expect(
        events.some(
          (event) =>
            event.type === 'spawn_end' &&
            event.agentName === 'alice' &&
            event.status === 'completed',
        ),
      ).toBe(true);
      expect(runtime.members().every((member) => !member.alive)).toBe(true);
    } finally {
      await runtime.close();
    }
  }, 60_000);

  it('removes a teammate from the config only after its approved shutdown really ended it', async () => {
    const { root, runtime } = await openRuntime();
    try {
      await runtime.prompt('Lead the crew.');
      await until('alice in the config', async () =>
        (await readTeam(root, 'crew').catch(() => undefined))?.members.some(
          (member) => member.name === 'alice',
        )
          ? true
          : undefined,
      );
      await until('alice gone from the config', async () => {
        const team = await readTeam(root, 'crew').catch(() => undefined);
        return team === undefined || !team.members.some((member) => member.name === 'alice')
          ? true
          : undefined;
      });
      expect(runtime.members().find((member) => member.name === 'alice')?.alive).toBe(false);
    } finally {
      await runtime.close();
    }
  }, 60_000);

  it('refuses bad options, naming the option', async () => {
    const cwd = await makeTempDirectory('muster-team-runtime-bad-');
    const { client } = scriptedModel(() => say('unused'));
    await expect(createTeamRuntime({ root: 'relative', cwd, client, model: 'x' })).rejects.toThrow(
      /root must be an absolute path/,
    );
    await expect(createTeamRuntime({ root: cwd, cwd, client, model: '' })).rejects.toThrow(
      /model must be/,
    );
    await expect(
      createTeamRuntime({
        root: cwd,
        cwd,
        client,
        model: 'sonnet',
        permissionMode: 'yolo' as never,
      }),
    ).rejects.toThrow(/permissionMode "yolo"/);
    await expect(
      createTeamRuntime({ root: cwd, cwd, client, model: 'sonnet', askPolicy: 'robot' as never }),
    ).rejects.toThrow(/askPolicy/);
  });
});
