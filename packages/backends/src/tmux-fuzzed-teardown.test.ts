// R16, fuzzed: spawns, backend kills and kills from outside (kill-pane, kill-server, a server
// restarted by someone else on the same socket, a member pane respawned from outside, a user
// pane in the lead's window) interleaved in a seeded random order. Every process the test
// starts itself is recorded; at the end each one is alive unless the test itself ended it: the
// backends killed nothing they do not own. Replay a failure with MUSTER_FUZZ_SEED=<seed>.
import { randomInt } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from './backend-types.js';
import { isSameProcess, readProcessIdentity, type ProcessIdentity } from './process-control.js';
import { createTmuxBackend } from './tmux-backend.js';
import type { TmuxMemberHandle } from './tmux-member.js';
import {
  killTestServer,
  makeTeamRoot,
  pollUntil,
  processRuns,
  scriptMember,
  startLeadSession,
  testSocketName,
  tmuxOn,
} from './tmux-test-support.js';

const STEPS = 60;
const seed = Number(process.env.MUSTER_FUZZ_SEED ?? randomInt(1, 2 ** 31));

/** A small seeded generator (mulberry32), so that a failing order can be replayed. */
function seededRandom(start: number): (below: number) => number {
  let state = start >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return Math.floor((((value ^ (value >>> 14)) >>> 0) / 4294967296) * below);
  };
}

/** A process the test started itself, and whether the test itself has ended it since. */
interface OwnedProcess {
  what: string;
  /** The pane it runs in. */
  paneId: string;
  identity: ProcessIdentity;
  socketName: string;
  endedByTest: boolean;
  /**
   * It runs in a pane of the team's private server that the backend started: closing the
   * backend ends that server with everything in it (runtime.md §3.6), so that end is allowed.
   */
  inTeamServer?: boolean;
}

let privateSocket: string;
let insideSocket: string;
let team: ReturnType<typeof makeTeamRoot>;
const backends: Backend[] = [];

beforeEach(() => {
  privateSocket = testSocketName();
  insideSocket = testSocketName();
  team = makeTeamRoot('fuzz');
});

afterEach(async () => {
  await Promise.allSettled(backends.map((backend) => backend.close()));
  backends.length = 0;
  killTestServer(privateSocket);
  killTestServer(insideSocket);
  team.remove();
});

function paneProcess(socketName: string, paneId: string): ProcessIdentity {
  const pid = Number(tmuxOn(socketName, ['display-message', '-p', '-t', paneId, '#{pane_pid}']));
  const identity = readProcessIdentity(pid);
  if (identity === undefined) throw new Error(`pane ${paneId} on ${socketName} has no process`);
  return identity;
}

function serverPid(socketName: string): number | undefined {
  try {
    return Number(tmuxOn(socketName, ['display-message', '-p', '#{pid}']).trim());
  } catch {
    return undefined;
  }
}

