import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { MusterError, TeamConfigV2Schema, teamDialect, WIRE_SCHEMAS } from '@muster/protocol';
import { claudeCode2_1_330ReferenceDirectory, makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createTeam, listTeams, readTeam } from './index.js';
import {
  copyReferenceState,
  fixturePath,
  referenceDirectory,
  runAtOnce,
  snapshotTree,
} from './test-helpers.js';

const expectedConfig = `{
  "name": "my-team-",
  "description": "Ship the parser",
  "createdAt": 1795350958601,
  "leadAgentId": "team-lead@my-team-",
  "leadSessionId": "a68f0c01-7469-46a4-a245-0aa0886e83a5",
  "members": [
    {
      "agentId": "team-lead@my-team-",
      "name": "team-lead",
      "agentType": "team-lead",
      "model": "claude-sonnet-4-6",
      "joinedAt": 1795350958601,
      "tmuxPaneId": "",
      "cwd": "/work/repo",
      "subscriptions": []
    }
  ]
}`;

describe('createTeam', () => {
  it('writes a v1 config byte for byte as Claude Code 2.1.45 does, and the tasks folder with its empty .lock', async () => {
    const root = await makeTempDirectory();
    const result = await createTeam({
      root,
      dialect: 'v1',
      name: 'My Team!',
      description: 'Ship the parser',
      leadModel: 'claude-sonnet-4-6',
      leadSessionId: 'a68f0c01-7469-46a4-a245-0aa0886e83a5',
      cwd: '/work/repo',
      now: 1795350958601,
    });
    expect(result.teamName).toBe('my-team-');
    expect(result.leadAgentId).toBe('team-lead@my-team-');
    expect(result.configPath).toBe(path.join(root, 'teams/my-team-/config.json'));
    expect(await readFile(result.configPath, 'utf8')).toBe(expectedConfig);
    expect(JSON.parse(expectedConfig)).toEqual(result.config);
    expect(teamDialect(result.config)).toBe('v1');
    expect(WIRE_SCHEMAS.TeamConfig.safeParse(result.config).success).toBe(true);
    const lockFile = await stat(path.join(root, 'tasks/my-team-/.lock'));
    expect(lockFile.isFile() && lockFile.size === 0).toBe(true);
    // Nothing but the config in the team folder (no temporary files left behind).
    expect(Object.keys(await snapshotTree(path.join(root, 'teams')))).toEqual([
      'my-team-/',
      'my-team-/config.json',
    ]);
  });

  it('uses the same keys in the same order as the 2.1.45 reference config in dialect v1', async () => {
    const root = await makeTempDirectory();
    const reference = JSON.parse(
      await readFile(
        path.join(referenceDirectory, '06-all-teammates-spawned/teams/conf-team/config.json'),
        'utf8',
      ),
    );
    const { config } = await createTeam({
      root,
      dialect: 'v1',
      name: 'conf-team',
      description: 'x',
      leadModel: 'claude-sonnet-4-6',
      cwd: '/repo',
    });
    expect(Object.keys(config)).toEqual(Object.keys(reference));
    expect(Object.keys(config.members[0]!)).toEqual(Object.keys(reference.members[0]));
    expect(config.leadSessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('writes muster’s own teams in dialect v2 by default: protocolVersion 2, the lead as 2.1.330 writes it', async () => {
    const root = await makeTempDirectory();
    const result = await createTeam({
      root,
      name: 'My Team!',
      leadSessionId: 'a68f0c01-7469-46a4-a245-0aa0886e83a5',
      cwd: '/work/repo',
      now: 1795350958601,
    });
    expect(await readFile(result.configPath, 'utf8')).toBe(`{
  "name": "my-team-",
  "createdAt": 1795350958601,
  "leadAgentId": "team-lead@my-team-",
  "leadSessionId": "a68f0c01-7469-46a4-a245-0aa0886e83a5",
  "protocolVersion": 2,
  "members": [
    {
      "agentId": "team-lead@my-team-",
      "name": "team-lead",
      "agentType": "team-lead",
      "joinedAt": 1795350958601,
      "tmuxPaneId": "leader",
      "cwd": "/work/repo",
      "subscriptions": [],
      "backendType": "in-process"
    }
  ]
}`);
    // The lead member has exactly the keys, in the order, of a 2.1.330 session team's lead.
    const reference = JSON.parse(
      await readFile(
        path.join(
          claudeCode2_1_330ReferenceDirectory(),
          'in-process-07-all-teammates-spawned/teams/session-c29861cf/config.json',
        ),
        'utf8',
      ),
    );
    expect(Object.keys(result.config.members[0]!)).toEqual(Object.keys(reference.members[0]));
    expect(teamDialect(result.config)).toBe('v2');
    expect(TeamConfigV2Schema.safeParse(result.config).success).toBe(true);
    await expect(
      createTeam({ root, name: 'x', cwd: '/r', dialect: 'v3' as 'v2' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('gives a taken name the next free suffix and never touches the existing team', async () => {
    const root = await makeTempDirectory();
    await copyReferenceState('06-all-teammates-spawned', root);
    const before = await snapshotTree(root);
    const second = await createTeam({ root, name: 'conf-team', cwd: '/repo' });
    const third = await createTeam({ root, name: 'Conf Team', cwd: '/repo' });
    expect([second.teamName, third.teamName]).toEqual(['conf-team-2', 'conf-team-3']);
    const after = await snapshotTree(root);
    for (const [file, content] of Object.entries(before)) expect(after[file]).toBe(content);
    expect(second.config.description).toBeUndefined();
    expect(await readFile(second.configPath, 'utf8')).not.toContain('description');
  });

  it('throws TEAM_EXISTS for a taken name when asked to, writing nothing', async () => {
    const root = await makeTempDirectory();
    await copyReferenceState('06-all-teammates-spawned', root);
    const before = await snapshotTree(root);
    const error = await createTeam({
      root,
      name: 'Conf Team',
      cwd: '/repo',
      ifTaken: 'fail',
    }).catch((caught) => caught);
    expect(MusterError.hasCode(error, 'TEAM_EXISTS')).toBe(true);
    expect(error.details.team).toBe('conf-team');
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('lets exactly one of several processes creating the same name at once have it', async () => {
    const root = await makeTempDirectory();
    const results = await runAtOnce(
      fixturePath('create-team.mjs'),
      Array.from({ length: 6 }, () => [root, 'race']),
      path.join(root, 'go'),
    );
    const names = results.map((result) => result.stdout.trim()).sort();
    expect(names).toEqual(['race', 'race-2', 'race-3', 'race-4', 'race-5', 'race-6']);
    for (const name of names) {
      const config = await readTeam(root, name);
      expect(config.name).toBe(name);
      expect(config.members.map((member) => member.agentId)).toEqual([`team-lead@${name}`]);
      expect((await stat(path.join(root, 'tasks', name, '.lock'))).size).toBe(0);
    }
  });

  it('refuses a name without letters or digits with INVALID_NAME and writes nothing', async () => {
    const root = await makeTempDirectory();
    for (const name of ['../', '..', '///', '  ']) {
      const error = await createTeam({ root, name, cwd: '/repo' }).catch((caught) => caught);
      expect(MusterError.hasCode(error, 'INVALID_NAME'), name).toBe(true);
    }
    expect(await snapshotTree(root)).toEqual({});
  });

  it('keeps a name like ../evil under the root, sanitized as Claude Code does', async () => {
    const root = await makeTempDirectory();
    const { teamName, configPath } = await createTeam({ root, name: '../evil', cwd: '/repo' });
    expect(teamName).toBe('---evil');
    expect(configPath).toBe(path.join(root, 'teams/---evil/config.json'));
  });
});

describe('readTeam and listTeams', () => {
  it('load both reference states', async () => {
    for (const state of ['06-all-teammates-spawned', '11-all-shutdowns-approved']) {
      const root = await makeTempDirectory();
      await copyReferenceState(state, root);
      const config = await readTeam(root, 'conf-team');
      expect(config.members.map((member) => member.name)).toEqual([
        'team-lead',
        'alpha',
        'beta',
        'gamma',
      ]);
      const listed = await listTeams(root);
      expect(listed.teams.map((team) => team.name)).toEqual(['conf-team']);
      expect(listed.teams[0]!.config).toEqual(config);
      expect(listed.problems).toEqual([]);
    }
  });

  it('lists teams sorted and reports folders without a valid config without touching them', async () => {
    const root = await makeTempDirectory();
    await createTeam({ root, name: 'beta', cwd: '/repo' });
    await createTeam({ root, name: 'alpha', cwd: '/repo' });
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(path.join(root, 'teams/empty'));
    await mkdir(path.join(root, 'teams/broken'));
    await writeFile(path.join(root, 'teams/broken/config.json'), '{"name": "broken"');
    await mkdir(path.join(root, 'teams/.hidden'));
    const before = await snapshotTree(root);
    const listed = await listTeams(root);
    expect(listed.teams.map((team) => team.name)).toEqual(['alpha', 'beta']);
    expect(listed.problems.map((problem) => problem.folder)).toEqual(['broken', 'empty']);
    expect(listed.problems[0]!.reason).toContain('not valid JSON');
    expect(listed.problems[1]!.reason).toContain('no config.json');
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('lists nothing under a root without teams', async () => {
    const root = await makeTempDirectory();
    expect(await listTeams(root)).toEqual({ teams: [], problems: [], beingRemoved: [] });
  });
});
