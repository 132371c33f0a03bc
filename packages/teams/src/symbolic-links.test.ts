import { mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory, snapshotFolder } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  addMember,
  createTeam,
  deleteTeam,
  listTeams,
  readMemberRuntime,
  readTeam,
  recordMemberRuntime,
  TeamsError,
  type AddMemberOptions,
} from './index.js';

const teammate: AddMemberOptions = {
  name: 'worker',
  agentType: 'general-purpose',
  model: 'claude-opus-4-6',
  prompt: 'Work.',
  planModeRequired: false,
  cwd: '/work/repo',
  backendType: 'pty',
  tmuxPaneId: '',
};

/** A root with team "crew" (lead + worker) and an outside folder holding a copy of it. */
async function setup() {
  const base = await makeTempDirectory('muster-teams-links-');
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  await mkdir(outside);
  const { teamName } = await createTeam({ root, name: 'crew', cwd: '/repo', now: 1 });
  await addMember(root, teamName, teammate);
  const config = await readFile(path.join(root, 'teams', 'crew', 'config.json'), 'utf8');
  await writeFile(path.join(outside, 'config.json'), config);
  await mkdir(path.join(outside, 'team'));
  await writeFile(path.join(outside, 'team', 'config.json'), config);
  await writeFile(path.join(outside, 'members.json'), '{"version":1,"members":{}}');
  return { root, outside, team: teamName };
}

async function expectUnsafe(promise: Promise<unknown>, link: string): Promise<void> {
  const error = await promise.then(
    () => new Error('expected UNSAFE_PATH'),
    (caught: unknown) => caught,
  );
  expect(error, String(error)).toBeInstanceOf(TeamsError);
  expect((error as TeamsError).code).toBe('UNSAFE_PATH');
  expect((error as Error).message).toContain(link);
}

describe('a symbolic link below the root is never followed', () => {
  it('a linked config.json: no read, rewrite or quarantine reaches the outside file', async () => {
    const { root, outside, team } = await setup();
    const config = path.join(root, 'teams', team, 'config.json');
    await rename(config, `${config}.real`);
    await symlink(path.join(outside, 'config.json'), config);
    const before = await snapshotFolder(outside);
    await expectUnsafe(addMember(root, team, { ...teammate, name: 'second' }), config);
    await expectUnsafe(readTeam(root, team), config);
    await expectUnsafe(deleteTeam(root, team, { force: true }), config);
    const listing = await listTeams(root);
    expect(listing.teams).toEqual([]);
    expect(listing.problems[0]?.reason).toContain(config);
    expect(await snapshotFolder(outside)).toEqual(before);
  });

  it('a linked team folder: nothing is written into it', async () => {
    const { root, outside, team } = await setup();
    const folder = path.join(root, 'teams', team);
    await rename(folder, `${folder}-real`);
    await symlink(path.join(outside, 'team'), folder);
    const before = await snapshotFolder(outside);
    await expectUnsafe(addMember(root, team, { ...teammate, name: 'second' }), folder);
    await expectUnsafe(recordMemberRuntime(root, team, 'worker', {}), folder);
    await expectUnsafe(readMemberRuntime(root, team), folder);
    expect(await snapshotFolder(outside)).toEqual(before);
  });

  it('a linked runtime sidecar (members.json) is refused', async () => {
    const { root, outside, team } = await setup();
    const sidecarFolder = path.join(root, 'teams', team, '.muster');
    await mkdir(sidecarFolder, { recursive: true });
    const sidecar = path.join(sidecarFolder, 'members.json');
    await symlink(path.join(outside, 'members.json'), sidecar);
    const before = await snapshotFolder(outside);
    await expectUnsafe(recordMemberRuntime(root, team, 'worker', {}), sidecar);
    await expectUnsafe(readMemberRuntime(root, team), sidecar);
    expect(await snapshotFolder(outside)).toEqual(before);
  });

  it('a linked tasks folder: createTeam neither lists nor writes into it', async () => {
    const base = await makeTempDirectory('muster-teams-links-');
    const root = path.join(base, 'root');
    const outside = path.join(base, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'keep.txt'), 'outside');
    await mkdir(path.join(root, 'tasks'), { recursive: true });
    const link = path.join(root, 'tasks', 'linked');
    await symlink(outside, link);
    const before = await snapshotFolder(outside);
    await expectUnsafe(createTeam({ root, name: 'linked', cwd: '/repo' }), link);
    expect(await snapshotFolder(outside)).toEqual(before);
  });
});
