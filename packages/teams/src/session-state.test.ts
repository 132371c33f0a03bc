// teamSessionState judged against real processes: a live child whose identity is written into
// a real session team config, the same child after it exited, a wrong start time (a reused
// pid), a zombie, another pid namespace, and configs that record no usable lead process; and
// deleteTeam, which refuses to delete a session team whose session still runs.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import {
  currentPidSpace,
  deleteTeam,
  isSessionTeamName,
  readTeam,
  teamSessionState,
} from './index.js';
import { fixturePath } from './test-helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** `/proc/<pid>/stat` field 22 (start time in clock ticks), read independently of the code. */
function startTicks(pid: number): string {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[19]!;
}

const team = 'session-0badc0de';

/** A 2.1.330-shaped session team config whose leadProcess is `leadProcess`. */
function configWith(leadProcess: unknown, cwd = '/tmp') {
  return {
    name: team,
    createdAt: Date.now(),
    leadAgentId: `team-lead@${team}`,
    leadSessionId: '0badc0de-6d73-430a-956b-e724241e6b6c',
    leadProcess,
    members: [
      {
        agentId: `team-lead@${team}`,
        name: 'team-lead',
        agentType: 'team-lead',
        joinedAt: Date.now(),
        tmuxPaneId: 'leader',
        cwd,
        subscriptions: [],
        backendType: 'in-process',
      },
    ],
  };
}

/** Writes that config as a real session team and reads it back as muster does. */
async function sessionTeamWith(leadProcess: unknown, root?: string) {
  root ??= await makeTempDirectory();
  const config = configWith(leadProcess, root);
  await mkdir(path.join(root, 'teams', team), { recursive: true });
  await writeFile(path.join(root, 'teams', team, 'config.json'), JSON.stringify(config, null, 2));
  return readTeam(root, team);
}

async function liveChild() {
  const child = startNodeProcess(fixturePath('idle.mjs'));
  cleanups.push(() => child.child.kill('SIGKILL'));
  await child.waitForLine((line) => line === 'ready');
  return { child, pid: child.child.pid! };
}

