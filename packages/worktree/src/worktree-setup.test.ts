import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, makeGitRepository, makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  cleanupAgentWorktree,
  createAgentWorktree,
  hasWorktreeChanges,
  WorktreeError,
  type CreateAgentWorktreeOptions,
} from './index.js';
import { snapshotGit, snapshotTree, testGitOptions } from './test-helpers.js';

async function createGitWorktree(
  repo: string,
  slug: string,
  options: CreateAgentWorktreeOptions = {},
) {
  const worktree = await createAgentWorktree(repo, slug, { ...testGitOptions, ...options });
  if (worktree.managedBy !== 'git') throw new Error('expected a git worktree');
  return worktree;
}

describe('after creation', () => {
  it('copies only files that .worktreeinclude lists AND git ignores', async () => {
    const repository = await makeGitRepository({
      '.gitignore': '.env\n*.log\nbuild/\nconfig/local/\nnode_modules/\nsecrets/\n',
      'config/app.json': '{"tracked":true}\n',
      '.worktreeinclude': [
        '# copied into every agent worktree',
        '.env',
        'config/local/*.json',
        'build',
        'config/app.json',
        'notes.txt',
        'node_modules',
      ].join('\n'),
    });
    const files: Record<string, string> = {
      '.env': 'TOKEN=1\n',
      'packages/app/.env': 'APP=1\n',
      'config/local/a.json': '{"a":1}\n',
      'config/local/b.key': 'not listed\n',
      'build/out/bundle.js': 'bundle\n',
      'debug.log': 'ignored but not listed\n',
      'secrets/token': 'ignored but not listed\n',
      'notes.txt': 'listed but not ignored\n',
      'node_modules/dep/.env': 'inside the shared node_modules\n',
    };
    for (const [file, content] of Object.entries(files)) await repository.write(file, content);

    const worktree = await createGitWorktree(repository.path, 'includer');

    expect(worktree.copiedPaths).toEqual([
      '.env',
      'build/',
      'config/local/a.json',
      'packages/app/.env',
    ]);
    for (const copied of [
      '.env',
      'packages/app/.env',
      'config/local/a.json',
      'build/out/bundle.js',
    ]) {
      expect(await readFile(path.join(worktree.path, copied), 'utf8'), copied).toBe(files[copied]);
    }
    for (const absent of ['config/local/b.key', 'debug.log', 'secrets/token', 'notes.txt']) {
      expect(existsSync(path.join(worktree.path, absent)), absent).toBe(false);
    }
    // node_modules is shared by a symlink, never copied into.
    expect((await lstat(path.join(worktree.path, 'node_modules'))).isSymbolicLink()).toBe(true);
    expect(await hasWorktreeChanges(worktree, testGitOptions)).toBe(false);
  });

  it('symlinks node_modules from the main checkout, stays clean, and removal spares the original', async () => {
    const repository = await makeGitRepository({ '.gitignore': 'node_modules/\n' });
    await repository.write('node_modules/dep/index.js', 'module.exports = 42;\n');
    await repository.write('packages/app/node_modules/local/index.js', 'local\n');
    await repository.write('packages/app/package.json', '{}\n');
    await repository.commitAll('app');

    const worktree = await createGitWorktree(repository.path, 'linker', {
      symlinkDirectories: ['node_modules', 'packages/app/node_modules', '.cache/not-there'],
    });

    expect(worktree.symlinkedDirectories).toEqual(['node_modules', 'packages/app/node_modules']);
    const link = path.join(worktree.path, 'node_modules');
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(path.join(repository.path, 'node_modules'));
    expect(await readFile(path.join(link, 'dep/index.js'), 'utf8')).toBe('module.exports = 42;\n');
    expect(existsSync(path.join(worktree.path, '.cache'))).toBe(false);
    // `node_modules/` in .gitignore does not match a symlink, yet the worktree counts as clean.
    expect(await git(worktree.path, 'status', '--porcelain')).toContain('node_modules');
    expect(await hasWorktreeChanges(worktree, testGitOptions)).toBe(false);

    expect(await cleanupAgentWorktree(worktree, testGitOptions)).toMatchObject({ kept: false });
    expect(existsSync(worktree.path)).toBe(false);
    expect(await readFile(path.join(repository.path, 'node_modules/dep/index.js'), 'utf8')).toBe(
      'module.exports = 42;\n',
    );
    expect(existsSync(path.join(repository.path, 'packages/app/node_modules/local/index.js'))).toBe(
      true,
    );
  });

  it('refuses a shared folder whose symlink leaves the repository, creating nothing', async () => {
    const repository = await makeGitRepository({ '.gitignore': 'node_modules\n' });
    const outside = await makeTempDirectory('muster-outside-');
    await symlink(outside, path.join(repository.path, 'node_modules'));
    const treeBefore = await snapshotTree(repository.path);
    const gitBefore = await snapshotGit(repository.path);

    const escaping = createGitWorktree(repository.path, 'escaper');
    await expect(escaping).rejects.toSatisfy((error) =>
      WorktreeError.hasCode(error, 'SYMLINK_ESCAPES_REPOSITORY'),
    );
    await expect(escaping).rejects.toThrow(/outside the repository/);
    await expect(
      createGitWorktree(repository.path, 'escaper', { symlinkDirectories: ['../elsewhere'] }),
    ).rejects.toSatisfy((error) => WorktreeError.hasCode(error, 'INVALID_OPTIONS'));
    await expect(
      createGitWorktree(repository.path, 'escaper', { symlinkDirectories: [outside] }),
    ).rejects.toSatisfy((error) => WorktreeError.hasCode(error, 'INVALID_OPTIONS'));

    expect(await snapshotTree(repository.path)).toEqual(treeBefore);
    expect(await snapshotGit(repository.path)).toEqual(gitBefore);
  });

  it('limits the checkout to the sparse paths (cone for folders, patterns otherwise)', async () => {
    const repository = await makeGitRepository({
      'top.txt': 'top\n',
      'src/index.ts': 'index\n',
      'src/deep/util.ts': 'util\n',
      'docs/guide.md': 'guide\n',
      'docs/other.md': 'other\n',
      'assets/big.bin': 'big\n',
    });

    const cone = await createGitWorktree(repository.path, 'cone', { sparsePaths: ['src'] });
    expect(await git(cone.path, 'ls-files', '-t')).toContain('S docs/guide.md');
    expect(existsSync(path.join(cone.path, 'src/deep/util.ts'))).toBe(true);
    expect(existsSync(path.join(cone.path, 'top.txt'))).toBe(true); // cone keeps root files
    expect(existsSync(path.join(cone.path, 'docs'))).toBe(false);
    expect(existsSync(path.join(cone.path, 'assets'))).toBe(false);
    expect(await git(cone.path, 'config', '--get', 'core.sparseCheckoutCone')).toBe('true');
    expect(await hasWorktreeChanges(cone, testGitOptions)).toBe(false);

    const patterns = await createGitWorktree(repository.path, 'patterns', {
      sparsePaths: ['docs/guide.md', 'src/deep'],
    });
    expect(
      await snapshotTree(patterns.path).then((tree) =>
        tree.filter((line) => !line.startsWith('.git ')),
      ),
    ).toEqual(['docs/', 'docs/guide.md 6', 'src/', 'src/deep/', 'src/deep/util.ts 5']);
    expect(await git(patterns.path, 'config', '--get', 'core.sparseCheckoutCone')).toBe('false');
    expect(await hasWorktreeChanges(patterns, testGitOptions)).toBe(false);
    // The main checkout stays a full checkout.
    expect(existsSync(path.join(repository.path, 'assets/big.bin'))).toBe(true);
    expect(
      await repository.git('config', '--get', 'core.sparseCheckout').catch(() => 'unset'),
    ).toBe('unset');
  });

  it('runs the shared pre-commit hook inside the worktree', async () => {
    const repository = await makeGitRepository();
    const marker = path.join(await makeTempDirectory(), 'hook-ran');
    const hook = path.join(repository.path, '.git/hooks/pre-commit');
    await writeFile(hook, `#!/bin/sh\npwd > '${marker}'\n`);
    await chmod(hook, 0o755);

    const worktree = await createGitWorktree(repository.path, 'hooked');
    await writeFile(path.join(worktree.path, 'file.txt'), 'x\n');
    await git(worktree.path, 'add', 'file.txt');
    await git(worktree.path, 'commit', '-q', '-m', 'work');
    expect((await readFile(marker, 'utf8')).trim()).toBe(worktree.path);
  });

  it('keeps a relative core.hooksPath working when its folder is generated and ignored', async () => {
    const repository = await makeGitRepository({ '.gitignore': '.hooks/generated/\n' });
    await mkdir(path.join(repository.path, '.hooks/generated'), { recursive: true });
    const hook = path.join(repository.path, '.hooks/generated/pre-commit');
    await writeFile(hook, '#!/bin/sh\necho "blocked by the generated hook" >&2\nexit 1\n');
    await chmod(hook, 0o755);
    await repository.git('config', 'core.hooksPath', '.hooks/generated');

    const worktree = await createGitWorktree(repository.path, 'husky-like');
    expect(await hasWorktreeChanges(worktree, testGitOptions)).toBe(false);
    await writeFile(path.join(worktree.path, 'file.txt'), 'x\n');
    await git(worktree.path, 'add', 'file.txt');
    await expect(git(worktree.path, 'commit', '-q', '-m', 'work')).rejects.toThrow(
      /blocked by the generated hook/,
    );
  });
});
