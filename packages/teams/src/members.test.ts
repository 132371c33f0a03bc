import path from 'node:path';
import { MusterError, TEAMMATE_COLORS, type TeamMember } from '@muster/protocol';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  addMember,
  createTeam,
  nextTeammateColor,
  readTeam,
  removeMember,
  setMemberActive,
  setMemberMode,
  setMemberWorktree,
  uniqueMemberName,
  type AddMemberOptions,
} from './index.js';
import { fixturePath, runAtOnce } from './test-helpers.js';

const teammate = (name: string): AddMemberOptions => ({
  name,
  agentType: 'general-purpose',
  model: 'claude-opus-4-6',
  prompt: `You are ${name}.`,
  planModeRequired: false,
  cwd: '/work/repo',
  backendType: 'in-process',
  tmuxPaneId: 'in-process',
});

const member = (name: string, color?: string): TeamMember => ({
  agentId: `${name}@t`,
  name,
  joinedAt: 1,
  tmuxPaneId: '',
  cwd: '/',
  subscriptions: [],
  ...(color === undefined ? {} : { color }),
});

describe('uniqueMemberName', () => {
  it('keeps a free name and suffixes a taken one case-insensitively from -2', () => {
    const members = [member('team-lead'), member('Worker'), member('worker-2')];
    expect(uniqueMemberName('tester', members)).toBe('tester');
    expect(uniqueMemberName('worker', members)).toBe('worker-3');
    expect(uniqueMemberName('WORKER', members)).toBe('WORKER-3');
    expect(uniqueMemberName('team-lead', members)).toBe('team-lead-2');
  });
});

describe('nextTeammateColor', () => {
  it("hands out colors in Claude Code's order, reuses freed ones, and cycles when all are used", () => {
    expect(nextTeammateColor([member('team-lead')])).toBe('blue');
    expect(nextTeammateColor([member('a', 'blue'), member('b', 'green')])).toBe('yellow');
    expect(nextTeammateColor([member('a', 'blue'), member('c', 'yellow')])).toBe('green');
    const all = TEAMMATE_COLORS.map((color, index) => member(`m${index}`, color));
    expect(nextTeammateColor(all)).toBe('blue');
    expect(nextTeammateColor([...all, member('x', 'blue')])).toBe('green');
  });
});

describe('concurrent joins from many processes', () => {
  it('keeps every member when 16 processes join at once, 3 times each, all names unique', async () => {
    const root = await makeTempDirectory();
    const { teamName } = await createTeam({ root, name: 'crowd', cwd: '/work/repo' });
    const results = await runAtOnce(
      fixturePath('join-team.mjs'),
      Array.from({ length: 16 }, (_, index) => [root, teamName, `worker-${index}`, '3']),
      path.join(root, 'go'),
    );
    const reported = results.flatMap((result) =>
      result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as TeamMember),
    );
    const config = await readTeam(root, teamName);
    expect(config.members).toHaveLength(1 + 48);
    const names = config.members.map((entry) => entry.name);
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(names.length);
    // Each process got its own name, then -2 and -3 for its second and third join.
    for (let index = 0; index < 16; index += 1) {
      for (const suffix of ['', '-2', '-3']) expect(names).toContain(`worker-${index}${suffix}`);
    }
    // What every process was told is exactly what is on disk.
    for (const entry of reported) expect(config.members).toContainEqual(entry);
    // 48 teammates over 8 colors: the palette cycled evenly, 6 of each.
    const colors = config.members.slice(1).map((entry) => entry.color);
    for (const color of TEAMMATE_COLORS) {
      expect(colors.filter((used) => used === color)).toHaveLength(6);
    }
  });

  it('names 16 processes all asking for "x" x, x-2 … x-16', async () => {
    const root = await makeTempDirectory();
    const { teamName } = await createTeam({ root, name: 'same', cwd: '/work/repo' });
    const results = await runAtOnce(
      fixturePath('join-team.mjs'),
      Array.from({ length: 16 }, () => [root, teamName, 'x', '1']),
      path.join(root, 'go'),
    );
    const expected = ['x', ...Array.from({ length: 15 }, (_, index) => `x-${index + 2}`)];
    const reported = results.map((result) => (JSON.parse(result.stdout) as TeamMember).name);
    expect([...reported].sort()).toEqual([...expected].sort());
    const config = await readTeam(root, teamName);
    expect(
      config.members
        .slice(1)
        .map((entry) => entry.name)
        .sort(),
    ).toEqual([...expected].sort());
    expect(
      config.members
        .slice(1)
        .map((entry) => entry.agentId)
        .sort(),
    ).toEqual(expected.map((name) => `${name}@same`).sort());
  });
});

