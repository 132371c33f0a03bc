// muster and Claude Code 2.1.330 exclude each other on task lists: a task update or claim
// takes `tasks/<team>/<id>.json.lock`, a create or delete `tasks/<team>/.lock.lock`, on both
// sides, each only around its own read-modify-write. Real child processes hold the lock
// directories (as bare mkdir locks, like 2.1.330) or race muster with 2.1.330's retries.
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  claudeCode2_1_330ReferenceDirectory,
  makeTempDirectory,
  startNodeProcess,
} from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createTaskStore, type TaskStore } from './index.js';
import { copyReferenceState } from './test-support.js';

const fixture = (name: string) =>
  fileURLToPath(new URL(`./test-fixtures/${name}`, import.meta.url));
const team = 'session-c29861cf';

async function sessionTaskList() {
  const root = await makeTempDirectory('muster-tasks-locks-');
  await copyReferenceState(
    'in-process-13-all-teammates-removed-after-shutdown',
    root,
    claudeCode2_1_330ReferenceDirectory(),
  );
  const folder = path.join(root, 'tasks', team);
  return { root, folder, store: createTaskStore({ root, team }) };
}

interface HeldCase {
  name: string;
  lock: string;
  run: (store: TaskStore) => Promise<unknown>;
  /** What the folder looks like: must not change while the lock is held, must change after. */
  observe: (folder: string) => Promise<string>;
}

const taskText = (id: string) => (folder: string) =>
  readFile(path.join(folder, `${id}.json`), 'utf8').catch(() => '(missing)');
const taskNames = async (folder: string) =>
  (await readdir(folder))
    .filter((name) => name.endsWith('.json'))
    .sort()
    .join(',');

const heldCases: HeldCase[] = [
  {
    name: 'an update waits for 3.json.lock',
    lock: '3.json.lock',
    run: (store) => store.update('3', { status: 'in_progress' }),
    observe: taskText('3'),
  },
  {
    name: 'a claim waits for 3.json.lock',
    lock: '3.json.lock',
    run: (store) => store.claim('3', 'gamma'),
    observe: taskText('3'),
  },
  {
    name: 'a create waits for .lock.lock',
    lock: '.lock.lock',
    run: (store) => store.create({ subject: 'New', description: 'while locked' }),
    observe: taskNames,
  },
  {
    name: 'a delete waits for .lock.lock',
    lock: '.lock.lock',
    run: (store) => store.delete('3'),
    observe: taskNames,
  },
];

describe('a lock directory held by another process (as 2.1.330 holds it)', () => {
  it.each(heldCases)('$name, and changes the files only after', async ({ lock, run, observe }) => {
    const { folder, store } = await sessionTaskList();
    const signals = await makeTempDirectory('muster-tasks-signals-');
    const release = path.join(signals, 'release');
    const holder = startNodeProcess(fixture('hold-lock-directory.mjs'), [
      path.join(folder, lock),
      release,
      path.join(signals, 'releasing'),
    ]);
    await holder.waitForLine((line) => line === 'held');
    const before = await observe(folder);
    let settled = false;
    const operation = run(store).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    expect(await observe(folder)).toBe(before);
    await writeFile(release, '');
    await operation;
    expect((await holder.exited).code).toBe(0);
    expect(await observe(folder)).not.toBe(before);
    // Held only for the read-modify-write: nothing of muster's is left locked.
    const lockDirectories = (await readdir(folder)).filter(
      (name) => name.endsWith('.json.lock') || name === '.lock.lock',
    );
    expect(lockDirectories).toEqual([]);
  });
});

describe('a 2.1.330-style writer racing muster', () => {
  it('task updates: the writer finds 1.json.lock taken by muster, waits, and no change is lost', async () => {
    const { folder, store } = await sessionTaskList();
    const writer = startNodeProcess(fixture('claude-code-task-writer.mjs'), [
      'update',
      path.join(folder, '1.json'),
      '20',
    ]);
    let running = true;
    void writer.exited.then(() => (running = false));
    let musterWrites = 0;
    while (running) {
      await store.update('1', { subject: `muster ${musterWrites}` });
      musterWrites += 1;
      // An uncontended update may finish without a macrotask: let the child's exit through.
      await new Promise((resolve) => setImmediate(resolve));
    }
    const result = await writer.exited;
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { done: number; sawHeld: number };
    expect(report.sawHeld).toBeGreaterThan(0);
    const task = JSON.parse(await readFile(path.join(folder, '1.json'), 'utf8'));
    // Every change of each side is there: none overwrote the other's.
    expect(task.metadata.log).toEqual(
      Array.from({ length: report.done }, (_, index) => `cc-${index}`),
    );
    expect(task.subject).toBe(`muster ${musterWrites - 1}`);
    expect(task.owner).toBe('alpha');
  });

  it('task creates: the writer finds .lock.lock taken by muster, waits, and no id is handed out twice', async () => {
    const { folder, store } = await sessionTaskList();
    const writer = startNodeProcess(fixture('claude-code-task-writer.mjs'), [
      'create',
      folder,
      '15',
    ]);
    let running = true;
    void writer.exited.then(() => (running = false));
    const musterIds: string[] = [];
    while (running) {
      const task = await store.create({ subject: `muster ${musterIds.length}`, description: '' });
      musterIds.push(task.id);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const result = await writer.exited;
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { sawHeld: number; ids: string[] };
    expect(report.sawHeld).toBeGreaterThan(0);
    const allIds = [...musterIds, ...report.ids];
    expect(new Set(allIds).size).toBe(allIds.length);
    // Every created task is on disk with its creator's subject: nothing was overwritten.
    const { tasks, problems } = await store.list();
    expect(problems).toEqual([]);
    const subjects = new Map(tasks.map((entry) => [entry.task.id, entry.task.subject]));
    musterIds.forEach((id, index) => expect(subjects.get(id)).toBe(`muster ${index}`));
    report.ids.forEach((id, index) => expect(subjects.get(id)).toBe(`cc-${index}`));
    expect(tasks).toHaveLength(3 + allIds.length);
    expect(existsSync(path.join(folder, '.lock.lock'))).toBe(false);
  });
});
