// A REAL Claude Code CLI runs as a teammate in a pane of a private tmux server, started by the
// tmux backend with the team identity on its command line: 2.1.45 (the pinned
// `@anthropic-ai/claude-code`, found by @muster/test-utils) and 2.1.330 (its native executable,
// fetched once by npm pack; the lead signs its entries with @muster/permissions' keyring). The
// test is the lead: it makes the team with @muster/teams, writes the spawn prompt and the
// shutdown request with @muster/mailbox, learns `ready` from the teammate's first
// idle_notification, and checks that nothing of the team is left running. The only fake is the
// model (@muster/scripted-model, a test double).
import { existsSync } from 'node:fs';
import { parseProtocolMessage } from '@muster/protocol';
import { startScriptedModel, type ScriptedModelServer } from '@muster/scripted-model';
import { createLeadKeyring } from '@muster/permissions';
import { createTaskStore } from '@muster/tasks';
import {
  claudeCodeEnvironment,
  createClaudeCodeHome,
  findClaudeCode,
  findNativeClaudeCode,
  type ClaudeCodeHome,
  type ClaudeCodeLocation,
} from '@muster/test-utils';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Backend, MemberHandle } from './backend-types.js';
import { claudeCodeTeammateCommand } from './claude-code-teammate.js';
import {
  createLeadTeam,
  HOLD_MESSAGE,
  prepareInteractiveHome,
  processExists,
  TEAMMATE_NAME,
  TEAMMATE_REPLY,
  teammateScript,
  type LeadTeam,
} from './claude-code-teammate-test-support.js';
import { markReadyOnIdleNotification } from './external-readiness.js';
import { createMemberMonitor, type MemberMonitor } from './member-monitor.js';
import { createTmuxBackend } from './tmux-backend.js';
import type { TmuxMemberView } from './tmux-member.js';
import { killTestServer, testSocketName, tmuxOn } from './tmux-test-support.js';

const READY_LIMIT_MS = 50_000;
const EXIT_LIMIT_MS = 15_000;

/** One Claude Code build under test: 2.1.45 (a Node bundle) or 2.1.330 (a native executable). */
interface Version {
  label: string;
  location: ClaudeCodeLocation;
  /** 2.1.330 accepts the lead's entries only when signed with the key on its command line. */
  signed: boolean;
}
const classic: Version = {
  label: '2.1.45',
  location: { unavailable: 'not looked up' },
  signed: false,
};
const native: Version = {
  label: '2.1.330',
  location: { unavailable: 'not looked up' },
  signed: true,
};
beforeAll(async () => {
  classic.location = await findClaudeCode();
}, 180_000);

interface Run {
  home: ClaudeCodeHome;
  server: ScriptedModelServer;
  backend: Backend;
  socketName: string;
  team: LeadTeam;
  handle?: MemberHandle;
  monitor?: MemberMonitor;
}
const runs: Run[] = [];

afterEach(async () => {
  for (const run of runs.splice(0)) {
    await run.monitor?.close();
    await run.backend.close();
    killTestServer(run.socketName);
    await run.server.close();
    await run.home.dispose();
  }
});

async function startRun(version: Version, onHeld?: () => void): Promise<Run> {
  const home = await createClaudeCodeHome('muster-claude-code-teammate-');
  const server = await startScriptedModel({ script: teammateScript({ onHeld }) });
  const socketName = testSocketName();
  const backend = createTmuxBackend({ socketName, environment: {}, pollIntervalMs: 200 });
  const root = home.configDirectory;
  const keyring = version.signed ? createLeadKeyring() : undefined;
  const launchKey = keyring?.createMemberKey(TEAMMATE_NAME); // made before the signed spawn prompt
  const team = await createLeadTeam(root, home.workDirectory, {
    dialect: version.signed ? 'v2' : 'v1',
    ...(keyring === undefined ? {} : { mailboxOptions: keyring.mailboxOptions() }),
  });
  const run: Run = { home, server, backend, socketName, team };
  runs.push(run);
  const environment = claudeCodeEnvironment(home, server.url) as Record<string, string>;
  await prepareInteractiveHome(home, environment.ANTHROPIC_API_KEY as string);
  const command = claudeCodeTeammateCommand({
    cli: (version.location as { cli: string }).cli,
    agentName: TEAMMATE_NAME,
    teamName: team.teamName,
    color: team.color,
    parentSessionId: team.leadSessionId,
    permissionMode: 'default',
    ...(version.signed ? {} : { model: 'claude-opus-4-6' }),
    extraArguments: launchKey?.launchArguments ?? [],
  });
  const since = Date.now();
  run.handle = await backend.spawn({
    root,
    teamName: team.teamName,
    agentName: TEAMMATE_NAME,
    agentId: `${TEAMMATE_NAME}@${team.teamName}`,
    color: team.color,
    cwd: home.workDirectory,
    environment: { ...environment, TERM: 'xterm-256color' },
    command,
    readiness: 'external',
    readyTimeoutMs: READY_LIMIT_MS,
  });
  const paneId = run.handle.describe().paneId as string;
  await team.recordPane(paneId);
  await markReadyOnIdleNotification(run.handle, { since, pollIntervalMs: 100 });
  return run;
}