describe('member changes', () => {
  it.each([
    {
      dialect: 'v1' as const,
      order: ['agentId', 'name', 'agentType', 'model', 'prompt', 'color', 'planModeRequired'],
      rest: ['joinedAt', 'tmuxPaneId', 'cwd', 'subscriptions', 'backendType'],
    },
    {
      dialect: 'v2' as const,
      order: ['agentId', 'name', 'color', 'joinedAt', 'tmuxPaneId', 'subscriptions', 'agentType'],
      rest: ['model', 'prompt', 'planModeRequired', 'cwd', 'backendType'],
    },
  ])(
    'adds teammates with unique names, ids, colors, fields in the $dialect order, optional ones last',
    async ({ dialect, order, rest }) => {
      const root = await makeTempDirectory();
      const { teamName } = await createTeam({ root, name: 'crew', cwd: '/repo', dialect });
      const first = await addMember(root, teamName, { ...teammate('Research er/1'), now: 5 });
      const second = await addMember(root, teamName, {
        ...teammate('research-er-1'),
        backendType: 'tmux',
        tmuxPaneId: '%3',
        mode: 'plan',
        worktreePath: '/repo/.worktrees/x',
        now: 6,
      });
      expect([first.name, first.agentId, first.color]).toEqual([
        'Research-er-1',
        'Research-er-1@crew',
        'blue',
      ]);
      expect([second.name, second.color]).toEqual(['research-er-1-2', 'green']);
      expect(Object.keys(second)).toEqual([...order, ...rest, 'mode', 'worktreePath']);
      expect((await readTeam(root, teamName)).members.slice(1)).toEqual([first, second]);
    },
  );

  it('sets mode, active and worktree in place, and writes nothing when nothing changes', async () => {
    const root = await makeTempDirectory();
    const { teamName, configPath } = await createTeam({ root, name: 'crew', cwd: '/repo' });
    await addMember(root, teamName, teammate('alpha'));
    await setMemberMode(root, teamName, 'alpha', 'plan');
    await setMemberActive(root, teamName, 'alpha@crew', false);
    await setMemberWorktree(root, teamName, 'alpha', '/w/alpha');
    await setMemberMode(root, teamName, 'alpha', 'acceptEdits');
    let alpha = (await readTeam(root, teamName)).members[1]!;
    expect(Object.keys(alpha).slice(-3)).toEqual(['mode', 'isActive', 'worktreePath']);
    expect([alpha.mode, alpha.isActive, alpha.worktreePath]).toEqual([
      'acceptEdits',
      false,
      '/w/alpha',
    ]);
    const { stat } = await import('node:fs/promises');
    const before = await stat(configPath);
    await setMemberActive(root, teamName, 'alpha', false);
    expect((await stat(configPath)).ino).toBe(before.ino);
    await setMemberWorktree(root, teamName, 'alpha', undefined);
    alpha = (await readTeam(root, teamName)).members[1]!;
    expect('worktreePath' in alpha).toBe(false);
  });

  it('removes by name or agent id, refuses the lead, and suggests the closest name', async () => {
    const root = await makeTempDirectory();
    const { teamName } = await createTeam({ root, name: 'crew', cwd: '/repo' });
    await addMember(root, teamName, teammate('alpha'));
    await addMember(root, teamName, teammate('gamma'));
    expect((await removeMember(root, teamName, 'alpha@crew')).name).toBe('alpha');
    const missing = await removeMember(root, teamName, 'gamm').catch((error) => error);
    expect(MusterError.hasCode(missing, 'MEMBER_NOT_FOUND')).toBe(true);
    expect(missing.message).toContain('Did you mean "gamma"?');
    expect(missing.details.members).toEqual(['team-lead', 'gamma']);
    const lead = await removeMember(root, teamName, 'team-lead').catch((error) => error);
    expect(MusterError.hasCode(lead, 'INVALID_INPUT')).toBe(true);
    expect((await removeMember(root, teamName, 'gamma')).name).toBe('gamma');
    expect((await readTeam(root, teamName)).members.map((entry) => entry.name)).toEqual([
      'team-lead',
    ]);
  });
});
