import { readFile, rm } from 'node:fs/promises';
import { acquireFileLock } from '@muster/file-lock';
import { makeTempDirectory } from '@muster/test-utils';
import { expect, it } from 'vitest';
import { createTaskStore, TaskError } from './index.js';
import { createTaskContext, withTaskLock } from './task-context.js';
import { readTaskFile, writeTaskFile } from './task-file.js';

it('a claimer whose task lock was taken while it was paused writes nothing over the new claim', async () => {
  const root = await makeTempDirectory('muster-tasks-');
  const store = createTaskStore({ root, team: 'crew' });
  await store.create({ subject: 'Ship it', description: 'ship' });
  const context = createTaskContext({ root, team: 'crew' });

  let writeError: unknown;
  const outcome = await withTaskLock(context, '1', async (file, lock) => {
    const read = await readTaskFile(file, '1');
    if (read === undefined) throw new Error('task 1 is missing');
    // Meanwhile (this holder paused past staleMs) another process removes the lock, takes it
    // and claims the task for beta.
    await rm(`${file}.lock.owner`);
    await rm(`${file}.lock`, { recursive: true });
    const other = await acquireFileLock(file);
    await writeTaskFile(
      file,
      { ...read.task, owner: 'beta', status: 'in_progress' },
      read.text,
      other,
    );
    await other.release();
    // The paused holder wakes up and writes its own, now stale, claim.
    await writeTaskFile(
      file,
      { ...read.task, owner: 'alpha', status: 'in_progress' },
      read.text,
      lock,
    ).catch((caught: unknown) => {
      writeError = caught;
    });
  }).catch((caught: unknown) => caught);

  expect(writeError).toBeInstanceOf(TaskError);
  expect((writeError as TaskError).code).toBe('LOCK_LOST');
  expect((writeError as TaskError).message).toContain('Nothing was written');
  // Releasing the lost lock reports the loss too, instead of removing the other's lock.
  expect((outcome as TaskError).code).toBe('LOCK_LOST');
  const onDisk = JSON.parse(await readFile(`${context.directory}/1.json`, 'utf8')) as {
    owner?: string;
  };
  expect(onDisk.owner).toBe('beta');
  expect((await store.get('1')).owner).toBe('beta');
});