function skipWithoutClaudeCode(
  version: Version,
  context: { skip: (note?: string) => void },
): boolean {
  const location = version.location;
  if (!('unavailable' in location)) return false;
  console.warn(`SKIPPED the real Claude Code ${version.label} teammate: ${location.unavailable}`);
  context.skip(location.unavailable);
  return true;
}

const bounded = <T>(what: string, promise: Promise<T>, limitMs: number): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not happen within ${limitMs} ms`)), limitMs),
    ),
  ]);

/**
 * Spawn → ready at the first idle notification → a message to the lead → a shutdown request the
 * teammate approves → exit 0 → no CLI process, no pane, no tmux server.
 */
async function fullRun(version: Version): Promise<void> {
  const started = Date.now();
  const run = await startRun(version);
  const handle = run.handle as MemberHandle;
  await bounded('ready', handle.ready, READY_LIMIT_MS);
  const readyMs = Date.now() - started;
  const view = handle.describe() as TmuxMemberView;
  expect(view.backend).toBe('tmux');
  expect(view.pid).toBeTypeOf('number');
  const pid = view.pid as number;
  expect(processExists(pid)).toBe(true);
  // The pane's process is the CLI itself, with the team identity on its command line.
  const commandLine = tmuxOn(run.socketName, [
    'display-message',
    '-p',
    '-t',
    view.paneId as string,
    '#{pane_pid}',
  ]).trim();
  expect(Number(commandLine)).toBe(pid);

  const leadInbox = await run.team.mailbox.readAll('team-lead');
  expect(
    leadInbox.some((entry) => entry.from === TEAMMATE_NAME && entry.text === TEAMMATE_REPLY),
  ).toBe(true);
  const idle = leadInbox
    .map((entry) => parseProtocolMessage(entry.text))
    .find((payload) => payload?.type === 'idle_notification');
  expect(idle).toMatchObject({ type: 'idle_notification', from: TEAMMATE_NAME });
  // The teammate read its inbox: 2.1.45 marks the entry read, 2.1.330 removes what it delivered.
  const spawnPrompt = (await run.team.mailbox.readAll(TEAMMATE_NAME))[0];
  if (version.signed) expect(spawnPrompt).toBeUndefined();
  else expect(spawnPrompt?.read).toBe(true);

  const requestId = `shutdown-${Date.now()}@${TEAMMATE_NAME}`;
  await run.team.mailbox.sendProtocolMessage(TEAMMATE_NAME, 'team-lead', {
    type: 'shutdown_request',
    requestId,
    from: 'team-lead',
    reason: 'All done, thank you.',
    timestamp: new Date().toISOString(),
  });
  const exit = await bounded('the exit after shutdown', handle.exited, EXIT_LIMIT_MS).catch(
    (error: Error) => {
      const screen = tmuxOn(run.socketName, ['capture-pane', '-p', '-t', view.paneId as string]);
      const last = run.server.requests().at(-1);
      throw new Error(
        `${error.message}\n--- pane ---\n${screen.trim()}\n--- last request ---\n${JSON.stringify(last?.body.messages.at(-1)).slice(0, 1500)}`,
      );
    },
  );
  const exitMs = Date.now() - started;
  expect(exit).toMatchObject({ reason: 'exited', code: 0 });
  // Every lead entry reached the model as genuine (2.1.330 marks an unproven one verified="false").
  const seen = JSON.stringify(run.server.requests().map((request) => request.body.messages));
  expect(seen).toContain('teammate_id=\\"team-lead\\"');
  expect(seen).not.toContain('verified=');
  const approval = (await run.team.mailbox.readAll('team-lead'))
    .map((entry) => parseProtocolMessage(entry.text))
    .find((payload) => payload?.type === 'shutdown_approved');
  // When the approval names a pane, it is the one recorded in the config. Both versions
  // sometimes leave paneId and backendType out (2.1.45 seen once in CI under load, 2.1.330
  // often): what the CLI writes there is its own business, not muster's.
  expect(approval).toMatchObject({ requestId, from: TEAMMATE_NAME });
  if ((approval as { paneId?: string }).paneId !== undefined)
    expect(approval).toMatchObject({ paneId: view.paneId, backendType: 'tmux' });
  // Nothing of the team is left: the CLI, its pane, and (after close) the private server.
  expect(processExists(pid)).toBe(false);
  expect(existsSync(`/proc/${pid}`)).toBe(false);
  expect(handle.isAlive()).toBe(false);
  const panes = (() => {
    try {
      return tmuxOn(run.socketName, ['list-panes', '-a', '-F', '#{pane_id}']);
    } catch {
      return ''; // the server ended with its last pane
    }
  })();
  expect(panes.split('\n')).not.toContain(view.paneId);
  await run.backend.close();
  const serverPid = view.serverPid;
  if (serverPid !== undefined) expect(processExists(serverPid)).toBe(false);
  console.log(
    `real Claude Code ${version.label} teammate (${(version.location as { source: string }).source}): ready ${readyMs} ms after spawn, exited ${exitMs} ms after spawn; ${run.server.requests().length} model requests`,
  );
}

describe('a real Claude Code teammate in a tmux pane, led by muster', () => {
  it('2.1.45: is ready at its first idle notification, answers the lead, approves shutdown and leaves nothing running', async (context) => {
    if (skipWithoutClaudeCode(classic, context)) return;
    await fullRun(classic);
  }, 90_000);

  describe('2.1.330', () => {
    beforeAll(async () => {
      native.location = await findNativeClaudeCode(); // npm pack on first use: ~175 MB
    }, 400_000);

    it('native, lead entries signed: the same, its spawn prompt and shutdown request verified', async (context) => {
      if (skipWithoutClaudeCode(native, context)) return;
      await fullRun(native);
    }, 90_000);
  });

  it('2.1.45: killed mid-turn (SIGKILL), is reported exited by the backend alone and its task is unassigned', async (context) => {
    if (skipWithoutClaudeCode(classic, context)) return;
    let held!: () => void;
    const heldNow = new Promise<void>((resolve) => (held = resolve));
    const run = await startRun(classic, () => held());
    const handle = run.handle as MemberHandle;
    await bounded('ready', handle.ready, READY_LIMIT_MS);
    const root = run.home.configDirectory;
    const tasks = createTaskStore({ root, team: run.team.teamName });
    const task = await tasks.create({ subject: 'Alice works on this', description: 'held turn' });
    await tasks.update(task.id, { owner: TEAMMATE_NAME, status: 'in_progress' });
    const monitor = createMemberMonitor({ root, teamName: run.team.teamName, intervalMs: 200 });
    run.monitor = monitor;
    const watched = await monitor.watch(handle);

    await run.team.mailbox.send(TEAMMATE_NAME, {
      from: 'team-lead',
      text: HOLD_MESSAGE,
      summary: 'think',
    });
    await bounded('the held model call', heldNow, 20_000);
    const pid = handle.describe().pid as number;
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    const exit = await bounded('the exit after SIGKILL', handle.exited, 10_000);
    const detectedMs = Date.now() - killedAt;
    // The backend saw the pane's process die by the signal (tmux-exit-status.ts recovers the
    // status tmux 3.3a sometimes loses), never a plain exit or `vanished`.
    expect(exit).toMatchObject({ reason: 'crashed', signal: 'SIGKILL' });
    const gone = await bounded('the member monitor', watched.gone, 10_000);
    expect(gone.unassigned?.unassignedTasks.map((entry) => entry.id)).toEqual([task.id]);
    const after = await tasks.get(task.id);
    expect(after?.owner).toBeUndefined();
    expect(after?.status).toBe('pending');
    expect(processExists(pid)).toBe(false);
    console.log(`SIGKILLed Claude Code teammate: exit reported ${detectedMs} ms after the kill`);
  }, 90_000);
});
