import { lstat, mkdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory, snapshotFolder } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  FileLockError,
  acquireFileLock,
  makeDirectoryInsideRoot,
  quarantineFile,
  readFileSnapshot,
  resolveInsideRoot,
  updateFile,
  writeFileAtomic,
} from './index.js';

async function setup() {
  const base = await makeTempDirectory('muster-inside-root-');
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  await mkdir(root);
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.json'), '{"entries":["outside"]}');
  await mkdir(path.join(outside, 'folder'));
  return { root, outside };
}

const appendOptions = (root: string) => ({
  root,
  parse: (text: string) => JSON.parse(text) as { entries: string[] },
  serialize: (value: { entries: string[] }) => JSON.stringify(value),
  update: (current: { entries: string[] } | undefined) => ({
    entries: [...(current?.entries ?? []), 'muster'],
  }),
});

async function expectRefused(promise: Promise<unknown>, link: string): Promise<void> {
  const error = await promise.then(
    () => new Error('expected UNSAFE_PATH'),
    (caught: unknown) => caught,
  );
  expect(FileLockError.hasCode(error, 'UNSAFE_PATH'), String(error)).toBe(true);
  expect((error as Error).message).toContain(link);
}

describe('nothing outside the root is touched through a link', () => {
  it('a linked file: updateFile refuses, naming the link', async () => {
    const { root, outside } = await setup();
    const link = path.join(root, 'inbox.json');
    await symlink(path.join(outside, 'secret.json'), link);
    const before = await snapshotFolder(outside);
    await expectRefused(updateFile(link, appendOptions(root)), link);
    await expectRefused(readFileSnapshot(link, { root }), link);
    await expectRefused(writeFileAtomic(link, 'x', { root }), link);
    expect(await snapshotFolder(outside)).toEqual(before);
  });

  it('a linked corrupt file is neither read nor moved aside', async () => {
    const { root, outside } = await setup();
    await writeFile(path.join(outside, 'secret.json'), 'not json');
    const link = path.join(root, 'config.json');
    await symlink(path.join(outside, 'secret.json'), link);
    const before = await snapshotFolder(outside);
    await expectRefused(updateFile(link, appendOptions(root)), link);
    await expectRefused(quarantineFile(link, 'test', { root }), link);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await snapshotFolder(outside)).toEqual(before);
  });

  it('a linked folder on the way: refused for updates, writes, reads and folder creation', async () => {
    const { root, outside } = await setup();
    const link = path.join(root, 'teams');
    await symlink(path.join(outside, 'folder'), link);
    const before = await snapshotFolder(outside);
    const file = path.join(link, 'crew', 'config.json');
    await expectRefused(updateFile(file, appendOptions(root)), link);
    await expectRefused(writeFileAtomic(path.join(link, 'x.json'), 'x', { root }), link);
    await expectRefused(readFileSnapshot(path.join(link, 'x.json'), { root }), link);
    await expectRefused(acquireFileLock(path.join(link, 'x.json'), { root }), link);
    expect(() => makeDirectoryInsideRoot(root, path.join(link, 'crew'))).toThrow(link);
    expect(await snapshotFolder(outside)).toEqual(before);
  });

  it('a linked lock folder and a linked owner record are refused, never followed', async () => {
    const { root, outside } = await setup();
    const file = path.join(root, 'config.json');
    await writeFile(file, '{"entries":[]}');
    const lockLink = `${file}.lock`;
    await symlink(path.join(outside, 'folder'), lockLink);
    const before = await snapshotFolder(outside);
    await expectRefused(updateFile(file, { ...appendOptions(root), deadlineMs: 500 }), lockLink);
    await expectRefused(acquireFileLock(file, { deadlineMs: 200 }), lockLink);
    expect(await snapshotFolder(outside)).toEqual(before);

    const other = path.join(root, 'other.json');
    const ownerLink = `${other}.lock.owner`;
    await symlink(path.join(outside, 'secret.json'), ownerLink);
    await expectRefused(acquireFileLock(other, { root }), ownerLink);
    expect(await snapshotFolder(outside)).toEqual(before);
    expect(await readFile(path.join(outside, 'secret.json'), 'utf8')).toBe(
      '{"entries":["outside"]}',
    );
  });

  it('a path that leaves the root is refused; links in the root’s own path are fine', async () => {
    const { root, outside } = await setup();
    await expectRefused(
      updateFile(path.join(root, '..', 'outside', 'secret.json'), appendOptions(root)),
      path.join(outside, 'secret.json'),
    );
    const linkedRoot = `${root}-link`;
    await symlink(root, linkedRoot);
    const file = path.join(linkedRoot, 'teams', 'crew', 'config.json');
    const result = await updateFile(file, appendOptions(linkedRoot));
    expect(result.written).toBe(true);
    expect(await readFile(path.join(root, 'teams', 'crew', 'config.json'), 'utf8')).toBe(
      '{"entries":["muster"]}',
    );
    expect(resolveInsideRoot(linkedRoot, file)).toBe(
      path.join(await realpath(root), 'teams', 'crew', 'config.json'),
    );
  });
});
