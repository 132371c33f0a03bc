import { existsSync } from 'node:fs';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  git,
  isolatedGitEnvironment,
  makeGitRepository,
  makeTempDirectory,
} from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  checkWorktreeChanges,
  cleanupAgentWorktree,
  createAgentWorktree,
  removeAgentWorktree,
  WorktreeError,
  type GitAgentWorktree,
} from './index.js';
import { testGitOptions } from './test-helpers.js';

async function cleanWorktree(): Promise<{ repositoryPath: string; worktree: GitAgentWorktree }> {
  const repository = await makeGitRepository();
  const worktree = await createAgentWorktree(repository.path, 'fragile', testGitOptions);
  if (worktree.managedBy !== 'git') throw new Error('expected a git worktree');
  expect((await checkWorktreeChanges(worktree, testGitOptions)).hasChanges).toBe(false);
  return { repositoryPath: repository.path, worktree };
}

/** A folder holding a `git` that logs each call and fails (or hangs) for one subcommand. */
async function wrappedGit(
  failing: string,
  behaviour: 'fail' | 'hang',
): Promise<{ env: NodeJS.ProcessEnv; log: string }> {
  const folder = await makeTempDirectory('muster-fake-git-');
  const log = path.join(folder, 'calls.log');
  const realGit = (await import('node:child_process'))
    .execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' })
    .trim();
  const action =
    behaviour === 'fail' ? 'echo "fatal: simulated failure" >&2; exit 128' : 'exec sleep 30';
  await writeFile(
    path.join(folder, 'git'),
    `#!/bin/sh\necho "$1" >> '${log}'\nif [ "$1" = "${failing}" ]; then ${action}; fi\nexec '${realGit}' "$@"\n`,
  );
  await chmod(path.join(folder, 'git'), 0o755);
  return { env: { ...isolatedGitEnvironment, PATH: `${folder}:${process.env.PATH}` }, log };
}

async function expectKept(
  repositoryPath: string,
  worktree: GitAgentWorktree,
  options = testGitOptions,
) {
  const result = await cleanupAgentWorktree(worktree, options);
  expect(result.kept).toBe(true);
  expect(result.kept && result.reason).toMatch(/Could not check .* so it is kept/);
  expect(existsSync(path.join(worktree.path, 'README.md'))).toBe(true);
  expect(await git(repositoryPath, 'branch', '--list', worktree.branch)).not.toBe('');
}

describe('fail-closed change checks', () => {
  it('keeps a worktree whose .git file is corrupted', async () => {
    const { repositoryPath, worktree } = await cleanWorktree();
    await writeFile(path.join(worktree.path, '.git'), 'gitdir: /nowhere/at/all\n');
    expect(await checkWorktreeChanges(worktree, testGitOptions)).toMatchObject({
      hasChanges: true,
      checkFailed: true,
    });
    await expectKept(repositoryPath, worktree);
  });

  it('keeps a worktree whose .git file is gone, instead of reading the enclosing main checkout', async () => {
    const { repositoryPath, worktree } = await cleanWorktree();
    await rm(path.join(worktree.path, '.git'));
    // Plain git would now report the (clean) main checkout for this folder.
    expect(await git(worktree.path, 'rev-parse', '--show-toplevel')).toBe(repositoryPath);
    expect((await checkWorktreeChanges(worktree, testGitOptions)).reason).toMatch(
      /is not the top of a git worktree/,
    );
    await expectKept(repositoryPath, worktree);
  });

  it('keeps a worktree when git is not on PATH, and says so when creating', async () => {
    const { repositoryPath, worktree } = await cleanWorktree();
    const noGit = {
      env: { ...isolatedGitEnvironment, PATH: await makeTempDirectory('muster-empty-path-') },
    };
    const report = await checkWorktreeChanges(worktree, noGit);
    expect(report).toMatchObject({ hasChanges: true, checkFailed: true });
    expect(report.reason).toMatch(/git could not be started/);
    await expectKept(repositoryPath, worktree, noGit);
    await expect(createAgentWorktree(repositoryPath, 'another', noGit)).rejects.toSatisfy((error) =>
      WorktreeError.hasCode(error, 'GIT_MISSING'),
    );
  });

  it('keeps a worktree when git fails in the middle of the check (status works, rev-list fails)', async () => {
    const { repositoryPath, worktree } = await cleanWorktree();
    const { env, log } = await wrappedGit('rev-list', 'fail');
    const report = await checkWorktreeChanges(worktree, { env });
    expect(report).toMatchObject({ hasChanges: true, checkFailed: true });
    expect(report.reason).toMatch(/simulated failure/);
    const calls = (await readFile(log, 'utf8')).trim().split('\n');
    expect(calls).toEqual(['rev-parse', 'status', 'ls-files', 'for-each-ref', 'rev-list']);
    await expectKept(repositoryPath, worktree, { env });
  });

  it('keeps a worktree when git hangs past the time limit', async () => {
    const { repositoryPath, worktree } = await cleanWorktree();
    const { env } = await wrappedGit('status', 'hang');
    const options = { env, gitTimeoutMs: 300 };
    const report = await checkWorktreeChanges(worktree, options);
    expect(report).toMatchObject({ hasChanges: true, checkFailed: true });
    expect(report.reason).toMatch(/did not finish within 300 ms/);
    await expectKept(repositoryPath, worktree, options);
  });
});