describe('teamSessionState', () => {
  it('says running for a live lead, and ended once that process has exited', async () => {
    const pidSpace = currentPidSpace();
    expect(pidSpace).toMatch(/^.+#pid:\[[0-9]+\]$/);
    const { child, pid } = await liveChild();
    const config = await sessionTeamWith({
      pid,
      pidSpace,
      claimedAt: Date.now(),
      procStart: startTicks(pid),
    });
    expect(teamSessionState(config)).toEqual({
      state: 'running',
      pid,
      reason: expect.stringContaining(`pid ${pid}`),
    });
    child.child.kill('SIGKILL');
    await child.exited;
    const after = teamSessionState(config);
    expect(after.state).toBe('ended');
    expect(after.reason).toContain(`No process with pid ${pid}`);
  });

  it('says ended when the pid is alive but started at another time (a reused pid)', async () => {
    const { pid } = await liveChild();
    const realStart = startTicks(pid);
    const config = await sessionTeamWith({
      pid,
      pidSpace: currentPidSpace(),
      claimedAt: Date.now(),
      procStart: String(Number(realStart) - 1),
    });
    const state = teamSessionState(config);
    expect(state.state).toBe('ended');
    expect(state.reason).toContain('another process');
    expect(state.reason).toContain(realStart);
  });

  it('says ended for a lead that exited but was not reaped (a zombie)', async () => {
    // `sleep 0` exits at once; its parent becomes `sleep 30` (exec), which never reaps it.
    const shell = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    cleanups.push(() => shell.kill('SIGKILL'));
    const zombie = await new Promise<number>((resolve) => {
      shell.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    });
    let state = '';
    for (let attempt = 0; attempt < 500 && state !== 'Z'; attempt += 1) {
      state = readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]!.split(' ')[0]!;
      if (state !== 'Z') await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(state).toBe('Z');
    const config = await sessionTeamWith({
      pid: zombie,
      pidSpace: currentPidSpace(),
      claimedAt: Date.now(),
      procStart: startTicks(zombie),
    });
    const judged = teamSessionState(config);
    expect(judged.state).toBe('ended');
    expect(judged.reason).toContain('reaped');
  });

  it('says unknown, never ended, for a live-looking record from another pid namespace', async () => {
    const { pid } = await liveChild();
    const config = await sessionTeamWith({
      pid,
      pidSpace: 'elsewhere#pid:[4026532999]',
      claimedAt: Date.now(),
      procStart: startTicks(pid),
    });
    const state = teamSessionState(config);
    expect(state.state).toBe('unknown');
    expect(state.reason).toContain('elsewhere#pid:[4026532999]');
  });

  it('says ended for a record claimed before this system booted, even if its pid runs now', async () => {
    const { pid } = await liveChild();
    const config = await sessionTeamWith({
      pid,
      pidSpace: currentPidSpace(),
      claimedAt: 1_000_000_000_000,
      procStart: startTicks(pid),
    });
    const state = teamSessionState(config);
    expect(state.state).toBe('ended');
    expect(state.reason).toContain('before this system booted');
  });

  it('says unknown with the reason for a config without or with a malformed leadProcess', () => {
    expect(teamSessionState({ name: 'x', members: [] })).toMatchObject({
      state: 'unknown',
      reason: expect.stringContaining('no leadProcess'),
    });
    for (const leadProcess of [
      { pid: 0, pidSpace: currentPidSpace(), claimedAt: 1, procStart: '1' },
      { pid: -1, pidSpace: currentPidSpace(), claimedAt: 1, procStart: '1' },
      { pid: 5, pidSpace: currentPidSpace(), claimedAt: 1, procStart: 'soon' },
      { pid: 5, claimedAt: 1, procStart: '1' },
      'pid 5',
    ]) {
      const state = teamSessionState(configWith(leadProcess));
      expect(state.state).toBe('unknown');
      expect(state.reason).toContain('malformed');
    }
    expect(teamSessionState(null).state).toBe('unknown');
  });
});

describe('deleteTeam on a session team', () => {
  it('refuses while the session runs, even with force, and deletes once its lead has exited', async () => {
    const root = await makeTempDirectory();
    const { child, pid } = await liveChild();
    await sessionTeamWith(
      { pid, pidSpace: currentPidSpace(), claimedAt: Date.now(), procStart: startTicks(pid) },
      root,
    );
    const configPath = path.join(root, 'teams', team, 'config.json');
    const before = readFileSync(configPath, 'utf8');
    for (const force of [false, true]) {
      await expect(deleteTeam(root, team, { force })).rejects.toMatchObject({
        code: 'TEAM_IN_USE',
        message: expect.stringContaining('/exit'),
      });
      expect(readFileSync(configPath, 'utf8')).toBe(before);
    }
    child.child.kill('SIGKILL');
    await child.exited;
    await deleteTeam(root, team);
    expect(existsSync(path.join(root, 'teams', team))).toBe(false);
  });

  it('needs force for a session that cannot be checked from here', async () => {
    const root = await makeTempDirectory();
    await sessionTeamWith(
      { pid: 4242, pidSpace: 'elsewhere#pid:[4026532999]', claimedAt: Date.now(), procStart: '7' },
      root,
    );
    await expect(deleteTeam(root, team)).rejects.toMatchObject({
      code: 'TEAM_IN_USE',
      message: expect.stringContaining('pass force'),
    });
    expect(existsSync(path.join(root, 'teams', team, 'config.json'))).toBe(true);
    await deleteTeam(root, team, { force: true });
    expect(existsSync(path.join(root, 'teams', team))).toBe(false);
  });
});

describe('isSessionTeamName', () => {
  it('accepts session-<8 lowercase hex> only', () => {
    expect(isSessionTeamName('session-c29861cf')).toBe(true);
    for (const name of ['session-C29861CF', 'session-c29861c', 'session-c29861cf0', 'my-team']) {
      expect(isSessionTeamName(name)).toBe(false);
    }
  });
});
