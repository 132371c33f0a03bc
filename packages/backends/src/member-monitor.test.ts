import { createTaskStore } from '@muster/tasks';
import { addMember, createTeam, readMemberRuntime, readTeam } from '@muster/teams';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import type { MemberHandle, MemberSpec } from './backend-types.js';
import { createMemberMonitor, type MemberGone, type MemberMonitor } from './member-monitor.js';
import {
  startTestInProcessMember,
  startTestProcessMember,
} from './member-monitor-test-backends.js';

const started: MemberHandle[] = [];
const monitors: MemberMonitor[] = [];

afterEach(async () => {
  await Promise.allSettled(monitors.splice(0).map((monitor) => monitor.close()));
  await Promise.allSettled(started.splice(0).map((handle) => handle.kill({ graceful: false })));
});

async function teamWithMember(name: string, backendType: 'pty' | 'in-process') {
  const root = await makeTempDirectory('muster-monitor-');
  const { teamName } = await createTeam({ root, name: 'monitor-team', cwd: root });
  const member = await addMember(root, teamName, {
    name,
    agentType: 'general-purpose',
    model: 'claude-sonnet-4-6',
    prompt: 'work',
    planModeRequired: false,
    cwd: root,
    backendType,
    tmuxPaneId: backendType === 'in-process' ? 'in-process' : '%1',
  });
  const tasks = createTaskStore({ root, team: teamName });
  const owned = await tasks.create({ subject: 'Owned open task', description: 'a' });
  await tasks.update(owned.id, { owner: member.name, status: 'in_progress' });
  const done = await tasks.create({ subject: 'Owned finished task', description: 'b' });
  await tasks.update(done.id, { owner: member.name, status: 'completed' });
  const other = await tasks.create({ subject: 'Someone else', description: 'c' });
  await tasks.update(other.id, { owner: 'other', status: 'in_progress' });
  const spec: MemberSpec = {
    root,
    teamName,
    agentName: member.name,
    agentId: member.agentId,
    cwd: root,
  };
  return {
    root,
    teamName,
    member,
    tasks,
    spec,
    ids: { owned: owned.id, done: done.id, other: other.id },
  };
}

function pause(milliseconds: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), milliseconds));
}

