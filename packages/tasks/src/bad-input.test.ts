import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { acquireFileLock } from '@muster/file-lock';
import { MusterError } from '@muster/protocol';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createTaskStore, TaskError, type TaskErrorCode, type TaskStore } from './index.js';
import { snapshotTree } from './test-support.js';

/** A team with tasks 1 → 2 (1 blocks 2) and 3, plus a claimed task 3. */
async function seededStore() {
  const root = await makeTempDirectory('muster-tasks-bad-');
  const store = createTaskStore({ root, team: 'crew' });
  for (const subject of ['one', 'two', 'three']) await store.create({ subject, description: '' });
  await store.addDependency('1', '2');
  await store.claim('3', 'alpha');
  return { root, store, folder: path.join(root, 'tasks', 'crew') };
}

/** Runs `action`, expects a TaskError with `code`, and checks that nothing on disk changed. */
async function expectRefused(
  root: string,
  code: TaskErrorCode,
  action: () => Promise<unknown>,
): Promise<TaskError> {
  const before = await snapshotTree(root);
  const error = await action().then(
    (value) => {
      throw new Error(`expected ${code}, got ${JSON.stringify(value)}`);
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TaskError);
  expect(MusterError.isInstance(error)).toBe(true);
  expect((error as TaskError).code).toBe(code);
  expect(await snapshotTree(root)).toEqual(before);
  return error as TaskError;
}

describe('bad input gets a typed error and changes nothing on disk', () => {
  it('unknown task', async () => {
    const { root, store } = await seededStore();
    for (const action of [
      () => store.get('42'),
      () => store.update('42', { subject: 'x' }),
      () => store.delete('42'),
      () => store.addDependency('1', '42'),
      () => store.update('1', { addBlocks: ['42'] }),
      () => store.renewLease('42', 'alpha', 1_000),
    ]) {
      const error = await expectRefused(root, 'TASK_NOT_FOUND', action);
      expect(error.message).toContain('#42');
    }
    const before = await snapshotTree(root);
    expect(await store.claim('42', 'alpha')).toEqual({ success: false, reason: 'task_not_found' });
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('self-dependency and cycles', async () => {
    const { root, store } = await seededStore();
    await expectRefused(root, 'SELF_DEPENDENCY', () => store.addDependency('2', '2'));
    await expectRefused(root, 'SELF_DEPENDENCY', () => store.update('2', { addBlockedBy: ['2'] }));
    const cycle = await expectRefused(root, 'DEPENDENCY_CYCLE', () =>
      store.update('2', { subject: 'renamed', addBlocks: ['3', '1'] }),
    );
    expect(cycle.message).toContain('2 → 1 → 2');
  });

  it('a team name or task id that would leave the folder', async () => {
    const { root, store } = await seededStore();
    for (const team of ['../crew', '..', 'crew/../other', 'a\\b']) {
      const error = await expectRefused(root, 'INVALID_INPUT', async () =>
        createTaskStore({ root, team }),
      );
      expect(error.message).toContain(JSON.stringify(team));
    }
    for (const action of [
      (store: TaskStore) => store.get('1/../2'),
      (store: TaskStore) => store.update('1/../2', { subject: 'x' }),
      (store: TaskStore) => store.delete('../1'),
      (store: TaskStore) => store.claim('1/../2', 'alpha'),
      (store: TaskStore) => store.addDependency('1', '2/../3'),
      (store: TaskStore) => store.update('1', { addBlocks: ['../3'] }),
      (store: TaskStore) => store.get('01'),
    ]) {
      await expectRefused(root, 'INVALID_TASK_ID', () => action(store));
    }
  });

  it('invalid tool input', async () => {
    const { root, store } = await seededStore();
    await expectRefused(root, 'INVALID_INPUT', () =>
      store.create({ subject: ' ', description: '' }),
    );
    await expectRefused(root, 'INVALID_INPUT', () =>
      store.create({ subject: 's', description: '', owner: 'x' } as never),
    );
    await expectRefused(root, 'INVALID_INPUT', () =>
      store.update('1', { status: 'done' as never }),
    );
    await expectRefused(root, 'INVALID_INPUT', () => store.claim('1', ''));
    await expectRefused(root, 'INVALID_INPUT', () => store.claim('1', 'beta', { leaseMs: -5 }));
  });

  it('a corrupt task file is reported, never rewritten or moved', async () => {
    const { root, store, folder } = await seededStore();
    await writeFile(path.join(folder, '2.json'), '{"id": "2", "subject": "two", "descr');
    for (const action of [
      () => store.get('2'),
      () => store.update('2', { subject: 'x' }),
      () => store.delete('2'),
      () => store.claim('2', 'beta'),
      () => store.addDependency('2', '3'),
      () => store.renewLease('2', 'beta', 1_000),
    ]) {
      const error = await expectRefused(root, 'CORRUPT_FILE', action);
      expect(error.message).toContain(path.join(folder, '2.json'));
    }
    const before = await snapshotTree(root);
    const listing = await store.list();
    expect(listing.tasks.map((entry) => entry.task.id)).toEqual(['1', '3']);
    expect(listing.problems).toMatchObject([{ taskId: '2', code: 'CORRUPT_FILE' }]);
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('a corrupt .highwatermark stops creation instead of risking a reused id', async () => {
    const { root, store, folder } = await seededStore();
    await writeFile(path.join(folder, '.highwatermark'), 'seven');
    const error = await expectRefused(root, 'CORRUPT_FILE', () =>
      store.create({ subject: 'new', description: '' }),
    );
    expect(error.message).toContain('.highwatermark');
  });

  it('a lock held past the deadline gives LOCK_TIMEOUT and no change', async () => {
    const { root, folder } = await seededStore();
    const impatient = createTaskStore({ root, team: 'crew', lock: { deadlineMs: 150 } });
    const taskLock = await acquireFileLock(path.join(folder, '1.json'));
    try {
      const error = await expectRefused(root, 'LOCK_TIMEOUT', () =>
        impatient.update('1', { subject: 'x' }),
      );
      expect(error.message).toContain('task #1');
    } finally {
      await taskLock.release();
    }
    const teamLock = await acquireFileLock(path.join(folder, '.lock'));
    try {
      await expectRefused(root, 'LOCK_TIMEOUT', () =>
        impatient.create({ subject: 'new', description: '' }),
      );
    } finally {
      await teamLock.release();
    }
  });

  it('a team whose task folder does not exist reads as empty and gets nothing created', async () => {
    const root = await makeTempDirectory('muster-tasks-missing-');
    const store = createTaskStore({ root, team: 'ghost' });
    expect(await store.list()).toEqual({ tasks: [], problems: [] });
    expect(await store.claim('1', 'alpha')).toEqual({ success: false, reason: 'task_not_found' });
    expect(await store.claimNextAvailable('alpha')).toEqual({
      success: false,
      reason: 'no_available_task',
    });
    expect((await store.unassignAgentTasks('alpha', { reason: 'shutdown' })).tasks).toEqual([]);
    for (const action of [
      () => store.get('1'),
      () => store.update('1', { status: 'completed' }),
      () => store.delete('1'),
      () => store.addDependency('1', '2'),
      () => store.renewLease('1', 'alpha', 1_000),
    ]) {
      await expectRefused(root, 'TASK_NOT_FOUND', action);
    }
    expect(await snapshotTree(root)).toEqual({});
  });
});
