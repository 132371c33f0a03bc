import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProjectTree, toolRefusal } from './test-support.js';
import { isInsideRoots, resolveToolPath } from './tool-paths.js';

/** A temp tree: `<base>/project` (the root) and `<base>/outside` (not a root). */
async function makeTree(): Promise<{ base: string; project: string; outside: string }> {
  const { base, project, outside } = await makeProjectTree('muster-tool-paths-');
  await mkdir(path.join(project, 'src'));
  await writeFile(path.join(project, 'src', 'a.ts'), 'a');
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
  return { base, project, outside };
}

const refusal = (promise: Promise<unknown>) => toolRefusal(promise, 'resolveToolPath');

describe('isInsideRoots', () => {
  it('compares whole path segments', () => {
    expect(isInsideRoots('/work/a', ['/work/a'])).toBe(true);
    expect(isInsideRoots('/work/a/b/c', ['/work/a'])).toBe(true);
    expect(isInsideRoots('/work/a/b/c', ['/work/a/'])).toBe(true);
    expect(isInsideRoots('/work/ab', ['/work/a'])).toBe(false);
    expect(isInsideRoots('/work', ['/work/a'])).toBe(false);
    expect(isInsideRoots('/anything', ['/'])).toBe(true);
    expect(isInsideRoots('/work/a', [])).toBe(false);
  });

  it('refuses relative paths and relative roots', () => {
    expect(isInsideRoots('work/a', ['/work'])).toBe(false);
    expect(isInsideRoots('/work/a', ['work'])).toBe(false);
    expect(isInsideRoots('/work/a/../../etc', ['/work/a'])).toBe(false);
  });
});

