// The member monitor with the package's real backends: an in-process member, and process
// members (the member fixture test-fixtures/member.mjs on a real PTY, and in a pane of the it2
// STAND-IN, not iTerm2), connecting back over the lead link (built code: the package's test
// script builds first). A member killed from outside is marked inactive, its tasks released.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { readProcessStat } from '@muster/file-lock';
import { createTaskStore } from '@muster/tasks';
import { addMember, createTeam, readMemberRuntime, readTeam } from '@muster/teams';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import type { Backend, MemberSpec } from './backend-types.js';
import { createInProcessBackend } from './in-process-backend.js';
import { createITermBackend } from './iterm-backend.js';
import { makeStandInLead } from './iterm-test-support.js';
import { createMemberMonitor, type MemberMonitor } from './member-monitor.js';
import { createPtyBackend } from './pty-backend.js';

const packageFolder = path.resolve(import.meta.dirname, '..');
const memberFixture = path.join(packageFolder, 'test-fixtures', 'member.mjs');
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function team(backendType: 'pty' | 'in-process' | 'iterm2', givenRoot?: string) {
  const root = givenRoot ?? (await makeTempDirectory('muster-monitor-real-'));
  const { teamName } = await createTeam({ root, name: 'real-team', cwd: root });
  const member = await addMember(root, teamName, {
    name: 'worker',
    agentType: 'general-purpose',
    model: 'claude-sonnet-4-6',
    prompt: 'work',
    planModeRequired: false,
    cwd: root,
    backendType,
    tmuxPaneId: backendType === 'in-process' ? 'in-process' : '',
  });
  const tasks = createTaskStore({ root, team: teamName });
  const task = await tasks.create({ subject: 'Open work', description: 'x' });
  await tasks.update(task.id, { owner: member.name, status: 'in_progress' });
  const spec: MemberSpec = {
    root,
    teamName,
    agentName: member.name,
    agentId: member.agentId,
    cwd: root,
    readyTimeoutMs: 20_000,
  };
  const monitor: MemberMonitor = createMemberMonitor({ root, teamName });
  cleanups.push(() => monitor.close());
  return { root, teamName, tasks, taskId: task.id, spec, monitor };
}

function use<T extends Backend>(backend: T): T {
  cleanups.push(() => backend.close());
  return backend;
}

function bounded<T>(promise: Promise<T>, what: string, boundMs = 10_000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} not within ${boundMs} ms`)), boundMs),
    ),
  ]);
}

describe('member monitor with the real backends', () => {
  it('a PTY member (the member fixture) SIGKILLed from outside: marked inactive, its task released', async () => {
    const setup = await team('pty');
    const backend = use(createPtyBackend());
    const handle = await backend.spawn({
      ...setup.spec,
      command: { file: process.execPath, args: [memberFixture, 'idle'] },
    });
    await handle.ready;
    const watched = await setup.monitor.watch(handle);
    const pid = handle.describe().pid!;
    const record = (await readMemberRuntime(setup.root, setup.teamName)).worker;
    expect(record).toMatchObject({
      pid,
      backend: 'pty',
      processStartTime: readProcessStat(pid)?.startTime,
    });
    expect(record?.details).toHaveProperty('pgid');

    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    const gone = await bounded(watched.gone, 'the dead PTY member handled');
    console.log(
      `member monitor + pty: dead member marked and its task released ${gone.detectedAt - killedAt} ms (detected) / ${Date.now() - killedAt} ms (done) after SIGKILL`,
    );
    expect(gone.markedInactive).toBe(true);
    expect(gone.unassigned?.unassignedTasks).toEqual([{ id: setup.taskId, subject: 'Open work' }]);
    expect(
      (await readTeam(setup.root, setup.teamName)).members.find(
        (member) => member.name === 'worker',
      )?.isActive,
    ).toBe(false);
    expect((await setup.tasks.get(setup.taskId)).status).toBe('pending');
  });

  it('an in-process member that ends is marked and its task released as a shutdown', async () => {
    const setup = await team('in-process');
    const backend = use(createInProcessBackend());
    let finish!: () => void;
    const handle = await backend.spawn({
      ...setup.spec,
      run: (context) =>
        new Promise<void>((resolve) => {
          context.ready();
          finish = resolve;
        }),
    });
    await handle.ready;
    const watched = await setup.monitor.watch(handle);
    expect((await readMemberRuntime(setup.root, setup.teamName)).worker).toMatchObject({
      backend: 'in-process',
    });
    finish();
    const gone = await bounded(watched.gone, 'the ended in-process member handled');
    expect(gone.exit.reason).toBe('exited');
    expect(gone.unassigned?.notificationMessage).toMatch(
      /^worker has shut down\. 1 task\(s\) were unassigned: #1 "Open work"/,
    );
    expect((await setup.tasks.get(setup.taskId)).owner).toBeUndefined();
  });

  it('an iTerm2 member (it2 STAND-IN) whose pane is closed from outside: recorded with its session id, then released', async () => {
    const standIn = await makeStandInLead();
    cleanups.push(async () => standIn.killAll());
    const setup = await team('iterm2', standIn.root);
    const backend = use(
      createITermBackend({ environment: standIn.environment, pollIntervalMs: 200 }),
    );
    const handle = await backend.spawn({
      ...setup.spec,
      command: { file: process.execPath, args: [memberFixture, 'idle'] },
    });
    await handle.ready;
    const watched = await setup.monitor.watch(handle);
    const paneId = handle.describe().paneId!;
    expect((await readMemberRuntime(setup.root, setup.teamName)).worker).toMatchObject({
      backend: 'iterm2',
      paneId,
      pid: handle.describe().pid,
    });
    execFileSync('it2', ['session', 'close', '-s', paneId], { env: standIn.environment });
    const gone = await bounded(watched.gone, 'the closed iTerm2 member handled');
    expect(gone.exit.reason).toBe('vanished');
    expect(gone.unassigned?.unassignedTasks.map((task) => task.id)).toEqual([setup.taskId]);
  });
});
