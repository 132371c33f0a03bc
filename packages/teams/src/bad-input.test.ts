// Bad input gets a clear, typed error and leaves the disk exactly as it was.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MusterError } from '@muster/protocol';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  addMember,
  deleteTeam,
  readTeam,
  removeMember,
  setMemberMode,
  TeamsError,
  updateTeamConfig,
  type AddMemberOptions,
} from './index.js';
import { copyReferenceState, snapshotTree } from './test-helpers.js';

const teammate: AddMemberOptions = {
  name: 'delta',
  agentType: 'general-purpose',
  model: 'claude-opus-4-6',
  prompt: 'Work.',
  planModeRequired: false,
  cwd: '/work/repo',
  backendType: 'in-process',
  tmuxPaneId: 'in-process',
};

async function expectUnchanged(
  root: string,
  action: () => Promise<unknown>,
  code: string,
): Promise<TeamsError> {
  const before = await snapshotTree(root);
  const error = await action().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `expected ${code}`).toBeInstanceOf(TeamsError);
  expect((error as TeamsError).code).toBe(code);
  expect(await snapshotTree(root)).toEqual(before);
  return error as TeamsError;
}

describe('bad input', () => {
  it('refuses team names that leave the teams folder', async () => {
    const root = await makeTempDirectory();
    await copyReferenceState('06-all-teammates-spawned', root);
    for (const team of ['../conf-team', '..', 'a/b', '', '.muster', 'x\u0000']) {
      const error = await expectUnchanged(root, () => readTeam(root, team), 'INVALID_NAME');
      expect(error.message).toContain('team name');
      await expectUnchanged(root, () => addMember(root, team, teammate), 'INVALID_NAME');
      await expectUnchanged(root, () => deleteTeam(root, team, { force: true }), 'INVALID_NAME');
    }
  });

  it('reports an unknown team with the teams that exist and the closest one', async () => {
    const root = await makeTempDirectory();
    await copyReferenceState('06-all-teammates-spawned', root);
    for (const action of [
      () => readTeam(root, 'conf-tema'),
      () => addMember(root, 'conf-tema', teammate),
      () => setMemberMode(root, 'conf-tema', 'alpha', 'plan'),
      () => deleteTeam(root, 'conf-tema'),
    ]) {
      const error = await expectUnchanged(root, action, 'TEAM_NOT_FOUND');
      expect(error.details.existingTeams).toEqual(['conf-team']);
      expect(error.message).toContain('Did you mean "conf-team"?');
    }
  });

  it('reports an unknown member with the members and the closest name', async () => {
    const root = await makeTempDirectory();
    await copyReferenceState('06-all-teammates-spawned', root);
    for (const action of [
      () => removeMember(root, 'conf-team', 'gamm'),
      () => setMemberMode(root, 'conf-team', 'gamma@other-team', 'plan'),
    ]) {
      const error = await expectUnchanged(root, action, 'MEMBER_NOT_FOUND');
      expect(error.details.members).toEqual(['team-lead', 'alpha', 'beta', 'gamma']);
      expect(error.details.suggestion).toBe('gamma');
    }
  });

  it('refuses invalid member input before taking any lock', async () => {
    const root = await makeTempDirectory();
    await copyReferenceState('06-all-teammates-spawned', root);
    await expectUnchanged(
      root,
      () => addMember(root, 'conf-team', { ...teammate, name: '@@' }),
      'INVALID_NAME',
    );
    await expectUnchanged(
      root,
      () => addMember(root, 'conf-team', { ...teammate, backendType: 'docker' as never }),
      'INVALID_INPUT',
    );
    await expectUnchanged(
      root,
      () => setMemberMode(root, 'conf-team', 'alpha', 'yolo' as never),
      'INVALID_INPUT',
    );
    await expectUnchanged(
      root,
      () =>
        updateTeamConfig(root, 'conf-team', (config) => {
          config.members = 'none' as never;
          return config;
        }),
      'INVALID_INPUT',
    );
  });

  it('moves a corrupt config aside untouched and reports CORRUPT_FILE; nothing else changes', async () => {
    const root = await makeTempDirectory();
    await copyReferenceState('06-all-teammates-spawned', root);
    const teamFolder = path.join(root, 'teams/conf-team');
    const corrupt = '{\n  "name": "conf-team",\n  "members": [';
    await writeFile(path.join(teamFolder, 'config.json'), corrupt);
    const before = await snapshotTree(root);
    const error = await addMember(root, 'conf-team', teammate).catch((caught) => caught);
    expect(MusterError.hasCode(error, 'CORRUPT_FILE')).toBe(true);
    expect(error.message).toContain('conf-team');
    const quarantinedTo: string = error.details.quarantinedTo;
    expect(path.dirname(quarantinedTo)).toBe(teamFolder);
    expect(path.basename(quarantinedTo)).toMatch(/^config\.json\.corrupt-/);
    expect(await readFile(quarantinedTo, 'utf8')).toBe(corrupt);
    const after = await snapshotTree(root);
    const expected = { ...before };
    delete expected['teams/conf-team/config.json'];
    expected[path.relative(root, quarantinedTo)] = corrupt;
    expect(after).toEqual(expected);
    // The team is now missing, not silently recreated.
    const missing = await readTeam(root, 'conf-team').catch((caught) => caught);
    expect(MusterError.hasCode(missing, 'TEAM_NOT_FOUND')).toBe(true);
    expect(await readdir(teamFolder)).not.toContain('config.json');
  });

  it('reads a config caught in the middle of an in-place rewrite once it is whole, quarantining nothing', async () => {
    const root = await makeTempDirectory();
    await copyReferenceState('06-all-teammates-spawned', root);
    const file = path.join(root, 'teams/conf-team/config.json');
    const whole = await readFile(file, 'utf8');
    // A writer without the lock (as Claude Code rewrites config.json) is half way through.
    await writeFile(file, whole.slice(0, whole.length / 2));
    const reading = readTeam(root, 'conf-team');
    // Longer than a locked read takes, well inside the re-reads' window (10 × 25 ms).
    await new Promise((resolve) => setTimeout(resolve, 40));
    await writeFile(file, whole);
    const config = await reading;
    expect(config.name).toBe('conf-team');
    expect((await readdir(path.dirname(file))).filter((name) => name.includes('corrupt'))).toEqual(
      [],
    );
  });

  it('reports a config that fails the schema on read as CORRUPT_FILE', async () => {
    const root = await makeTempDirectory();
    await copyReferenceState('06-all-teammates-spawned', root);
    await writeFile(path.join(root, 'teams/conf-team/config.json'), '{"name": "conf-team"}');
    const error = await readTeam(root, 'conf-team').catch((caught) => caught);
    expect(MusterError.hasCode(error, 'CORRUPT_FILE')).toBe(true);
    expect(error.message).toContain('members');
  });
});
