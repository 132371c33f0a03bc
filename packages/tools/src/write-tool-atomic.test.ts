import { lstat, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProjectTree } from './test-support.js';
import { readExistingFile, writeFileAtomically } from './write-tool-atomic.js';

/** A link swapped in after the path was checked (the race the file tools guard against). */
async function setUp() {
  const { project, outside } = await makeProjectTree('muster-atomic-');
  await writeFile(path.join(outside, 'target.txt'), 'outside\n');
  await symlink(path.join(outside, 'target.txt'), path.join(project, 'swapped.txt'));
  return { project, outside };
}

describe('writeFileAtomically and readExistingFile', () => {
  it('never reads through a link that appeared after the check', async () => {
    const { project } = await setUp();
    const file = path.join(project, 'swapped.txt');
    await expect(
      readExistingFile(file, 'swapped.txt', { maxBytes: 1024, toolName: 'Write' }),
    ).rejects.toMatchObject({
      code: 'SYMLINK_ESCAPES',
    });
    expect(
      await readExistingFile(path.join(project, 'absent.txt'), 'absent.txt', {
        maxBytes: 1,
        toolName: 'Write',
      }),
    ).toBe(undefined);
  });

  it('replaces a link that appeared after the check instead of writing through it', async () => {
    const { project, outside } = await setUp();
    const file = path.join(project, 'swapped.txt');
    await writeFileAtomically(file, 'inside\n', { signal: new AbortController().signal });
    expect((await lstat(file)).isFile()).toBe(true);
    expect(await readFile(file, 'utf8')).toBe('inside\n');
    expect(await readFile(path.join(outside, 'target.txt'), 'utf8')).toBe('outside\n');
  });

  it('writes nothing when aborted, and leaves no temp file when the folder is gone', async () => {
    const { project } = await setUp();
    const controller = new AbortController();
    controller.abort();
    await expect(
      writeFileAtomically(path.join(project, 'late.txt'), 'x', { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(
      writeFileAtomically(path.join(project, 'gone', 'file.txt'), 'x', {
        signal: new AbortController().signal,
      }),
    ).rejects.toMatchObject({ code: 'WRITE_FAILED', message: expect.stringContaining('ENOENT') });
    expect((await readdir(project)).sort()).toEqual(['swapped.txt']);
  });
});
