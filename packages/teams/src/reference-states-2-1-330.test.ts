// Claude Code 2.1.330's own session-team files: muster reads and lists them, judges their
// sessions honestly, keeps their task lists after the session ends, and changes them in the
// shape 2.1.330 itself writes.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  addMember,
  currentPidSpace,
  isPaneStarting,
  listTaskLists,
  listTeams,
  readTeam,
  removeMember,
  setMemberActive,
  teamSessionState,
} from './index.js';
import { copyReferenceState, referenceDirectory2_1_330 } from './test-helpers.js';

const states = [
  { state: 'in-process-07-all-teammates-spawned', team: 'session-c29861cf', members: 4 },
  {
    state: 'in-process-13-all-teammates-removed-after-shutdown',
    team: 'session-c29861cf',
    members: 1,
  },
  { state: 'tmux-08-permission-answered', team: 'session-7f85384e', members: 3 },
];

async function setUp(state: string, team: string) {
  const root = await makeTempDirectory();
  await copyReferenceState(state, root, referenceDirectory2_1_330);
  const configPath = path.join(root, 'teams', team, 'config.json');
  const original = await readFile(configPath, 'utf8');
  return { root, configPath, original, read: () => readFile(configPath, 'utf8') };
}

describe.each(states)('Claude Code 2.1.330 state $state', ({ state, team, members }) => {
  it('is listed and read as the file’s own JSON, with no problems', async () => {
    const { root, configPath, original } = await setUp(state, team);
    const listing = await listTeams(root);
    expect(listing.problems).toEqual([]);
    expect(listing.beingRemoved).toEqual([]);
    expect(listing.teams.map((entry) => entry.name)).toEqual([team]);
    expect(listing.teams[0]!.configPath).toBe(configPath);
    expect(listing.teams[0]!.config).toEqual(JSON.parse(original));
    const config = await readTeam(root, team);
    expect(config).toEqual(JSON.parse(original));
    expect(config.members).toHaveLength(members);
  });

  it('has a session state that is honest about a lead process that is not running here', async () => {
    const { root } = await setUp(state, team);
    const config = await readTeam(root, team);
    const recorded = config.leadProcess as { pid: number; pidSpace: string };
    const judged = teamSessionState(config);
    // The recorded pids belong to a run on another boot: where the pid namespace reads the
    // same, the state must be proven ended; anywhere else it cannot be judged.
    if (recorded.pidSpace === currentPidSpace()) {
      expect(judged.state).toBe('ended');
    } else {
      expect(judged.state).toBe('unknown');
      expect(judged.reason).toContain(recorded.pidSpace);
    }
    expect(judged.pid).toBe(recorded.pid);
  });

  it('keeps the task list after the session ends, as kept-from-ended-session (never an orphan)', async () => {
    const { root } = await setUp(state, team);
    expect(await listTaskLists(root)).toEqual([
      expect.objectContaining({ team, status: 'team', taskCount: 3 }),
    ]);
    // /exit as 2.1.330 does it: rename the team folder aside, then remove it.
    const aside = path.join(root, 'teams', `${team}.deleted-8c1f0e0a-4b6e-4d55-9a8e-0f5b2f3c9d11`);
    await rename(path.join(root, 'teams', team), aside);
    const during = await listTeams(root);
    expect(during).toEqual({ teams: [], problems: [], beingRemoved: [path.basename(aside)] });
    await rm(aside, { recursive: true });
    const [kept] = await listTaskLists(root);
    expect(kept).toEqual({
      team,
      tasksDirectory: path.join(root, 'tasks', team),
      status: 'kept-from-ended-session',
      taskCount: 3,
      reason: expect.stringContaining('ended Claude Code session'),
    });
    expect(await listTeams(root)).toEqual({ teams: [], problems: [], beingRemoved: [] });
  });
});

describe('changing 2.1.330 session teams', () => {
  it('removing the three teammates gives exactly the config 2.1.330 wrote after their shutdown', async () => {
    const { root, read } = await setUp('in-process-07-all-teammates-spawned', 'session-c29861cf');
    for (const name of ['gamma', 'alpha', 'beta']) {
      await removeMember(root, 'session-c29861cf', name);
    }
    const after = await readFile(
      path.join(
        referenceDirectory2_1_330,
        'in-process-13-all-teammates-removed-after-shutdown/teams/session-c29861cf/config.json',
      ),
      'utf8',
    );
    expect(await read()).toBe(after);
  });

  it('flips a pane teammate’s isActive in place and changes nothing else', async () => {
    const { root, original, read } = await setUp('tmux-08-permission-answered', 'session-7f85384e');
    await setMemberActive(root, 'session-7f85384e', 'gamma', false);
    const gammaActive = original.indexOf('"isActive": true');
    expect(gammaActive).toBeGreaterThan(original.indexOf('"name": "gamma"'));
    const expected =
      original.slice(0, gammaActive) +
      '"isActive": false' +
      original.slice(gammaActive + '"isActive": true'.length);
    expect(await read()).toBe(expected);
  });

  it('adds a teammate with the fields in 2.1.330’s order', async () => {
    const { root, original, read } = await setUp('tmux-08-permission-answered', 'session-7f85384e');
    const added = await addMember(root, 'session-7f85384e', {
      name: 'beta',
      agentType: 'general-purpose',
      model: 'claude-opus-5-5',
      prompt: 'You are beta.',
      planModeRequired: false,
      cwd: '/tmp/cc330-run.q04T33/repo',
      backendType: 'tmux',
      tmuxPaneId: '%3',
      now: 1795479483000,
    });
    const gamma = JSON.parse(original).members[1];
    const { isActive: _isActive, ...gammaWithoutActive } = gamma;
    expect(Object.keys(added)).toEqual(Object.keys(gammaWithoutActive));
    expect(added.color).toBe('yellow');
    const ending = '\n  ]\n}';
    const block = JSON.stringify({ members: [added] }, null, 2)
      .split('\n')
      .slice(2, -2)
      .join('\n');
    expect(await read()).toBe(`${original.slice(0, -ending.length)},\n${block}${ending}`);
  });

  it('tells a pane teammate whose pane id is not written yet from the lead and the rest', async () => {
    const { root, configPath, original } = await setUp(
      'tmux-08-permission-answered',
      'session-7f85384e',
    );
    const starting = JSON.parse(original);
    starting.members[2].tmuxPaneId = '';
    delete starting.members[2].backendType;
    delete starting.members[2].isActive;
    await writeFile(configPath, JSON.stringify(starting, null, 2));
    const config = await readTeam(root, 'session-7f85384e');
    expect(config.members.map((member) => isPaneStarting(config, member))).toEqual([
      false,
      false,
      true,
    ]);
    const inProcess = await readTeam(
      (await setUp('in-process-07-all-teammates-spawned', 'session-c29861cf')).root,
      'session-c29861cf',
    );
    expect(inProcess.members.some((member) => isPaneStarting(inProcess, member))).toBe(false);
    const pty = { ...config.members[2]!, backendType: 'pty' as const };
    expect(isPaneStarting(config, pty)).toBe(false);
  });
});
