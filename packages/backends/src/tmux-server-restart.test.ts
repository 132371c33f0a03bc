// A private server ended from outside (`kill-server`) is replaced at the next spawn, however soon
// that spawn comes: tmux 3.3a's kill-server returns before the server has exited, and a client
// that connects meanwhile is dropped ("server exited unexpectedly"). Before the fix the first
// such race closed the whole backend (a reconcile round read the replaced server).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend, MemberExit } from './backend-types.js';
import { createTmuxBackend } from './tmux-backend.js';
import type { TmuxMemberHandle } from './tmux-member.js';
import {
  killTestServer,
  makeTeamRoot,
  processRuns,
  scriptMember,
  testSocketName,
  tmuxOn,
} from './tmux-test-support.js';

const TEAM = 'restarts';
const RESTARTS = 30;
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

describe('private tmux server restarts', () => {
  it(`${RESTARTS} spawns, each right after kill-server of the previous server, all start`, async () => {
    backend = createTmuxBackend({ socketName, pollIntervalMs: 100 });
    const members: TmuxMemberHandle[] = [];
    const failures: string[] = [];
    for (let round = 0; round < RESTARTS; round++) {
      try {
        const member = (await backend.spawn(
          scriptMember(team.root, TEAM, `round${round}`, 'exec sleep 1000'),
        )) as TmuxMemberHandle;
        members.push(member);
        expect(member.isAlive()).toBe(true);
      } catch (error) {
        failures.push(`round ${round}: ${String(error)}`);
      }
      tmuxOn(socketName, ['kill-server']);
    }
    expect(failures).toEqual([]);
    const servers = new Set(members.map((member) => member.identity.serverPid));
    expect(servers.size).toBe(RESTARTS);
    const exits: MemberExit[] = await Promise.all(members.map((member) => member.exited));
    expect(exits.map((exit) => exit.reason)).toEqual(members.map(() => 'vanished'));
    expect([...servers].filter((pid) => processRuns(pid))).toEqual([]);
  }, 120_000);

  it('a server that is slow to answer (stopped) is not forgotten: close() still ends it', async () => {
    const tmux = createTmuxBackend({ socketName, pollIntervalMs: 200 });
    backend = tmux;
    const first = (await tmux.spawn(
      scriptMember(team.root, TEAM, 'first', 'exec sleep 1000'),
    )) as TmuxMemberHandle;
    first.markReady();
    const serverPid = first.identity.serverPid;
    process.kill(serverPid, 'SIGSTOP');
    try {
      // Every tmux call now times out: the spawn fails, but the server is still the backend's.
      await expect(
        tmux.spawn(scriptMember(team.root, TEAM, 'second', 'exec sleep 1000')),
      ).rejects.toThrow();
    } finally {
      process.kill(serverPid, 'SIGCONT');
    }
    await tmux.close();
    backend = undefined;
    const deadline = Date.now() + 10_000;
    while (processRuns(serverPid) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(processRuns(serverPid), 'the private server still runs after close()').toBe(false);
  }, 60_000);
});