async function within<T>(what: string, boundMs: number, probe: () => Promise<T | undefined>) {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('createMemberMonitor', () => {
  it('records a process member, heartbeats it, and when it is killed from outside marks it and releases its open tasks', async () => {
    const team = await teamWithMember('worker', 'pty');
    const handle = startTestProcessMember(team.spec);
    started.push(handle);
    const gone: MemberGone[] = [];
    const monitor = createMemberMonitor({
      root: team.root,
      teamName: team.teamName,
      intervalMs: 100,
      heartbeatIntervalMs: 100,
      onMemberGone: (event) => gone.push(event),
    });
    monitors.push(monitor);
    const watched = await monitor.watch(handle);

    const record = (await readMemberRuntime(team.root, team.teamName))[team.member.name];
    expect(record).toMatchObject({
      agentId: team.member.agentId,
      pid: handle.pid,
      backend: 'pty',
      details: { pgid: handle.pid, socket: '/tmp/test-socket' },
    });
    expect(record?.processStartTime).toMatch(/^\d+$/);
    const firstBeat = record!.heartbeatAt!;
    await within('a heartbeat', 10_000, async () => {
      const beat = (await readMemberRuntime(team.root, team.teamName))[team.member.name]
        ?.heartbeatAt;
      return beat !== undefined && beat > firstBeat ? beat : undefined;
    });

    const killedAt = Date.now();
    process.kill(-handle.pid, 'SIGKILL');
    const event = await within('the member marked gone', 10_000, async () =>
      Promise.race([watched.gone, pause(100)]),
    );
    console.log(
      `member monitor: dead process member handled ${Date.now() - killedAt} ms after SIGKILL`,
    );
    expect(event.detectedBy).toBe('exited');
    expect(event.exit).toMatchObject({ reason: 'crashed', signal: 'SIGKILL' });
    expect(event.markedInactive).toBe(true);
    expect(event.unassigned?.unassignedTasks).toEqual([
      { id: team.ids.owned, subject: 'Owned open task' },
    ]);
    expect(event.unassigned?.notificationMessage).toMatch(
      /^worker was terminated\. 1 task\(s\) were unassigned: #1 "Owned open task"/,
    );
    expect(gone).toEqual([event]);

    const config = await readTeam(team.root, team.teamName);
    expect(config.members.find((member) => member.name === 'worker')?.isActive).toBe(false);
    const owned = await team.tasks.get(team.ids.owned);
    expect(owned.owner).toBeUndefined();
    expect(owned.status).toBe('pending');
    expect((await team.tasks.get(team.ids.done)).owner).toBe('worker');
    expect((await team.tasks.get(team.ids.other)).owner).toBe('other');
    expect(monitor.watching()).toEqual([]);
  });

  it('notices a member whose isAlive() turns false without an exit (a pane killed from outside) as vanished', async () => {
    const team = await teamWithMember('ghost', 'pty');
    const handle = startTestProcessMember(team.spec, { reportExit: false });
    started.push(handle);
    // Default interval (500 ms): the figure printed is what a lead gets out of the box.
    const monitor = createMemberMonitor({ root: team.root, teamName: team.teamName });
    monitors.push(monitor);
    const watched = await monitor.watch(handle);
    const killedAt = Date.now();
    process.kill(-handle.pid, 'SIGKILL');
    const event = await within('the vanished member handled', 10_000, async () =>
      Promise.race([watched.gone, pause(100)]),
    );
    console.log(
      `member monitor: vanished member handled ${Date.now() - killedAt} ms after SIGKILL (default 500 ms poll)`,
    );
    expect(event.detectedBy).toBe('is-alive');
    expect(event.exit.reason).toBe('vanished');
    expect(event.exit.message).toContain('ghost@monitor-team is no longer running');
    expect(event.unassigned?.unassignedTasks.map((task) => task.id)).toEqual([team.ids.owned]);
  });

  it('an in-process member whose run settles is marked and its tasks released as a shutdown', async () => {
    const team = await teamWithMember('thinker', 'in-process');
    let finish!: () => void;
    const handle = startTestInProcessMember({
      ...team.spec,
      run: () => new Promise<void>((resolve) => (finish = resolve)),
    });
    started.push(handle);
    const monitor = createMemberMonitor({ root: team.root, teamName: team.teamName });
    monitors.push(monitor);
    const watched = await monitor.watch(handle);
    const record = (await readMemberRuntime(team.root, team.teamName))[team.member.name];
    expect(record).toMatchObject({ backend: 'in-process', details: {} });
    expect(record?.pid).toBeUndefined();
    finish();
    const event = await watched.gone;
    expect(event.exit.reason).toBe('exited');
    expect(event.unassigned?.notificationMessage).toMatch(/^thinker has shut down\. 1 task\(s\)/);
    expect((await team.tasks.get(team.ids.owned)).status).toBe('pending');
  });

  it('watching twice returns one watch; unwatch and close stop it without marking anything', async () => {
    const team = await teamWithMember('idle', 'in-process');
    const handle = startTestInProcessMember(team.spec);
    started.push(handle);
    const monitor = createMemberMonitor({
      root: team.root,
      teamName: team.teamName,
      intervalMs: 50,
    });
    monitors.push(monitor);
    const first = await monitor.watch(handle);
    const second = await monitor.watch(handle);
    expect(second.gone).toBe(first.gone);
    expect(monitor.watching()).toEqual([team.member.agentId]);
    monitor.unwatch(team.member.agentId);
    await handle.kill();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await team.tasks.get(team.ids.owned)).owner).toBe('idle');
    await monitor.close();
    await expect(monitor.watch(handle)).rejects.toThrow(
      /member monitor of team "monitor-team" is closed/,
    );
  });

  it('refuses bad options and handles with what to pass', async () => {
    expect(() => createMemberMonitor({ root: '', teamName: 't' })).toThrow(/root must be/);
    expect(() => createMemberMonitor({ root: '/r', teamName: 't', intervalMs: 0 })).toThrow(
      /intervalMs must be a positive number/,
    );
    const monitor = createMemberMonitor({ root: '/r', teamName: 't' });
    monitors.push(monitor);
    await expect(monitor.watch({} as MemberHandle)).rejects.toThrow(/needs a MemberHandle/);
  });
});
