import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, makeGitRepository } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  checkWorktreeChanges,
  cleanupAgentWorktree,
  createAgentWorktree,
  type GitAgentWorktree,
} from './index.js';
import { testGitOptions } from './test-helpers.js';

async function createWorktree(files?: Record<string, string>) {
  const repository = await makeGitRepository(files);
  const worktree = await createAgentWorktree(repository.path, 'hidden', testGitOptions);
  if (worktree.managedBy !== 'git') throw new Error('expected a git worktree');
  return { repository, worktree };
}

/** Cleanup must keep the worktree: its folder, and the commit, are still there afterwards. */
async function expectKept(worktree: GitAgentWorktree, reason: RegExp, commit?: string) {
  const result = await cleanupAgentWorktree(worktree, testGitOptions);
  expect(result).toMatchObject({ kept: true, path: worktree.path });
  expect(result.kept && result.reason).toMatch(reason);
  expect(existsSync(worktree.path)).toBe(true);
  if (commit !== undefined) {
    expect(await git(worktree.path, 'cat-file', '-t', commit)).toBe('commit');
    // Still reachable through the worktree's reflog, which removal would have deleted.
    expect(await git(worktree.path, 'log', '-g', '--format=%H', 'HEAD')).toContain(commit);
  }
}

describe('work git status does not show', () => {
  it('keeps a worktree whose branch was reset, leaving a commit only in the reflog', async () => {
    const { worktree } = await createWorktree();
    await writeFile(path.join(worktree.path, 'work.txt'), 'work\n');
    await git(worktree.path, 'add', 'work.txt');
    await git(worktree.path, 'commit', '-q', '-m', 'agent work');
    const commit = await git(worktree.path, 'rev-parse', 'HEAD');
    await git(worktree.path, 'reset', '-q', '--hard', worktree.headCommit);
    expect(await git(worktree.path, 'status', '--porcelain')).toBe('');

    const report = await checkWorktreeChanges(worktree, testGitOptions);
    expect(report).toMatchObject({ hasChanges: true, newCommits: 0, checkFailed: false });
    expect(report.reflogOnlyCommits).toBe(1);
    await expectKept(worktree, /1 commit\(s\) reachable only from the reflog/, commit);
  });

  it('keeps a worktree where a commit was made on a detached HEAD and then left behind', async () => {
    const { worktree } = await createWorktree();
    await git(worktree.path, 'switch', '-q', '--detach');
    await git(worktree.path, 'commit', '-q', '--allow-empty', '-m', 'detached work');
    const commit = await git(worktree.path, 'rev-parse', 'HEAD');
    await git(worktree.path, 'switch', '-q', worktree.branch);

    expect(await checkWorktreeChanges(worktree, testGitOptions)).toMatchObject({
      hasChanges: true,
      newCommits: 0,
      reflogOnlyCommits: 1,
    });
    await expectKept(worktree, /reachable only from the reflog/, commit);
  });

  it('does not count reflog commits another branch or a tag still holds', async () => {
    const { repository, worktree } = await createWorktree();
    await git(worktree.path, 'commit', '-q', '--allow-empty', '-m', 'saved elsewhere');
    await git(worktree.path, 'tag', 'saved');
    await git(worktree.path, 'commit', '-q', '--allow-empty', '-m', 'also saved');
    await git(worktree.path, 'branch', 'kept-branch');
    await git(worktree.path, 'reset', '-q', '--hard', worktree.headCommit);

    expect(await checkWorktreeChanges(worktree, testGitOptions)).toMatchObject({
      hasChanges: false,
      reflogOnlyCommits: 0,
    });
    expect((await cleanupAgentWorktree(worktree, testGitOptions)).kept).toBe(false);
    expect(await repository.git('rev-parse', 'kept-branch')).toMatch(/^[0-9a-f]{40}$/);
  });

  it('keeps an edit to an assume-unchanged file', async () => {
    const { worktree } = await createWorktree({ 'config.json': '{}\n' });
    await git(worktree.path, 'update-index', '--assume-unchanged', 'config.json');
    await writeFile(path.join(worktree.path, 'config.json'), '{"edited": true}\n');
    expect(await git(worktree.path, 'status', '--porcelain')).toBe('');

    const report = await checkWorktreeChanges(worktree, testGitOptions);
    expect(report).toMatchObject({ hasChanges: true, changedPaths: ['config.json'] });
    await expectKept(
      worktree,
      /1 uncommitted change\(s\) \(1 in files marked assume-unchanged or skip-worktree/,
    );
    expect(await readFile(path.join(worktree.path, 'config.json'), 'utf8')).toBe(
      '{"edited": true}\n',
    );
  });

  it('keeps an edit to a skip-worktree file', async () => {
    const { worktree } = await createWorktree({ 'settings.ini': 'a=1\n', 'README.md': '# r\n' });
    await git(worktree.path, 'update-index', '--skip-worktree', 'settings.ini');
    await writeFile(path.join(worktree.path, 'settings.ini'), 'a=2\n');
    expect(await git(worktree.path, 'status', '--porcelain')).toBe('');

    expect(await checkWorktreeChanges(worktree, testGitOptions)).toMatchObject({
      hasChanges: true,
      changedPaths: ['settings.ini'],
    });
    await expectKept(
      worktree,
      /1 uncommitted change\(s\) \(1 in files marked assume-unchanged or skip-worktree/,
    );
    expect(await readFile(path.join(worktree.path, 'settings.ini'), 'utf8')).toBe('a=2\n');
  });

  it('still removes a worktree whose flagged files are unchanged or left out by sparse checkout', async () => {
    const repository = await makeGitRepository({
      'src/index.ts': 'index\n',
      'docs/guide.md': 'guide\n',
      'config.json': '{}\n',
    });
    const worktree = await createAgentWorktree(repository.path, 'sparse', {
      ...testGitOptions,
      sparsePaths: ['src'],
    });
    if (worktree.managedBy !== 'git') throw new Error('expected a git worktree');
    expect(existsSync(path.join(worktree.path, 'docs/guide.md'))).toBe(false);
    await git(worktree.path, 'update-index', '--assume-unchanged', 'config.json');

    expect(await checkWorktreeChanges(worktree, testGitOptions)).toMatchObject({
      hasChanges: false,
      changedPaths: [],
      reflogOnlyCommits: 0,
    });
    expect(await cleanupAgentWorktree(worktree, testGitOptions)).toMatchObject({
      kept: false,
      branchDeleted: true,
    });
    expect(existsSync(worktree.path)).toBe(false);
  });
});