describe('removal when the main repository is gone', () => {
  it('cleanup keeps the worktree; explicit removal falls back to deleting the folder', async () => {
    const { repositoryPath, worktree } = await cleanWorktree();
    await rm(path.join(repositoryPath, '.git'), { recursive: true, force: true });

    const cleanup = await cleanupAgentWorktree(worktree, testGitOptions);
    expect(cleanup.kept).toBe(true);
    expect(existsSync(worktree.path)).toBe(true);

    const removal = await removeAgentWorktree(worktree, testGitOptions);
    expect(removal).toMatchObject({ removedBy: 'folder-deletion', branchDeleted: false });
    expect(existsSync(worktree.path)).toBe(false);
    expect(existsSync(path.join(repositoryPath, 'README.md'))).toBe(true);
  });

  it('deletes the folder when git no longer knows the worktree, and still deletes its branch', async () => {
    const { repositoryPath, worktree } = await cleanWorktree();
    const gitDirectory = (await readFile(path.join(worktree.path, '.git'), 'utf8'))
      .replace('gitdir: ', '')
      .trim();
    await rm(gitDirectory, { recursive: true, force: true });
    expect((await cleanupAgentWorktree(worktree, testGitOptions)).kept).toBe(true);

    const removal = await removeAgentWorktree(worktree, testGitOptions);
    expect(removal).toMatchObject({ removedBy: 'folder-deletion', branchDeleted: true });
    expect(existsSync(worktree.path)).toBe(false);
    expect(await git(repositoryPath, 'branch', '--list', worktree.branch)).toBe('');
    expect(await git(repositoryPath, 'status', '--porcelain')).toBe('');
  });

  it('leaves a locked worktree alone and keeps a branch that has new commits', async () => {
    const { repositoryPath, worktree } = await cleanWorktree();
    await git(repositoryPath, 'worktree', 'lock', worktree.path);
    await expect(removeAgentWorktree(worktree, testGitOptions)).rejects.toThrow(/is locked/);
    expect(existsSync(worktree.path)).toBe(true);
    await git(repositoryPath, 'worktree', 'unlock', worktree.path);

    await git(worktree.path, 'commit', '-q', '--allow-empty', '-m', 'keep me');
    const removal = await removeAgentWorktree(worktree, testGitOptions);
    expect(removal).toMatchObject({ removedBy: 'git', branchDeleted: false });
    expect(removal.branchKeptReason).toMatch(/has 1 commit\(s\) beyond/);
    expect(await git(repositoryPath, 'branch', '--list', worktree.branch)).not.toBe('');
  });
});
