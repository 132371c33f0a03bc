import { mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory, snapshotFolder } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createTaskStore, TaskError } from './index.js';

async function setup() {
  const base = await makeTempDirectory('muster-tasks-links-');
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  await mkdir(outside);
  const store = createTaskStore({ root, team: 'crew' });
  await store.create({ subject: 'One', description: 'first' });
  const taskText = await readFile(path.join(root, 'tasks', 'crew', '1.json'), 'utf8');
  await writeFile(path.join(outside, '1.json'), taskText);
  await writeFile(path.join(outside, 'task-leases.json'), '{"leases":{}}');
  return { root, outside, store };
}

async function expectUnsafe(promise: Promise<unknown>, link: string): Promise<void> {
  const error = await promise.then(
    () => new Error('expected UNSAFE_PATH'),
    (caught: unknown) => caught,
  );
  expect(error, String(error)).toBeInstanceOf(TaskError);
  expect((error as TaskError).code).toBe('UNSAFE_PATH');
  expect((error as Error).message).toContain(link);
}

describe('a symbolic link below the root is never followed', () => {
  it('a linked task file is neither read nor rewritten', async () => {
    const { root, outside, store } = await setup();
    const file = path.join(root, 'tasks', 'crew', '1.json');
    await rename(file, path.join(root, 'tasks', 'crew', 'moved'));
    await symlink(path.join(outside, '1.json'), file);
    const before = await snapshotFolder(outside);
    await expectUnsafe(store.get('1'), file);
    await expectUnsafe(store.update('1', { subject: 'Hijacked' }), file);
    await expectUnsafe(store.claim('1', 'alpha'), file);
    expect(await snapshotFolder(outside)).toEqual(before);
  });

  it('a linked tasks folder: no create, listing or delete goes through it', async () => {
    const { root, outside, store } = await setup();
    const folder = path.join(root, 'tasks', 'crew');
    await rename(folder, `${folder}-real`);
    await symlink(outside, folder);
    const before = await snapshotFolder(outside);
    await expectUnsafe(store.create({ subject: 'Two', description: 'second' }), folder);
    await expectUnsafe(store.list(), folder);
    await expectUnsafe(store.delete('1'), folder);
    await expectUnsafe(createTaskStore({ root, team: 'crew' }).get('1'), folder);
    expect(await snapshotFolder(outside)).toEqual(before);
  });

  it('a linked sidecar folder: a lease is not written through it', async () => {
    const { root, outside, store } = await setup();
    const sidecar = path.join(root, 'teams', 'crew', '.muster');
    await mkdir(path.dirname(sidecar), { recursive: true });
    await symlink(outside, sidecar);
    const before = await snapshotFolder(outside);
    await expectUnsafe(store.claim('1', 'alpha', { leaseMs: 60_000 }), sidecar);
    expect(await snapshotFolder(outside)).toEqual(before);
    const onDisk = JSON.parse(await readFile(path.join(root, 'tasks', 'crew', '1.json'), 'utf8'));
    expect(onDisk.owner).toBeUndefined();
  });
});
