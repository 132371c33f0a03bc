// The real Claude Code 2.1.45 CLI (the pinned devDependency `@anthropic-ai/claude-code`), run
// headless with `-p` against the HTTP transport: a scripted lead creates a team, spawns one
// in-process teammate, they exchange a message, the teammate goes idle, the lead shuts it down
// and deletes the team, and the run exits 0. Proves the fake speaks the API as a real client
// expects. Bounded: the CLI is killed (whole process tree) after 60 s; its HOME is a temp folder.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createClaudeCodeHome,
  findClaudeCode,
  runClaudeCode,
  snapshotTeam,
  type ClaudeCodeLocation,
  type TeamSnapshot,
} from '@muster/test-utils';
import { startScriptedModel } from './http-transport.js';
import { createPromptCache } from './prompt-cache.js';
import { createRequestLog } from './request-log.js';
import { createScriptContext } from './script-context.js';
import { allTeammateMessages, userIdOf } from './script-helpers-tellers.js';
import {
  LEAD_DONE,
  LEAD_MESSAGE,
  oneTeammateScript,
  PEER_TEAM,
  PEER_TEAMMATE,
  peerRoleOf,
  peerStepOf,
  SIDE_REPLY,
  TEAMMATE_REPLY,
  type PeerRole,
  type PeerStep,
} from './test-fixtures/claude-code-peer/one-teammate-script.js';
import type { Script, ScriptRequest } from './types.js';

const RUN_LIMIT_MS = 60_000;
const FIXTURE_TEAM = fileURLToPath(
  new URL(
    '../../../fixtures/claude-code-2.1.45/06-all-teammates-spawned/teams/conf-team/config.json',
    import.meta.url,
  ),
);

const LEAD_STEPS: PeerStep[] = [
  'TeamCreate',
  'Task',
  'SendMessage message',
  'SendMessage shutdown_request',
  'wait for shutdown',
  'TeamDelete',
  'done',
];
const TEAMMATE_STEPS: PeerStep[] = [
  'teammate ready',
  'SendMessage reply',
  'teammate idle',
  'SendMessage shutdown_response',
];
const TEXT_STEPS = new Set<PeerStep>([
  'wait for shutdown',
  'done',
  'teammate ready',
  'teammate idle',
  'side',
  'unknown',
]);

/** One request as the test saw it: who sent it, what it got, the team folder at that moment. */
interface Seen {
  index: number;
  role: PeerRole;
  step: PeerStep;
  team: TeamSnapshot;
}

type Member = Record<string, unknown> & { name?: string };
const membersOf = (team: TeamSnapshot | undefined): Member[] =>
  (team?.config?.members as Member[] | undefined) ?? [];
