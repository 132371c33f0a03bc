// Readiness of a member that does not connect back: its first idle_notification in the lead's
// inbox, written here by @muster/mailbox as Claude Code 2.1.45 writes it (real files).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createMailbox } from '@muster/mailbox';
import { createRootLayout } from '@muster/protocol';
import { addMember, createTeam } from '@muster/teams';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import type { Backend } from './backend-types.js';
import { markReadyOnIdleNotification, waitForIdleNotification } from './external-readiness.js';
import { createInProcessBackend } from './in-process-backend.js';

const backends: Backend[] = [];
afterEach(async () => {
  await Promise.allSettled(backends.splice(0).map((backend) => backend.close()));
});

async function team() {
  const root = await makeTempDirectory('muster-external-readiness-');
  const { teamName } = await createTeam({ root, name: 'ready-team', cwd: root, dialect: 'v1' });
  for (const name of ['alice', 'bob'])
    await addMember(root, teamName, {
      name,
      agentType: 'general-purpose',
      model: 'claude-opus-4-6',
      prompt: 'work',
      planModeRequired: false,
      cwd: root,
      backendType: 'tmux',
      tmuxPaneId: '',
    });
  const mailbox = createMailbox({ root, team: teamName });
  const idle = (from: string, timestamp = new Date().toISOString()) =>
    mailbox.sendProtocolMessage('team-lead', from, {
      type: 'idle_notification',
      from,
      timestamp,
      idleReason: 'available',
    });
  return { root, teamName, mailbox, idle };
}

describe('waitForIdleNotification', () => {
  it("resolves with the member's own idle notification, not another's, not a plain message, not an older one", async () => {
    const { root, teamName, mailbox, idle } = await team();
    await idle('alice', new Date(Date.now() - 60_000).toISOString()); // an earlier run's
    const since = Date.now();
    const waiting = waitForIdleNotification({
      root,
      teamName,
      agentName: 'alice',
      since,
      timeoutMs: 10_000,
      pollIntervalMs: 50,
    });
    await mailbox.send('team-lead', { from: 'alice', text: 'hello, not idle yet' });
    await idle('bob');
    const written = new Date().toISOString();
    await idle('alice', written);
    const seen = await waiting;
    expect(seen.entry.from).toBe('alice');
    expect(seen.notification).toMatchObject({ type: 'idle_notification', from: 'alice' });
    expect(seen.entry.timestamp).toBe(written);
    expect(seen.seenAt).toBeGreaterThanOrEqual(since);
  });

  it('by default counts only entries stamped after the wait started: a stale one does not make the member ready', async () => {
    const { root, teamName, idle } = await team();
    const stale = new Date(Date.now() - 5_000).toISOString(); // an earlier run of the same name
    await idle('alice', stale);
    const waiting = waitForIdleNotification({
      root,
      teamName,
      agentName: 'alice',
      timeoutMs: 10_000,
      pollIntervalMs: 50,
    });
    let early: string | undefined;
    void waiting.then(
      (seen) => (early ??= seen.entry.timestamp),
      () => undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 300)); // several polls over the stale entry
    expect(early).toBeUndefined();
    const fresh = new Date(Date.now() + 1).toISOString();
    await idle('alice', fresh);
    expect((await waiting).entry.timestamp).toBe(fresh);
  });

  it('reads past a half-written inbox and an inbox that does not exist yet', async () => {
    const root = await makeTempDirectory('muster-external-readiness-');
    const inbox = createRootLayout(root).inboxPath('late-team', 'team-lead');
    const waiting = waitForIdleNotification({
      root,
      teamName: 'late-team',
      agentName: 'alice',
      timeoutMs: 10_000,
      pollIntervalMs: 50,
    });
    await mkdir(dirname(inbox), { recursive: true });
    await writeFile(inbox, '[{"from":"alice","text":"{\\"type\\":\\"idle_noti'); // mid-rewrite
    await new Promise((resolve) => setTimeout(resolve, 200));
    const timestamp = new Date().toISOString();
    const payload = JSON.stringify({ type: 'idle_notification', from: 'alice', timestamp });
    await writeFile(
      inbox,
      JSON.stringify([{ from: 'alice', text: payload, timestamp, color: 'blue', read: false }]),
    );
    expect((await waiting).notification.from).toBe('alice');
  });

  it('rejects with NOT_READY naming the inbox when none comes in time', async () => {
    const { root, teamName, idle } = await team();
    await idle('bob');
    const waiting = waitForIdleNotification({ root, teamName, agentName: 'alice', timeoutMs: 300 });
    await expect(waiting).rejects.toMatchObject({ code: 'NOT_READY' });
    await expect(waiting).rejects.toThrow(
      /alice@ready-team sent no idle_notification .*team-lead\.json/,
    );
  });

  it('stops when its signal aborts, and refuses a name that is not a file name part', async () => {
    const { root, teamName } = await team();
    const controller = new AbortController();
    const waiting = waitForIdleNotification({
      root,
      teamName,
      agentName: 'alice',
      signal: controller.signal,
    });
    controller.abort(new Error('lead shutting down'));
    await expect(waiting).rejects.toThrow('lead shutting down');
    expect(() => waitForIdleNotification({ root, teamName, agentName: '../alice' })).toThrow(
      /agentName "\.\.\/alice" is not a valid file name part/,
    );
    expect(() =>
      waitForIdleNotification({ root, teamName, agentName: 'alice', timeoutMs: -1 }),
    ).toThrow(/timeoutMs must be a number of milliseconds/);
  });
});

describe('markReadyOnIdleNotification', () => {
  it("resolves an external member's ready at its idle notification, and gives up when it exits first", async () => {
    const { root, teamName, idle } = await team();
    const backend = createInProcessBackend();
    backends.push(backend);
    const spec = (agentName: string) => ({
      root,
      teamName,
      agentName,
      agentId: `${agentName}@${teamName}`,
      cwd: root,
      readiness: 'external' as const,
      readyTimeoutMs: 10_000,
      run: (context: { signal: AbortSignal }) =>
        new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve())),
    });
    const alice = await backend.spawn(spec('alice'));
    const since = Date.now();
    const aliceWait = markReadyOnIdleNotification(alice, { since, pollIntervalMs: 50 });
    let ready = false;
    void alice.ready.then(() => (ready = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ready).toBe(false);
    await idle('alice');
    expect((await aliceWait)?.notification.from).toBe('alice');
    await alice.ready;

    const bob = await backend.spawn(spec('bob'));
    const bobWait = markReadyOnIdleNotification(bob, { since: Date.now(), pollIntervalMs: 50 });
    void bob.ready.catch(() => undefined);
    await bob.kill({ graceful: false });
    expect(await bobWait).toBeUndefined();
  });
});