describe('resolveToolPath', () => {
  it('resolves relative paths against cwd and absolute ones as given', async () => {
    const { project } = await makeTree();
    const context = { cwd: project, roots: { read: [project], write: [project] } };
    expect(await resolveToolPath(context, 'src/a.ts', 'read')).toBe(
      path.join(project, 'src', 'a.ts'),
    );
    expect(await resolveToolPath(context, path.join(project, 'src/./a.ts'), 'write')).toBe(
      path.join(project, 'src', 'a.ts'),
    );
  });

  it('resolves a path that does not exist yet through its nearest existing ancestor', async () => {
    const { project } = await makeTree();
    await symlink(path.join(project, 'src'), path.join(project, 'source-link'));
    const context = { cwd: project, roots: { read: [project], write: [project] } };
    expect(await resolveToolPath(context, 'source-link/new/deep/file.ts', 'write')).toBe(
      path.join(project, 'src', 'new', 'deep', 'file.ts'),
    );
  });

  it('refuses ../../outside with PATH_OUTSIDE_ROOTS naming the path, where it went, and the roots', async () => {
    const { project, base } = await makeTree();
    const context = {
      cwd: path.join(project, 'src'),
      roots: { read: [project], write: [project] },
    };
    const error = await refusal(resolveToolPath(context, '../../outside', 'write'));
    expect(error.code).toBe('PATH_OUTSIDE_ROOTS');
    expect(error.message).toContain('"../../outside"');
    expect(error.message).toContain(path.join(base, 'outside'));
    expect(error.message).toContain(project);
    expect(error.details).toMatchObject({
      resolvedPath: path.join(base, 'outside'),
      access: 'write',
    });
  });

  it('refuses a symlink that leaves the roots with SYMLINK_ESCAPES', async () => {
    const { project, outside } = await makeTree();
    await symlink(outside, path.join(project, 'escape'));
    const context = { cwd: project, roots: { read: [project], write: [project] } };
    const error = await refusal(resolveToolPath(context, 'escape/secret.txt', 'read'));
    expect(error.code).toBe('SYMLINK_ESCAPES');
    expect(error.message).toContain(path.join(outside, 'secret.txt'));
    // A new file under the link would be created outside too.
    expect((await refusal(resolveToolPath(context, 'escape/new.txt', 'write'))).code).toBe(
      'SYMLINK_ESCAPES',
    );
  });

  it('checks components again after a .. that climbs out of a missing folder', async () => {
    const { project, outside } = await makeTree();
    await symlink(outside, path.join(project, 'escape'));
    const context = { cwd: project, roots: { read: [project], write: [project] } };
    for (const access of ['read', 'write'] as const) {
      for (const given of ['missing/../escape/secret.txt', 'src/a.ts/../../escape/secret.txt']) {
        const error = await refusal(resolveToolPath(context, given, access));
        expect(error.code).toBe('SYMLINK_ESCAPES');
        expect(error.message).toContain(path.join(outside, 'secret.txt'));
      }
    }
    // A missing folder, .., then another missing one stays inside and resolves lexically.
    expect(await resolveToolPath(context, 'missing/../new/file.txt', 'write')).toBe(
      path.join(project, 'new', 'file.txt'),
    );
  });

  it('follows a dangling link to where a write would create its target', async () => {
    const { project, outside } = await makeTree();
    await symlink(path.join(outside, 'not-yet.txt'), path.join(project, 'dangling.txt'));
    const context = { cwd: project, roots: { read: [project], write: [project] } };
    const error = await refusal(resolveToolPath(context, 'dangling.txt', 'write'));
    expect(error.code).toBe('SYMLINK_ESCAPES');
    expect(error.details.resolvedPath).toBe(path.join(outside, 'not-yet.txt'));
  });

  it('applies .. after a link to the link target, as the kernel does', async () => {
    const { project, outside } = await makeTree();
    await mkdir(path.join(outside, 'deeper'));
    await symlink(path.join(outside, 'deeper'), path.join(project, 'deep-link'));
    const context = { cwd: project, roots: { read: [project], write: [project] } };
    // Lexically project/secret.txt; really outside/secret.txt.
    const error = await refusal(resolveToolPath(context, 'deep-link/../secret.txt', 'read'));
    expect(error.details.resolvedPath).toBe(path.join(outside, 'secret.txt'));
  });

  it('accepts a link that stays inside the roots and returns its target', async () => {
    const { project } = await makeTree();
    await symlink('src/a.ts', path.join(project, 'relative-link.ts'));
    const context = { cwd: project, roots: { read: [project], write: [project] } };
    expect(await resolveToolPath(context, 'relative-link.ts', 'read')).toBe(
      path.join(project, 'src', 'a.ts'),
    );
  });

  it('checks read and write roots separately', async () => {
    const { project, outside } = await makeTree();
    const context = { cwd: project, roots: { read: [project, outside], write: [project] } };
    expect(await resolveToolPath(context, path.join(outside, 'secret.txt'), 'read')).toBe(
      path.join(outside, 'secret.txt'),
    );
    expect(
      (await refusal(resolveToolPath(context, path.join(outside, 'secret.txt'), 'write'))).code,
    ).toBe('PATH_OUTSIDE_ROOTS');
  });

  it('accepts roots given through a link (they are resolved before comparing)', async () => {
    const { project, base } = await makeTree();
    await symlink(project, path.join(base, 'project-link'));
    const linkedRoot = path.join(base, 'project-link');
    const context = { cwd: linkedRoot, roots: { read: [linkedRoot], write: [linkedRoot] } };
    expect(await resolveToolPath(context, 'src/a.ts', 'read')).toBe(
      path.join(project, 'src', 'a.ts'),
    );
  });

  it('refuses empty paths, NUL bytes and link loops with INVALID_PATH', async () => {
    const { project } = await makeTree();
    await symlink(path.join(project, 'loop-b'), path.join(project, 'loop-a'));
    await symlink(path.join(project, 'loop-a'), path.join(project, 'loop-b'));
    const context = { cwd: project, roots: { read: [project], write: [project] } };
    expect((await refusal(resolveToolPath(context, '', 'read'))).code).toBe('INVALID_PATH');
    expect((await refusal(resolveToolPath(context, 'a\0b', 'read'))).code).toBe('INVALID_PATH');
    const loop = await refusal(resolveToolPath(context, 'loop-a/file', 'read'));
    expect(loop.code).toBe('INVALID_PATH');
    expect(loop.message).toMatch(/symbolic links/u);
  });

  it('says so when there are no roots at all', async () => {
    const { project } = await makeTree();
    const context = { cwd: project, roots: { read: [project], write: [] } };
    const error = await refusal(resolveToolPath(context, 'src/a.ts', 'write'));
    expect(error.code).toBe('PATH_OUTSIDE_ROOTS');
    expect(error.message).toContain('(none)');
  });
});