const payloadOf = (entry: Record<string, unknown>): Record<string, unknown> | undefined => {
  try {
    const parsed: unknown = JSON.parse(String(entry.text));
    return parsed !== null && typeof parsed === 'object'
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};

let location: ClaudeCodeLocation = { unavailable: 'not looked up yet' };
beforeAll(async () => {
  location = await findClaudeCode();
}, 150_000);

describe('the real Claude Code 2.1.45 as a peer: a lead and one in-process teammate', () => {
  it('creates the team, exchanges a message each way, shuts down, deletes the team and exits 0', async (context) => {
    if ('unavailable' in location) {
      console.warn(`SKIPPED the real Claude Code run: ${location.unavailable}`);
      context.skip(location.unavailable);
      return;
    }
    const home = await createClaudeCodeHome();
    const log = createRequestLog();
    const seen: Seen[] = [];
    const script: Script = (request, scriptContext) => {
      seen.push({
        index: request.index,
        role: peerRoleOf(request),
        step: peerStepOf(request),
        team: snapshotTeam(home.configDirectory, PEER_TEAM),
      });
      return oneTeammateScript(request, scriptContext);
    };
    const server = await startScriptedModel({ script, cache: createPromptCache(), log });
    try {
      const run = await runClaudeCode({
        cli: location.cli,
        baseUrl: server.url,
        home,
        prompt: `Create a team, spawn ${PEER_TEAMMATE}, talk to her, then shut the team down.`,
        timeoutMs: RUN_LIMIT_MS,
      });
      const story = seen.map((entry) => `#${entry.index} ${entry.role}: ${entry.step}`).join('\n');
      const diagnosis = `requests:\n${story}\nstderr:\n${run.stderr.slice(-2000)}`;
      console.info(
        `Claude Code ${location.source}: ${seen.length} requests, exit ${run.exitCode} in ${run.durationMs} ms`,
      );

      // The run: exit 0 within the bound, the lead's last text as the result.
      expect(run.timedOut, diagnosis).toBe(false);
      expect(run.exitCode, diagnosis).toBe(0);
      expect(run.events.filter((event) => event.type === 'result').at(-1)).toMatchObject({
        subtype: 'success',
        is_error: false,
        result: LEAD_DONE,
      });
      const models = run.events
        .filter((event) => event.type === 'assistant')
        .map((event) => (event.message as { model?: string }).model);
      expect(models.length).toBeGreaterThan(0);
      for (const model of models) expect(model).toMatch(/ \(scripted test double\)$/);

      // The request sequence: each agent's steps in order, told apart from the requests alone.
      const requests = server.requests();
      const stepsOf = (role: PeerRole): PeerStep[] =>
        seen.filter((entry) => entry.role === role).map((entry) => entry.step);
      expect(stepsOf('unknown'), diagnosis).toEqual([]);
      expect(stepsOf('lead'), diagnosis).toEqual(LEAD_STEPS);
      expect(stepsOf('teammate'), diagnosis).toEqual(TEAMMATE_STEPS);
      const indexOf = (role: PeerRole, step: PeerStep): number =>
        seen.find((entry) => entry.role === role && entry.step === step)?.index ?? -1;
      // alice answered after the lead's message; the lead asked for shutdown only after that.
      expect(indexOf('teammate', 'SendMessage reply')).toBeGreaterThan(
        indexOf('lead', 'SendMessage message'),
      );
      expect(indexOf('lead', 'SendMessage shutdown_request')).toBeLessThan(
        indexOf('teammate', 'SendMessage shutdown_response'),
      );
      const request = (role: PeerRole, step: PeerStep): ScriptRequest =>
        requests[indexOf(role, step)] as ScriptRequest;
      expect(
        allTeammateMessages(request('teammate', 'SendMessage reply')).map((message) => [
          message.from,
          message.text,
        ]),
      ).toContainEqual(['team-lead', LEAD_MESSAGE]);
      const leadSaw = allTeammateMessages(request('lead', 'TeamDelete'));
      expect(leadSaw.map((message) => [message.from, message.text])).toContainEqual([
        PEER_TEAMMATE,
        TEAMMATE_REPLY,
      ]);
      expect(leadSaw.map((message) => message.payload?.type)).toEqual(
        expect.arrayContaining(['idle_notification', 'shutdown_approved']),
      );
      const leadUserId = userIdOf(request('lead', 'TeamCreate'));
      expect(leadUserId).toBeTruthy();
      for (const entry of seen.filter((item) => item.role === 'teammate'))
        expect(userIdOf(requests[entry.index] as ScriptRequest)).toBe(leadUserId);
      for (const entry of seen.filter((item) => item.role === 'side'))
        expect(requests[entry.index]?.body.tools ?? []).toEqual([]);

      // Wire facts and the request log: one record per request, all 200, the scripted stop reasons
      for (const received of requests) {
        expect(received.path).toBe('/v1/messages?beta=true');
        expect(received.headers['anthropic-version']).toBe('2023-06-01');
        expect(received.headers['x-api-key']).toBe('sk-ant-scripted-test-double');
        expect(received.headers['anthropic-beta']).toBeTruthy();
        expect(received.body.stream).toBe(true);
      }
      const records = log.records();
      // (recorded when each finishes: the lead's held request finishes after later ones)
      expect(records.map((record) => record.index).sort((a, b) => a - b)).toEqual(
        requests.map((item) => item.index),
      );
      for (const record of records) {
        const step = seen.find((entry) => entry.index === record.index)?.step ?? 'unknown';
        expect({ index: record.index, status: record.status, stop: record.stopReason }).toEqual({
          index: record.index,
          status: 200,
          stop: TEXT_STEPS.has(step) ? 'end_turn' : 'tool_use',
        });
      }

      // On disk, as Claude Code wrote it: the member added (same keys as the 2.1.45 fixture) …
      const fixture = JSON.parse(readFileSync(FIXTURE_TEAM, 'utf8')) as { members: Member[] };
      const spawned = seen.find(
        (entry) => entry.role === 'lead' && entry.step === 'SendMessage message',
      );
      expect(spawned?.team.config).toMatchObject({
        name: PEER_TEAM,
        leadAgentId: `team-lead@${PEER_TEAM}`,
      });
      expect(membersOf(spawned?.team).map((member) => member.name)).toEqual([
        'team-lead',
        PEER_TEAMMATE,
      ]);
      const alice = membersOf(spawned?.team)[1] as Member;
      expect(alice).toMatchObject({
        agentId: `${PEER_TEAMMATE}@${PEER_TEAM}`,
        agentType: 'general-purpose',
        tmuxPaneId: 'in-process',
        backendType: 'in-process',
        planModeRequired: false,
      });
      expect(Object.keys(alice)).toEqual(Object.keys(fixture.members[1] as Member));
      expect(Object.keys(membersOf(spawned?.team)[0] as Member)).toEqual(
        Object.keys(fixture.members[0] as Member),
      );

      // … the lead's message (then the shutdown request) in alice's inbox, her reply, idle notice
      // and approval in the lead's, and alice removed from the config once she approved.
      const ended = seen.find((entry) => entry.role === 'lead' && entry.step === 'TeamDelete');
      const aliceInbox = ended?.team.inboxes[PEER_TEAMMATE] ?? [];
      expect(aliceInbox[0]).toMatchObject({
        from: 'team-lead',
        text: LEAD_MESSAGE,
        summary: 'lead asks alice to confirm',
      });
      expect(aliceInbox.map((entry) => payloadOf(entry)?.type)).toContain('shutdown_request');
      const leadInbox = ended?.team.inboxes['team-lead'] ?? [];
      expect(leadInbox).toContainEqual(
        expect.objectContaining({
          from: PEER_TEAMMATE,
          text: TEAMMATE_REPLY,
          summary: 'alice confirms',
        }),
      );
      const leadPayloads = leadInbox.map((entry) => payloadOf(entry));
      expect(leadPayloads).toContainEqual(
        expect.objectContaining({ type: 'idle_notification', from: PEER_TEAMMATE }),
      );
      const shutdownRequest = aliceInbox
        .map((entry) => payloadOf(entry))
        .find((payload) => payload?.type === 'shutdown_request');
      expect(leadPayloads).toContainEqual(
        expect.objectContaining({
          type: 'shutdown_approved',
          from: PEER_TEAMMATE,
          requestId: shutdownRequest?.requestId,
          backendType: 'in-process',
        }),
      );
      expect(membersOf(ended?.team).map((member) => member.name)).toEqual(['team-lead']);
      // … and TeamDelete removed the team folder.
      expect(existsSync(join(home.configDirectory, 'teams', PEER_TEAM))).toBe(false);
    } finally {
      await server.close();
      await log.close();
      await home.dispose();
    }
    expect(existsSync(home.root)).toBe(false);
  }, 120_000);
});

describe('a stalled model never hangs the real Claude Code run', () => {
  it('kills the CLI and its whole process group at the hard limit', async (context) => {
    if ('unavailable' in location) {
      console.warn(`SKIPPED the real Claude Code run: ${location.unavailable}`);
      context.skip(location.unavailable);
      return;
    }
    const home = await createClaudeCodeHome();
    const server = await startScriptedModel({
      script: () => ({ content: [], fault: { kind: 'silence-after-headers' } }),
    });
    try {
      const run = await runClaudeCode({
        cli: location.cli,
        baseUrl: server.url,
        home,
        prompt: 'Say hello',
        timeoutMs: 4_000,
      });
      expect(run.timedOut).toBe(true);
      expect(run.signal).toBe('SIGKILL');
      expect(run.durationMs).toBeLessThan(15_000);
      expect(server.requests().length).toBeGreaterThan(0); // it was waiting on the model
      expect(run.pid).toBeTypeOf('number');
      expect(() => process.kill(-(run.pid as number), 0)).toThrow(/ESRCH/); // no process left
    } finally {
      await server.close();
      await home.dispose();
    }
  }, 60_000);
});

describe('the peer script tells requests apart from what they carry', () => {
  const request = (body: Partial<ScriptRequest['body']>): ScriptRequest => ({
    index: 0,
    path: '/v1/messages?beta=true',
    headers: {},
    receivedAt: 0,
    body: { model: 'claude-haiku-4-5', max_tokens: 512, messages: [], ...body },
  });
  const scriptContext = createScriptContext({
    state: new Map(),
    requests: [],
    signal: new AbortController().signal,
  });

  it('answers a side request (no tools) with text', async () => {
    const side = request({ messages: [{ role: 'user', content: 'Summarize this session' }] });
    expect(peerRoleOf(side)).toBe('side');
    expect(await oneTeammateScript(side, scriptContext)).toEqual({
      content: [{ type: 'text', text: SIDE_REPLY }],
    });
  });

  it('gives an agent it has no part for a text, never a tool call', async () => {
    const stranger = request({
      tools: [{ name: 'Read', input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(peerRoleOf(stranger)).toBe('unknown');
    const reply = await oneTeammateScript(stranger, scriptContext);
    expect(reply.content.map((block) => block.type)).toEqual(['text']);
  });

  it('starts the lead with TeamCreate and a teammate with a text', () => {
    const tools = ['Task', 'TeamCreate', 'SendMessage'].map((name) => ({
      name,
      input_schema: { type: 'object' },
    }));
    expect(peerStepOf(request({ tools, messages: [{ role: 'user', content: 'go' }] }))).toBe(
      'TeamCreate',
    );
    const spawnPrompt = `<teammate-message teammate_id="team-lead" summary="x">\nYou are ${PEER_TEAMMATE}.\n</teammate-message>`;
    expect(
      peerStepOf(
        request({ tools: tools.slice(2), messages: [{ role: 'user', content: spawnPrompt }] }),
      ),
    ).toBe('teammate ready');
  });
});
