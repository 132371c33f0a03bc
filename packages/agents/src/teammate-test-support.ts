// Test support for the teammate loop (not exported): a real team on disk (config, inboxes,
// task list), a lead played by the test through a mailbox signed with the permissions
// package's lead keyring (exactly as a lead runtime writes), and a teammate whose model is
// @muster/scripted-model — a TEST DOUBLE of the Messages API — behind the real SDK.
import { createMailbox, type Mailbox } from '@muster/mailbox';
import { createLeadKeyring, type LeadKeyring } from '@muster/permissions';
import { parseMessageContent, type InboxMessage, type ProtocolMessage } from '@muster/protocol';
import { createModelClient, type ModelClient } from '@muster/query';
import {
  createScriptedFetch,
  type Script,
  type ScriptedFetch,
  type ScriptRequest,
} from '@muster/scripted-model';
import { addMember, createTeam } from '@muster/teams';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach } from 'vitest';
import { runTeammate } from './teammate.js';
import type { TeammateExit, TeammateOptions } from './teammate-options.js';
import type { TeamEvent } from './team-event.js';

/** A team with a lead (the test), the teammate `alice` and a peer `bob`. */
export interface TeammateFixture {
  root: string;
  cwd: string;
  teamName: string;
  keyring: LeadKeyring;
  /** The lead's mailbox: signs and records what it writes. */
  lead: Mailbox;
  /** A peer's mailbox: plain, like any member's. */
  peer: Mailbox;
  /** Every event the teammate emitted. */
  events: TeamEvent[];
}

/** Creates the team on disk with `alice` (the teammate under test) and `bob` (a peer). */
export async function createTeammateFixture(
  options: { planModeRequired?: boolean } = {},
): Promise<TeammateFixture> {
  const root = await makeTempDirectory('muster-teammate-');
  const cwd = await makeTempDirectory('muster-teammate-cwd-');
  const created = await createTeam({ root, name: 'crew', cwd });
  for (const name of ['alice', 'bob']) {
    await addMember(root, created.teamName, {
      name,
      agentType: 'general-purpose',
      model: 'claude-test-model',
      prompt: `You are ${name}.`,
      planModeRequired: name === 'alice' && options.planModeRequired === true,
      cwd,
      backendType: 'in-process',
      tmuxPaneId: 'in-process',
    });
  }
  const keyring = createLeadKeyring();
  return {
    root,
    cwd,
    teamName: created.teamName,
    keyring,
    lead: createMailbox({ root, team: created.teamName, ...keyring.mailboxOptions() }),
    peer: createMailbox({ root, team: created.teamName }),
    events: [],
  };
}

/** A running teammate and how to stop it. */
export interface RunningTeammate {
  scriptedFetch: ScriptedFetch;
  controller: AbortController;
  exit: Promise<TeammateExit>;
}

/**
 * Registers an `afterEach` that aborts and awaits every teammate handed to the returned
 * function (which returns it), so no test leaves a teammate running.
 */
export function stopTeammatesAfterEach(): (teammate: RunningTeammate) => RunningTeammate {
  const running: RunningTeammate[] = [];
  afterEach(async () => {
    for (const teammate of running.splice(0)) {
      teammate.controller.abort('test over');
      teammate.scriptedFetch.stop();
      await teammate.exit;
    }
  });
  return (teammate) => {
    running.push(teammate);
    return teammate;
  };
}

/** Starts `alice` against `script`. The caller aborts `controller` (or shuts it down) and awaits `exit`. */
export function startTeammate(
  fixture: TeammateFixture,
  script: Script,
  options: Partial<TeammateOptions> = {},
): RunningTeammate {
  const { client, scriptedFetch } = scriptedClient(script);
  const controller = new AbortController();
  const exit = runTeammate({
    ...teammateOptions(fixture, client),
    signal: controller.signal,
    ...options,
  });
  return { scriptedFetch, controller, exit };
}

/** A model client answered by `script` through the scripted model's fetch (no socket). */
export function scriptedClient(script: Script): {
  client: ModelClient;
  scriptedFetch: ScriptedFetch;
} {
  const scriptedFetch = createScriptedFetch({ script });
  const client = createModelClient({
    apiKey: 'sk-test-teammate-0123456789',
    baseURL: 'http://scripted-model.invalid',
    retryBaseMs: 1,
    streamIdleMs: 10_000,
    fetch: scriptedFetch,
  });
  return { client, scriptedFetch };
}

/** The options of `alice` in the fixture's team, except the lifecycle signal. */
export function teammateOptions(
  fixture: TeammateFixture,
  client: ModelClient,
): Omit<TeammateOptions, 'signal'> {
  return {
    root: fixture.root,
    teamName: fixture.teamName,
    agentName: 'alice',
    cwd: fixture.cwd,
    client,
    model: 'claude-test-model',
    systemPrompt: 'You are alice, a teammate in a test team. (Scripted test.)',
    tools: [],
    leadTrust: { ledger: fixture.keyring.ledger },
    onEvent: (event) => fixture.events.push(event),
    environment: { PATH: '/usr/bin:/bin' },
    homeDirectory: fixture.cwd,
    backendType: 'in-process',
  };
}

/** The text of the last user message of a request (string content or its text blocks). */
export function lastUserText(request: ScriptRequest): string {
  const messages = (request.body as { messages: Array<{ role: string; content: unknown }> })
    .messages;
  const last = [...messages].reverse().find((message) => message.role === 'user');
  if (last === undefined) return '';
  if (typeof last.content === 'string') return last.content;
  return (last.content as Array<{ type: string; text?: string }>)
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('\n');
}

/** Polls (every 10 ms, at most `timeoutMs`) until `check` returns a value. */
export async function eventually<Value>(
  what: string,
  check: () => Promise<Value | undefined> | Value | undefined,
  timeoutMs = 10_000,
): Promise<Value> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The protocol messages in `agent`'s inbox, oldest first. */
export async function protocolMessagesIn(
  mailbox: Mailbox,
  agent: string,
): Promise<Array<{ entry: InboxMessage; message: ProtocolMessage }>> {
  const entries = await mailbox.readAll(agent);
  return entries.flatMap((entry) => {
    const content = parseMessageContent(entry.text);
    return content.kind === 'protocol' ? [{ entry, message: content.message }] : [];
  });
}

/** Waits until the lead's inbox holds `count` messages of `type`; returns them. */
export async function waitForLeadMessages<Type extends ProtocolMessage['type']>(
  fixture: TeammateFixture,
  type: Type,
  count = 1,
): Promise<Array<Extract<ProtocolMessage, { type: Type }>>> {
  return eventually(`${count} ${type} in the lead's inbox`, async () => {
    const found = (await protocolMessagesIn(fixture.lead, 'team-lead'))
      .map((item) => item.message)
      .filter(
        (message): message is Extract<ProtocolMessage, { type: Type }> => message.type === type,
      );
    return found.length >= count ? found : undefined;
  });
}
