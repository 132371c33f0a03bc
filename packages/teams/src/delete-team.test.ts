import { access, mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MusterError, type TeamMember } from '@muster/protocol';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  addMember,
  createTeam,
  deleteTeam,
  readTeam,
  recordMemberRuntime,
  setMemberWorktree,
  type AddMemberOptions,
} from './index.js';
import { copyReferenceState, fixturePath, runAtOnce, snapshotTree } from './test-helpers.js';

const teammate = (name: string): AddMemberOptions => ({
  name,
  agentType: 'general-purpose',
  model: 'claude-opus-4-6',
  prompt: `You are ${name}.`,
  planModeRequired: false,
  cwd: '/work/repo',
  backendType: 'pty',
  tmuxPaneId: '',
});

async function startIdleProcess() {
  const child = startNodeProcess(fixturePath('idle.mjs'));
  await child.waitForLine((line) => line === 'ready');
  return child;
}

describe('deleteTeam', () => {
  it('removes teams/{team} and tasks/{team} entirely and leaves other teams alone', async () => {
    const root = await makeTempDirectory();
    const { teamName } = await createTeam({ root, name: 'doomed', cwd: '/repo' });
    await createTeam({ root, name: 'kept', cwd: '/repo' });
    await mkdir(path.join(root, 'teams/doomed/inboxes'));
    await writeFile(path.join(root, 'teams/doomed/inboxes/team-lead.json'), '[]');
    await writeFile(path.join(root, 'tasks/doomed/1.json'), '{}');
    const keptBefore = await snapshotTree(path.join(root, 'teams/kept'));
    const result = await deleteTeam(root, teamName);
    expect(result).toEqual({
      teamName: 'doomed',
      removedMembers: [],
      worktreePaths: [],
      worktreeFailures: [],
    });
    expect((await readdir(path.join(root, 'teams'))).sort()).toEqual(['kept']);
    expect((await readdir(path.join(root, 'tasks'))).sort()).toEqual(['kept']);
    expect(await snapshotTree(path.join(root, 'teams/kept'))).toEqual(keptBefore);
    const again = await deleteTeam(root, teamName).catch((error) => error);
    expect(MusterError.hasCode(again, 'TEAM_NOT_FOUND')).toBe(true);
    expect(again.details.existingTeams).toEqual(['kept']);
  });

  it('refuses while teammates remain, names them, and changes nothing', async () => {
    const root = await makeTempDirectory();
    await copyReferenceState('11-all-shutdowns-approved', root);
    const before = await snapshotTree(root);
    const error = await deleteTeam(root, 'conf-team').catch((caught) => caught);
    expect(MusterError.hasCode(error, 'TEAM_HAS_MEMBERS')).toBe(true);
    expect(error.details.members).toEqual(['alpha', 'beta', 'gamma']);
    expect(error.message).toContain('alpha, beta, gamma');
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('with force, removes members the callback reports gone and keeps the team while any lives', async () => {
    const root = await makeTempDirectory();
    await copyReferenceState('06-all-teammates-spawned', root);
    const asked: string[] = [];
    const error = await deleteTeam(root, 'conf-team', {
      force: true,
      isMemberAlive: (member) => {
        asked.push(member.name);
        return member.name === 'beta';
      },
    }).catch((caught) => caught);
    expect(asked).toEqual(['alpha', 'beta', 'gamma']);
    expect(MusterError.hasCode(error, 'TEAM_HAS_MEMBERS')).toBe(true);
    expect(error.details.members).toEqual(['beta']);
    const config = await readTeam(root, 'conf-team');
    expect(config.members.map((member) => member.name)).toEqual(['team-lead', 'beta']);
  });

  it('with force and every teammate gone, deletes and hands each worktree to onWorktree', async () => {
    const root = await makeTempDirectory();
    const { teamName } = await createTeam({ root, name: 'wt', cwd: '/repo' });
    await addMember(root, teamName, { ...teammate('alpha'), worktreePath: '/wt/alpha' });
    await addMember(root, teamName, teammate('beta'));
    await setMemberWorktree(root, teamName, 'beta', '/wt/beta');
    const cleaned: Array<[string, string]> = [];
    const result = await deleteTeam(root, teamName, {
      force: true,
      isMemberAlive: () => false,
      onWorktree: (worktreePath, member: TeamMember) => {
        cleaned.push([worktreePath, member.name]);
        if (member.name === 'beta') throw new Error('worktree has changes');
      },
    });
    expect(cleaned).toEqual([
      ['/wt/alpha', 'alpha'],
      ['/wt/beta', 'beta'],
    ]);
    expect(result.removedMembers.map((member) => member.name)).toEqual(['alpha', 'beta']);
    expect(result.worktreePaths).toEqual(['/wt/alpha', '/wt/beta']);
    expect(result.worktreeFailures.map((failure) => failure.worktreePath)).toEqual(['/wt/beta']);
    expect(await readdir(path.join(root, 'teams'))).toEqual([]);
    expect(await readdir(path.join(root, 'tasks'))).toEqual([]);
  });

  it('with force, judges members by the pid recorded in the sidecar; unknown ones count as alive', async () => {
    const root = await makeTempDirectory();
    const { teamName } = await createTeam({ root, name: 'pids', cwd: '/repo' });
    await addMember(root, teamName, teammate('dies'));
    await addMember(root, teamName, teammate('lives'));
    await addMember(root, teamName, teammate('unknown'));
    const dying = await startIdleProcess();
    const living = await startIdleProcess();
    try {
      await recordMemberRuntime(root, teamName, 'dies', { pid: dying.child.pid!, backend: 'pty' });
      await recordMemberRuntime(root, teamName, 'lives', {
        pid: living.child.pid!,
        backend: 'pty',
      });
      dying.child.kill('SIGKILL');
      await dying.exited;
      const error = await deleteTeam(root, teamName, { force: true }).catch((caught) => caught);
      expect(MusterError.hasCode(error, 'TEAM_HAS_MEMBERS')).toBe(true);
      expect(error.details.members).toEqual(['lives', 'unknown']);
      const names = (await readTeam(root, teamName)).members.map((member) => member.name);
      expect(names).toEqual(['team-lead', 'lives', 'unknown']);
      // The callback can settle the unknown member; the sidecar still decides for the others.
      const second = await deleteTeam(root, teamName, {
        force: true,
        isMemberAlive: (member) => (member.name === 'unknown' ? false : undefined),
      }).catch((caught) => caught);
      expect(second.details.members).toEqual(['lives']);
      living.child.kill('SIGKILL');
      await living.exited;
      const done = await deleteTeam(root, teamName, { force: true });
      expect(done.removedMembers.map((member) => member.name)).toEqual(['lives']);
      expect(await readdir(path.join(root, 'teams'))).toEqual([]);
    } finally {
      dying.child.kill('SIGKILL');
      living.child.kill('SIGKILL');
    }
  });

  it('never loses a member that joins while the team is being deleted', async () => {
    const root = await makeTempDirectory();
    const outcomes: string[] = [];
    // Joiners start at once, a little later, or spread out: either side may win the race.
    const delays = [
      [0, 0, 0, 0],
      [60, 60, 60, 60],
      [0, 15, 30, 45],
    ];
    for (const [round, joinerDelays] of delays.entries()) {
      const { teamName } = await createTeam({ root, name: `race-${round}`, cwd: '/repo' });
      const results = await runAtOnce(
        fixturePath('join-or-delete.mjs'),
        [
          [root, teamName, 'delete', 'deleter', '0'],
          ...joinerDelays.map((delay, index) => [
            root,
            teamName,
            'join',
            `joiner-${index}`,
            String(delay),
          ]),
        ],
        path.join(root, `go-${round}`),
      );
      const [deleted, ...joins] = results.map((result) => result.stdout.trim());
      const teamExists = await access(path.join(root, 'teams', teamName, 'config.json')).then(
        () => true,
        () => false,
      );
      if (deleted === 'ok deleter') {
        // Deleted: every joiner was told the team is gone, and nothing was recreated.
        expect(joins).toEqual(Array(4).fill('error TEAM_NOT_FOUND'));
        expect(teamExists).toBe(false);
        expect((await readdir(path.join(root, 'teams'))).includes(teamName)).toBe(false);
      } else {
        // Refused: every joiner that was told "ok" is in the config.
        expect(deleted).toBe('error TEAM_HAS_MEMBERS');
        const names = (await readTeam(root, teamName)).members.map((member) => member.name);
        for (const join of joins) {
          expect(join).toMatch(/^ok joiner-[0-3]$/);
          expect(names).toContain(join.slice(3));
        }
      }
      outcomes.push(deleted!);
    }
    expect(outcomes).toHaveLength(3);
  });

  it('a corrupt config is left as it is, never answered with another team, and force deletes it', async () => {
    const root = await makeTempDirectory();
    await createTeam({ root, name: 'broken', cwd: '/repo' });
    await createTeam({ root, name: 'brokem', cwd: '/repo' });
    const configPath = path.join(root, 'teams/broken/config.json');
    await writeFile(configPath, '{"name": "broken", "members": [');
    const before = await snapshotTree(path.join(root, 'teams/broken'));

    for (let attempt = 0; attempt < 2; attempt += 1) {
      const refused = await deleteTeam(root, 'broken').catch((error) => error);
      expect(MusterError.hasCode(refused, 'CORRUPT_FILE')).toBe(true);
      expect(refused.message).toContain('Nothing was changed');
      expect(refused.message).toContain('pass force');
      expect(refused.message).not.toContain('brokem');
      expect(await snapshotTree(path.join(root, 'teams/broken'))).toEqual(before);
    }

    const result = await deleteTeam(root, 'broken', { force: true });
    expect(result.teamName).toBe('broken');
    expect((await readdir(path.join(root, 'teams'))).sort()).toEqual(['brokem']);
    expect((await readdir(path.join(root, 'tasks'))).sort()).toEqual(['brokem']);
  });

  it('force deletes a team folder whose config an older version moved aside', async () => {
    const root = await makeTempDirectory();
    await createTeam({ root, name: 'quarantined', cwd: '/repo' });
    await createTeam({ root, name: 'quarantine', cwd: '/repo' });
    const folder = path.join(root, 'teams/quarantined');
    await rename(
      path.join(folder, 'config.json'),
      path.join(folder, 'config.json.corrupt-2026-11-24T00-00-00-000Z'),
    );
    const refused = await deleteTeam(root, 'quarantined').catch((error) => error);
    expect(MusterError.hasCode(refused, 'CORRUPT_FILE')).toBe(true);
    expect(refused.message).toContain('is missing');
    expect(refused.message).not.toContain('Did you mean');
    await deleteTeam(root, 'quarantined', { force: true });
    expect((await readdir(path.join(root, 'teams'))).sort()).toEqual(['quarantine']);
  });
});
