import { access, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTaskStore, removeTaskDependencies, TaskError } from './index.js';

const worker = fileURLToPath(
  new URL('./test-fixtures/remove-dependency-worker.mjs', import.meta.url),
);

beforeAll(async () => {
  await access(new URL('../dist/index.js', import.meta.url)).catch(() => {
    throw new Error(
      'packages/tasks/dist is missing: run `pnpm --filter @muster/tasks build` first.',
    );
  });
});

async function openTeam() {
  const root = await makeTempDirectory('muster-tasks-unblock-');
  const store = createTaskStore({ root, team: 'crew' });
  const taskText = (id: string) => readFile(path.join(root, 'tasks', 'crew', `${id}.json`), 'utf8');
  return { root, store, taskText };
}

describe('removeTaskDependencies', () => {
  it('removes the dependency from both task files and keeps everything else', async () => {
    const { root, store, taskText } = await openTeam();
    for (const subject of ['One', 'Two', 'Three']) {
      await store.create({ subject, description: '', metadata: { keep: subject } });
    }
    await store.addDependency('1', '3');
    await store.addDependency('2', '3');
    const [result] = await removeTaskDependencies({ root, team: 'crew' }, [
      { blockerId: '1', blockedId: '3' },
    ]);
    expect(result).toEqual({
      blockerId: '1',
      blockedId: '3',
      removedFromBlocks: true,
      removedFromBlockedBy: true,
      changed: true,
      blockerExists: true,
    });
    expect(await store.get('1')).toMatchObject({ blocks: [], metadata: { keep: 'One' } });
    expect(await store.get('3')).toMatchObject({ blockedBy: ['2'], metadata: { keep: 'Three' } });
    // Claude Code's format is kept: two-space JSON without a trailing newline.
    expect((await taskText('3')).endsWith('}')).toBe(true);
    const listed = (await store.list()).tasks.find((entry) => entry.task.id === '3');
    expect(listed?.openBlockers).toEqual(['2']);
  });

  it('reports a dependency that is not recorded without writing, and cleans one-sided ones', async () => {
    const { root, store, taskText } = await openTeam();
    await store.create({ subject: 'One', description: '' });
    await store.create({ subject: 'Two', description: '' });
    const before = await taskText('2');
    const [notThere] = await removeTaskDependencies({ root, team: 'crew' }, [
      { blockerId: '1', blockedId: '2' },
    ]);
    expect(notThere).toMatchObject({ changed: false });
    expect(await taskText('2')).toBe(before);

    // Only the blocked side records it (the blocker's file was edited by hand).
    await store.addDependency('1', '2');
    const blocker = JSON.parse(await taskText('1')) as { blocks: string[] };
    blocker.blocks = [];
    await writeFile(path.join(root, 'tasks', 'crew', '1.json'), JSON.stringify(blocker, null, 2));
    const [cleaned] = await removeTaskDependencies({ root, team: 'crew' }, [
      { blockerId: '1', blockedId: '2' },
    ]);
    expect(cleaned).toMatchObject({
      changed: true,
      removedFromBlocks: false,
      removedFromBlockedBy: true,
    });
    expect((await store.get('2')).blockedBy).toEqual([]);
  });

  it('removes a stale blocker id whose task file is gone; refuses a missing blocked task', async () => {
    const { root, store } = await openTeam();
    await store.create({ subject: 'One', description: '' });
    await store.create({ subject: 'Two', description: '' });
    await store.addDependency('1', '2');
    await rm(path.join(root, 'tasks', 'crew', '1.json'));
    const [result] = await removeTaskDependencies({ root, team: 'crew' }, [
      { blockerId: '1', blockedId: '2' },
    ]);
    expect(result).toMatchObject({ changed: true, blockerExists: false });
    expect((await store.get('2')).blockedBy).toEqual([]);

    const error = await removeTaskDependencies({ root, team: 'crew' }, [
      { blockerId: '2', blockedId: '9' },
    ]).catch((caught: unknown) => caught);
    expect(TaskError.hasCode(error, 'TASK_NOT_FOUND')).toBe(true);
    const invalid = await removeTaskDependencies({ root, team: 'crew' }, [
      { blockerId: '../x', blockedId: '2' },
    ]).catch((caught: unknown) => caught);
    expect(TaskError.hasCode(invalid, 'INVALID_TASK_ID')).toBe(true);
  });

  it('8 processes each removing one dependency of the same blocker at once lose none', async () => {
    const { root, store } = await openTeam();
    await store.create({ subject: 'Blocker', description: '' });
    const blocked: string[] = [];
    for (let index = 0; index < 8; index += 1) {
      const task = await store.create({ subject: `Blocked ${index}`, description: '' });
      await store.addDependency('1', task.id);
      blocked.push(task.id);
    }
    const runs = blocked.map((id) => startNodeProcess(worker, [root, 'crew', '1', id]).exited);
    const results = await Promise.all(runs);
    for (const run of results) {
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toMatchObject({ changed: true, removedFromBlocks: true });
    }
    expect((await store.get('1')).blocks).toEqual([]);
    for (const id of blocked) expect((await store.get(id)).blockedBy).toEqual([]);
  }, 120_000);
});
