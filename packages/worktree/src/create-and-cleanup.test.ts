import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, makeGitRepository, makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  checkWorktreeChanges,
  cleanupAgentWorktree,
  createAgentWorktree,
  hasWorktreeChanges,
  readAgentWorktree,
  WorktreeError,
  type GitAgentWorktree,
} from './index.js';
import { testGitOptions } from './test-helpers.js';

async function createGitWorktree(repo: string, slug: string, options = {}) {
  const worktree = await createAgentWorktree(repo, slug, { ...testGitOptions, ...options });
  if (worktree.managedBy !== 'git') throw new Error('expected a git worktree');
  return worktree;
}

async function branchExists(repo: string, branch: string): Promise<boolean> {
  return (await git(repo, 'branch', '--list', branch)) !== '';
}

describe('createAgentWorktree and cleanupAgentWorktree', () => {
  it('creates a worktree on a new branch under .muster/worktrees and records it', async () => {
    const repository = await makeGitRepository({ 'src/a.ts': 'export const a = 1;\n' });
    const head = await repository.git('rev-parse', 'HEAD');
    const worktree = await createGitWorktree(path.join(repository.path, 'src'), 'team/alpha');

    expect(worktree.path).toBe(path.join(repository.path, '.muster', 'worktrees', 'team', 'alpha'));
    expect(worktree.repositoryRoot).toBe(repository.path);
    expect(worktree.headCommit).toBe(head);
    expect(worktree.branch).toMatch(/^muster-wt-\d+-team\+alpha$/);
    expect(await git(worktree.path, 'branch', '--show-current')).toBe(worktree.branch);
    expect(await readFile(path.join(worktree.path, 'src/a.ts'), 'utf8')).toBe(
      'export const a = 1;\n',
    );
    // The main checkout does not see the worktree as untracked noise.
    expect(await repository.git('status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(await readFile(path.join(repository.path, '.git/info/exclude'), 'utf8')).toMatch(
      /^\/\.muster\/$/m,
    );
    // Callers that kept only the path can read the worktree back.
    expect(await readAgentWorktree(worktree.path, testGitOptions)).toEqual(worktree);
  });

  it('create, change, detect, keep: an uncommitted edit keeps the worktree and its branch', async () => {
    const repository = await makeGitRepository({ 'a.txt': 'one\n' });
    const worktree = await createGitWorktree(repository.path, 'editor');
    expect(await hasWorktreeChanges(worktree, testGitOptions)).toBe(false);

    await writeFile(path.join(worktree.path, 'a.txt'), 'two\n');
    const report = await checkWorktreeChanges(worktree, testGitOptions);
    expect(report).toMatchObject({ hasChanges: true, changedPaths: ['a.txt'], checkFailed: false });

    const result = await cleanupAgentWorktree(worktree, testGitOptions);
    expect(result).toMatchObject({ kept: true, path: worktree.path, branch: worktree.branch });
    expect(result.kept && result.reason).toMatch(/1 uncommitted change/);
    expect(await readFile(path.join(worktree.path, 'a.txt'), 'utf8')).toBe('two\n');
    expect(await branchExists(repository.path, worktree.branch)).toBe(true);
  });

  it('counts untracked files and new commits as changes', async () => {
    const repository = await makeGitRepository();
    const untracked = await createGitWorktree(repository.path, 'untracked');
    await writeFile(path.join(untracked.path, 'new-file.txt'), 'new\n');
    await mkdir(path.join(untracked.path, 'deep/folder'), { recursive: true });
    await writeFile(path.join(untracked.path, 'deep/folder/file.txt'), 'x\n');
    expect((await checkWorktreeChanges(untracked, testGitOptions)).changedPaths).toEqual([
      'deep/folder/file.txt',
      'new-file.txt',
    ]);

    const committed = await createGitWorktree(repository.path, 'committed');
    await writeFile(path.join(committed.path, 'work.txt'), 'work\n');
    await git(committed.path, 'add', 'work.txt');
    await git(committed.path, 'commit', '-q', '-m', 'agent work');
    const report = await checkWorktreeChanges(committed, testGitOptions);
    expect(report).toMatchObject({ hasChanges: true, changedPaths: [], newCommits: 1 });
    const result = await cleanupAgentWorktree(committed, testGitOptions);
    expect(result.kept).toBe(true);
    expect(existsSync(committed.path)).toBe(true);
    expect(await branchExists(repository.path, committed.branch)).toBe(true);
  });

  it('removes a worktree whose commits were merged into another branch (the work is safe there)', async () => {
    const repository = await makeGitRepository();
    const merged = await createGitWorktree(repository.path, 'merged');
    await writeFile(path.join(merged.path, 'work.txt'), 'work\n');
    await git(merged.path, 'add', 'work.txt');
    await git(merged.path, 'commit', '-q', '-m', 'agent work');
    const tip = await git(merged.path, 'rev-parse', 'HEAD');
    expect((await checkWorktreeChanges(merged, testGitOptions)).newCommits).toBe(1);
    await git(repository.path, 'merge', '-q', '--ff-only', merged.branch);
    expect(await checkWorktreeChanges(merged, testGitOptions)).toMatchObject({
      hasChanges: false,
      newCommits: 0,
    });
    const result = await cleanupAgentWorktree(merged, testGitOptions);
    expect(result.kept).toBe(false);
    expect(existsSync(merged.path)).toBe(false);
    expect(await git(repository.path, 'rev-parse', 'HEAD')).toBe(tip);
  });

  it('sees commits on the branch even when the worktree switched away from it', async () => {
    const repository = await makeGitRepository();
    const worktree = await createGitWorktree(repository.path, 'switcher');
    await git(worktree.path, 'commit', '-q', '--allow-empty', '-m', 'on the branch');
    await git(worktree.path, 'switch', '-q', '--detach', worktree.headCommit);
    expect(await checkWorktreeChanges(worktree, testGitOptions)).toMatchObject({
      hasChanges: true,
      newCommits: 1,
    });
  });

  it('create, leave clean, remove: the folder, the branch and git’s record are gone', async () => {
    const repository = await makeGitRepository();
    const worktree = await createGitWorktree(repository.path, 'team/quiet');
    const result = await cleanupAgentWorktree(worktree, testGitOptions);

    expect(result).toEqual({
      kept: false,
      path: worktree.path,
      branch: worktree.branch,
      removedBy: 'git',
      branchDeleted: true,
    });
    expect(existsSync(worktree.path)).toBe(false);
    expect(existsSync(path.join(repository.path, '.muster/worktrees/team'))).toBe(false);
    expect(await branchExists(repository.path, worktree.branch)).toBe(false);
    expect(await repository.git('worktree', 'list', '--porcelain')).not.toContain('.muster');
  });

  it('refuses an existing branch, an occupied slug and a slug inside another worktree', async () => {
    const repository = await makeGitRepository();
    await repository.git('branch', 'taken');
    await expect(createGitWorktree(repository.path, 'one', { branch: 'taken' })).rejects.toSatisfy(
      (error) => WorktreeError.hasCode(error, 'BRANCH_EXISTS'),
    );
    expect(existsSync(path.join(repository.path, '.muster/worktrees/one'))).toBe(false);

    await createGitWorktree(repository.path, 'two');
    const before = await repository.git('branch', '--list');
    await expect(createGitWorktree(repository.path, 'two')).rejects.toSatisfy((error) =>
      WorktreeError.hasCode(error, 'WORKTREE_EXISTS'),
    );
    await expect(createGitWorktree(repository.path, 'two/inner')).rejects.toSatisfy((error) =>
      WorktreeError.hasCode(error, 'WORKTREE_EXISTS'),
    );
    expect(await repository.git('branch', '--list')).toBe(before);
  });

  it('explains a path outside git, a missing path and a repository without commits', async () => {
    const plain = await makeTempDirectory();
    const notRepository = createGitWorktree(plain, 'x');
    await expect(notRepository).rejects.toSatisfy((error) =>
      WorktreeError.hasCode(error, 'NOT_A_GIT_REPOSITORY'),
    );
    await expect(notRepository).rejects.toThrow(/is not inside a git working tree.*git init/);
    await expect(createGitWorktree(path.join(plain, 'nope'), 'x')).rejects.toSatisfy((error) =>
      WorktreeError.hasCode(error, 'PATH_NOT_FOUND'),
    );
    await git(plain, 'init', '-q');
    await expect(createGitWorktree(plain, 'x')).rejects.toSatisfy((error) =>
      WorktreeError.hasCode(error, 'START_POINT_NOT_FOUND'),
    );
    expect(existsSync(path.join(plain, '.muster'))).toBe(false);
  });

  it('resolves the main checkout when called from inside another agent worktree', async () => {
    const repository = await makeGitRepository();
    const first = await createGitWorktree(repository.path, 'first');
    const second = await createGitWorktree(first.path, 'second');
    expect(second.repositoryRoot).toBe(repository.path);
    expect(second.path).toBe(path.join(repository.path, '.muster/worktrees/second'));
    expect(await hasWorktreeChanges(first, testGitOptions)).toBe(false);
  });

  it('branches from the given start point', async () => {
    const repository = await makeGitRepository({ 'a.txt': 'first\n' });
    const first = await repository.git('rev-parse', 'HEAD');
    await repository.write('a.txt', 'second\n');
    await repository.commitAll('second');
    const worktree: GitAgentWorktree = await createGitWorktree(repository.path, 'old', {
      startPoint: first,
    });
    expect(worktree.headCommit).toBe(first);
    expect(await readFile(path.join(worktree.path, 'a.txt'), 'utf8')).toBe('first\n');
  });
});