describe('R16 fuzzed teardown', () => {
  it(`${STEPS} seeded random steps kill no pane or process the backends do not own`, async () => {
    const random = seededRandom(seed);
    const log: string[] = [`seed ${seed}`];
    const owned: OwnedProcess[] = [];
    const own = (what: string, socketName: string, paneId: string): void => {
      owned.push({
        what,
        paneId,
        identity: paneProcess(socketName, paneId),
        socketName,
        endedByTest: false,
      });
    };
    // The test's own kill-pane or respawn-pane ends what ran in that pane.
    const endedByTestIn = (socketName: string, paneId: string): void => {
      for (const entry of owned) {
        if (entry.socketName === socketName && entry.paneId === paneId) entry.endedByTest = true;
      }
    };
    const endedByTestOn = (socketName: string): void => {
      for (const entry of owned) if (entry.socketName === socketName) entry.endedByTest = true;
    };

    const leadPane = startLeadSession(insideSocket, 200, 50);
    own('lead pane', insideSocket, leadPane);
    const privateBackend = createTmuxBackend({ socketName: privateSocket, pollIntervalMs: 100 });
    const insideBackend = createTmuxBackend({
      socketName: insideSocket,
      leadPane,
      pollIntervalMs: 100,
      minimumPaneSize: { columns: 10, rows: 2 },
    });
    backends.push(privateBackend, insideBackend);
    const members: { member: TmuxMemberHandle; socketName: string }[] = [];
    let spawned = 0;

    const liveMembers = (socketName?: string): { member: TmuxMemberHandle; socketName: string }[] =>
      members.filter(
        (entry) =>
          !entry.member.settling && (socketName === undefined || entry.socketName === socketName),
      );
    const pick = <T>(items: T[]): T | undefined =>
      items.length === 0 ? undefined : items[random(items.length)];

    const steps: Record<string, () => Promise<string>> = {
      async spawn() {
        const inside = random(2) === 0;
        const name = `m${spawned++}`;
        const script = random(4) === 0 ? 'sleep 0.3; exit 0' : 'exec sleep 1000';
        try {
          const member = (await (inside ? insideBackend : privateBackend).spawn(
            scriptMember(team.root, 'fuzz', name, script),
          )) as TmuxMemberHandle;
          member.markReady();
          members.push({ member, socketName: inside ? insideSocket : privateSocket });
          return `spawn ${name} ${inside ? 'inside' : 'private'} ${member.identity.paneId}`;
        } catch (error) {
          // A spawn may be refused (a server someone else restarted holds the socket): never a kill.
          return `spawn ${name} refused: ${String(error).slice(0, 120)}`;
        }
      },
      async backendKill() {
        const entry = pick(liveMembers());
        if (entry === undefined) return 'backend kill: no member';
        const exit = await entry.member.kill({ graceful: random(2) === 0, deadlineMs: 300 });
        return `backend kill ${entry.member.spec.agentName}: ${exit.reason}`;
      },
      async outsideKillPane() {
        const entry = pick(liveMembers());
        if (entry === undefined) return 'outside kill-pane: no member';
        try {
          tmuxOn(entry.socketName, ['kill-pane', '-t', entry.member.identity.paneId]);
          endedByTestIn(entry.socketName, entry.member.identity.paneId);
        } catch (error) {
          return `outside kill-pane failed: ${String(error).slice(0, 80)}`;
        }
        return `outside kill-pane ${entry.member.identity.paneId}`;
      },
      async outsideRespawn() {
        const entry = pick(liveMembers());
        if (entry === undefined) return 'outside respawn: no member';
        const paneId = entry.member.identity.paneId;
        try {
          tmuxOn(entry.socketName, ['respawn-pane', '-k', '-t', paneId, '--', 'sleep', '999']);
          endedByTestIn(entry.socketName, paneId);
          own(`respawned ${paneId}`, entry.socketName, paneId);
          const inTeamServer =
            entry.socketName === privateSocket &&
            serverPid(privateSocket) === entry.member.identity.serverPid;
          owned[owned.length - 1]!.inTeamServer = inTeamServer;
        } catch (error) {
          return `outside respawn failed: ${String(error).slice(0, 80)}`;
        }
        return `outside respawn ${paneId}`;
      },
      async userPane() {
        const answer = tmuxOn(insideSocket, [
          'split-window',
          '-d',
          '-t',
          leadPane,
          '-P',
          '-F',
          '#{pane_id}',
          '--',
          'sleep',
          '1000',
        ]).trim();
        own(`user pane ${answer}`, insideSocket, answer);
        return `user pane ${answer}`;
      },
      async outsideKillServer() {
        const pid = serverPid(privateSocket);
        if (pid === undefined) return 'outside kill-server: none runs';
        tmuxOn(privateSocket, ['kill-server']);
        endedByTestOn(privateSocket);
        await pollUntil('the killed server to exit', () => !processRuns(pid));
        return `outside kill-server ${pid}`;
      },
      async outsideRestart() {
        const pid = serverPid(privateSocket);
        if (pid !== undefined) {
          tmuxOn(privateSocket, ['kill-server']);
          endedByTestOn(privateSocket);
          await pollUntil('the killed server to exit', () => !processRuns(pid));
        }
        const paneId = tmuxOn(privateSocket, [
          '-f',
          '/dev/null',
          'new-session',
          '-d',
          '-P',
          '-F',
          '#{pane_id}',
          '--',
          'sleep',
          '1000',
        ]).trim();
        own(`restarted server pane ${paneId}`, privateSocket, paneId);
        return `outside restart: someone else's server, its pane ${paneId}`;
      },
    };
    const weights: [keyof typeof steps, number][] = [
      ['spawn', 5],
      ['backendKill', 4],
      ['outsideKillPane', 1],
      ['outsideRespawn', 1],
      ['userPane', 1],
      ['outsideKillServer', 1],
      ['outsideRestart', 1],
    ];
    const total = weights.reduce((sum, [, weight]) => sum + weight, 0);
    for (let step = 0; step < STEPS; step++) {
      let roll = random(total);
      const [name] = weights.find(([, weight]) => (roll -= weight) < 0) ?? weights[0]!;
      log.push(`${step}: ${await steps[name]!()}`);
    }
    // Teardown by the backends themselves: every member they still have is killed.
    await Promise.all(backends.map((backend) => backend.close()));
    log.push('backends closed');

    const report = (text: string): string =>
      `${text} (seed ${seed}; replay with MUSTER_FUZZ_SEED=${seed})\n${log.join('\n')}`;
    const wronglyEnded = owned
      .filter(
        (entry) => !entry.endedByTest && !entry.inTeamServer && !isSameProcess(entry.identity),
      )
      .map((entry) => `${entry.what} (pid ${entry.identity.pid})`);
    expect(wronglyEnded, report('processes the test owns were ended by a backend')).toEqual([]);
    const survivingMembers = members
      .filter(({ member }) => processRuns(member.identity.panePid))
      .filter(
        ({ member }) => !owned.some((entry) => entry.identity.pid === member.identity.panePid),
      )
      .map(({ member }) => member.spec.agentName);
    expect(survivingMembers, report('members still running after close')).toEqual([]);
    expect(owned.length, report('the run started processes of its own')).toBeGreaterThan(1);
  }, 240_000);
});
