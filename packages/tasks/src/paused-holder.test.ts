import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { expect, it } from 'vitest';
import { createTaskStore, TaskError } from './index.js';

const fixture = (name: string) =>
  fileURLToPath(new URL(`./test-fixtures/${name}`, import.meta.url));

/** Waits until /proc says the process is stopped (state T). */
async function waitUntilStopped(pid: number): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 20) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`process ${pid} did not stop`);
}

it('a create paused (SIGSTOP) between its last check and its rename loses no acknowledged task', async () => {
  const root = await makeTempDirectory('muster-tasks-paused-');
  // A stale period of 300 ms that the stopped holder cannot refresh.
  const store = createTaskStore({ root, team: 'crew', lock: { staleMs: 300, deadlineMs: 2_000 } });
  const acknowledged = [await store.create({ subject: 'First', description: 'one' })];
  const paused = startNodeProcess(fixture('paused-create.mjs'), [root, 'crew', '300']);
  await paused.waitForLine((line) => line === 'checked');
  await waitUntilStopped(paused.child.pid!);
  let refused: unknown;
  try {
    acknowledged.push(await store.create({ subject: 'Meanwhile', description: 'two' }));
  } catch (error) {
    refused = error;
  } finally {
    paused.child.kill('SIGCONT');
  }
  const pausedResult = await paused.exited;
  expect(pausedResult.code, pausedResult.stderr).toBe(0);
  const pausedId = /written (\d+)/.exec(pausedResult.stdout)?.[1];
  if (refused !== undefined) {
    // Reported as failed: so it must not be on disk; a retry after the holder resumed works.
    expect(refused).toBeInstanceOf(TaskError);
    expect((refused as TaskError).code).toBe('LOCK_TIMEOUT');
    expect((refused as Error).message).toContain('stopped');
    acknowledged.push(await store.create({ subject: 'Meanwhile', description: 'two' }));
  }
  const { tasks } = await store.list();
  // Every acknowledged create is on disk, under its id, with its own content.
  for (const task of acknowledged) {
    expect(tasks.find((entry) => entry.task.id === task.id)?.task.subject).toBe(task.subject);
  }
  expect(tasks.find((entry) => entry.task.id === pausedId)?.task.subject).toBe('Paused create');
  expect(tasks.map((entry) => entry.task.subject).sort()).toEqual(
    ['First', 'Meanwhile', 'Paused create'].sort(),
  );
  expect(refused).toBeDefined();
}, 60_000);
