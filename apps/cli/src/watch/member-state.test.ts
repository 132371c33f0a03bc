import { spawn } from 'node:child_process';
import { createTeam, heartbeat, recordMemberRuntime } from '@muster/teams';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { copyReferenceState } from '../test-support/reference.js';
import { buildDashboardModel } from './dashboard-model.js';
import { loadTeamSnapshot } from './load-team-snapshot.js';

async function states(root: string, team: string) {
  const model = buildDashboardModel(await loadTeamSnapshot(root, team));
  return Object.fromEntries(model.members.map((member) => [member.name, member.state]));
}

/** A real process that runs until killed. */
function startProcess() {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { child, exited };
}

describe('member states from processes, heartbeats and messages', () => {
  it('a lead just created from the command line, with no process behind it, is unknown', async () => {
    const root = await makeTempDirectory('muster-cli-state-');
    await createTeam({ root, name: 'fresh', cwd: root });
    expect(await states(root, 'fresh')).toEqual({ 'team-lead': 'unknown' });
  });

  it('a Claude Code team whose last messages are hours old is unknown, not working', async () => {
    // The reference was recorded long ago: the lead never went idle, the others shut down.
    const root = await copyReferenceState('11-all-shutdowns-approved');
    expect(await states(root, 'conf-team')).toEqual({
      'team-lead': 'unknown',
      alpha: 'gone',
      beta: 'gone',
      gamma: 'gone',
    });
  });

  it('a recorded process decides: running is working, ended is gone', async () => {
    const root = await makeTempDirectory('muster-cli-state-');
    await createTeam({ root, name: 'run', cwd: root });
    const lead = startProcess();
    try {
      await recordMemberRuntime(root, 'run', 'team-lead', { pid: lead.child.pid! });
      expect(await states(root, 'run')).toEqual({ 'team-lead': 'working' });
    } finally {
      lead.child.kill('SIGKILL');
      await lead.exited;
    }
    expect(await states(root, 'run')).toEqual({ 'team-lead': 'gone' });
  });

  it('without a process id, a fresh heartbeat is working and an old one unknown', async () => {
    const root = await makeTempDirectory('muster-cli-state-');
    await createTeam({ root, name: 'beat', cwd: root });
    await recordMemberRuntime(root, 'beat', 'team-lead', { backend: 'in-process' });
    expect(await states(root, 'beat')).toEqual({ 'team-lead': 'working' });
    await heartbeat(root, 'beat', 'team-lead', { now: Date.now() - 30 * 60_000 });
    expect(await states(root, 'beat')).toEqual({ 'team-lead': 'unknown' });
  });
});
