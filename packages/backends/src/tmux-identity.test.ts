// R16: a recorded pane is (socket, server pid, pane id, pane pid, start time); after a server
// restart `%0` is another server's pane and muster never touches it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from './backend-types.js';
import { createTmuxBackend } from './tmux-backend.js';
import { checkTmuxPane, killTmuxPane } from './tmux-identity.js';
import type { TmuxMemberHandle } from './tmux-member.js';
import {
  killTestServer,
  makeTeamRoot,
  pollUntil,
  processRuns,
  scriptMember,
  testSocketName,
  tmuxOn,
} from './tmux-test-support.js';

const TEAM = 'identity';
let socketName: string;
let team: ReturnType<typeof makeTeamRoot>;
let backend: Backend | undefined;

beforeEach(() => {
  socketName = testSocketName();
  team = makeTeamRoot(TEAM);
});

afterEach(async () => {
  await backend?.close().catch(() => undefined);
  backend = undefined;
  killTestServer(socketName);
  team.remove();
});

describe('tmux pane identity (R16)', () => {
  it('after a server restart, %0 of the new server is never signalled nor closed', async () => {
    backend = createTmuxBackend({ socketName, pollIntervalMs: 200 });
    const member = (await backend.spawn(
      scriptMember(team.root, TEAM, 'old', 'exec sleep 1000'),
    )) as TmuxMemberHandle;
    const recorded = { ...member.identity };
    expect(recorded.paneId).toBe('%0');
    expect(recorded.paneStartTime).toMatch(/^\d+$/);
    expect(await checkTmuxPane(recorded)).toEqual({ state: 'running' });

    tmuxOn(socketName, ['kill-server']);
    // kill-server returns before the server has exited; a client that connects meanwhile is
    // dropped ("server exited unexpectedly"), so start the new server once the old one is gone.
    await pollUntil('the old server to exit', () => !processRuns(recorded.serverPid));
    tmuxOn(socketName, ['-f', '/dev/null', 'new-session', '-d', '--', 'sleep', '1000']);
    const [newPaneId, newPanePid] = tmuxOn(socketName, [
      'list-panes',
      '-a',
      '-F',
      '#{pane_id} #{pane_pid}',
    ])
      .trim()
      .split(' ');
    expect(newPaneId).toBe('%0');

    expect(await checkTmuxPane(recorded)).toMatchObject({ state: 'changed' });
    await expect(killTmuxPane(recorded, { deadlineMs: 500 })).rejects.toMatchObject({
      code: 'IDENTITY_CHANGED',
    });
    const exit = await member.kill({ deadlineMs: 500 });
    expect(exit.reason).toBe('vanished');
    expect(member.isAlive()).toBe(false);
    expect(processRuns(Number(newPanePid))).toBe(true);
    expect(tmuxOn(socketName, ['list-panes', '-a', '-F', '#{pane_id} #{pane_dead}']).trim()).toBe(
      '%0 0',
    );
  });

  it('a pane whose process was replaced (respawned from outside) is left alone', async () => {
    backend = createTmuxBackend({ socketName });
    const member = (await backend.spawn(
      scriptMember(team.root, TEAM, 'respawned', 'exec sleep 1000'),
    )) as TmuxMemberHandle;
    tmuxOn(socketName, ['respawn-pane', '-k', '-t', member.identity.paneId, '--', 'sleep', '999']);
    const newPid = Number(
      tmuxOn(socketName, [
        'display-message',
        '-p',
        '-t',
        member.identity.paneId,
        '#{pane_pid}',
      ]).trim(),
    );
    expect(newPid).not.toBe(member.identity.panePid);
    expect(await checkTmuxPane(member.identity)).toMatchObject({ state: 'changed' });
    const exit = await member.kill({ deadlineMs: 500 });
    expect(exit.reason).toBe('vanished');
    expect(exit.message).toContain('Left pane');
    expect(processRuns(newPid)).toBe(true);
  });

  it('a recorded pane whose server is gone is reported gone, and killing it touches nothing', async () => {
    backend = createTmuxBackend({ socketName });
    const member = (await backend.spawn(
      scriptMember(team.root, TEAM, 'orphan', 'exec sleep 1000'),
    )) as TmuxMemberHandle;
    const recorded = { ...member.identity };
    tmuxOn(socketName, ['kill-server']);
    await pollUntil('the member to be seen gone', () => !member.isAlive());
    expect(await checkTmuxPane(recorded)).toMatchObject({ state: 'gone' });
    expect(await killTmuxPane(recorded)).toMatchObject({ state: 'gone' });
    expect((await member.exited).reason).toBe('vanished');
  });
});
