import { lstat, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { resolveRepository, WORKTREES_FOLDER } from './repository.js';
import { runGit, type GitOptions } from './run-git.js';
import type { AgentWorktree, GitAgentWorktree } from './types.js';
import { WorktreeError } from './worktree-error.js';
import { worktreeGitDirectory } from './worktree-record.js';

/** What `removeAgentWorktree` did. */
export interface WorktreeRemoval {
  path: string;
  branch: string;
  /**
   * `git`: `git worktree remove --force` removed it. `folder-deletion`: git could not
   * (the main repository is gone or no longer knows the worktree), so the folder was
   * deleted directly.
   */
  removedBy: 'git' | 'folder-deletion';
  /** True when the branch was deleted (it had no commits beyond the start commit). */
  branchDeleted: boolean;
  /** Why the branch was kept, when it was. */
  branchKeptReason?: string;
  /**
   * Set by `cleanupAgentWorktree` when something created the worktree's path again while
   * the worktree was being removed (a process writing there by path): that folder, left
   * alone for you to inspect.
   */
  leftBehind?: string;
}

/**
 * Removes a worktree without checking it for changes: the caller has decided. Runs
 * `git worktree remove --force` in the main repository; when the main repository cannot
 * be found or git cannot remove it, deletes the folder instead (only a folder under a
 * `.muster/worktrees/` directory). The branch is deleted only when it has no commits
 * beyond the start commit; otherwise it is kept and the result says so.
 * Throws `HOOK_MANAGED` for worktrees made by a create hook.
 */
export async function removeAgentWorktree(
  worktree: AgentWorktree,
  options: GitOptions = {},
): Promise<WorktreeRemoval> {
  if (worktree.managedBy === 'hook') {
    throw new WorktreeError({
      code: 'HOOK_MANAGED',
      message: `${worktree.path} was made by a create hook; muster does not remove it. Remove it with the tool that created it.`,
      details: { path: worktree.path, slug: worktree.slug },
    });
  }
  const commonDirectory = await findCommonDirectory(worktree, options);
  let removedBy: WorktreeRemoval['removedBy'] = 'git';
  try {
    if (commonDirectory === undefined) throw new Error('main repository not found');
    await git(commonDirectory, ['worktree', 'remove', '--force', worktree.path], options);
  } catch (error) {
    if (WorktreeError.hasCode(error, 'GIT_MISSING')) throw error;
    if (WorktreeError.hasCode(error, 'GIT_FAILED') && /locked/.test(String(error.details.stderr))) {
      throw new WorktreeError({
        code: 'GIT_FAILED',
        message: `The worktree ${worktree.path} is locked ("git worktree lock"), so muster leaves it alone. Run "git worktree unlock ${worktree.path}" first if it should go.`,
        cause: error,
        details: { path: worktree.path },
      });
    }
    await deleteWorktreeFolder(worktree, error);
    removedBy = 'folder-deletion';
    if (commonDirectory !== undefined) {
      await git(commonDirectory, ['worktree', 'prune'], options).catch(() => undefined);
    }
  }
  await removeEmptyParents(worktree.repositoryRoot, worktree.path);
  const branchOutcome =
    commonDirectory === undefined
      ? { branchDeleted: false, branchKeptReason: 'the main repository could not be found' }
      : await deleteUnchangedBranch(commonDirectory, worktree, options);
  return { path: worktree.path, branch: worktree.branch, removedBy, ...branchOutcome };
}

/**
 * Removes the empty folders left between `worktreePath` and `{root}/.muster/worktrees`
 * (slug `team/agent` leaves `team/` behind). Stops at the first folder that is not empty.
 */
export async function removeEmptyParents(root: string, worktreePath: string): Promise<void> {
  const worktreesFolder = path.join(root, WORKTREES_FOLDER);
  for (
    let folder = path.dirname(worktreePath);
    folder.startsWith(`${worktreesFolder}${path.sep}`);
    folder = path.dirname(folder)
  ) {
    try {
      await rmdir(folder);
    } catch {
      return;
    }
  }
}

async function findCommonDirectory(
  worktree: GitAgentWorktree,
  options: GitOptions,
): Promise<string | undefined> {
  try {
    return (await worktreeGitDirectory(worktree.path, options)).commonDirectory;
  } catch (error) {
    if (WorktreeError.hasCode(error, 'GIT_MISSING')) throw error;
  }
  try {
    const location = await resolveRepository(worktree.repositoryRoot, options);
    // A repository found further up is someone else's: the main repository is gone.
    return location.root === worktree.repositoryRoot ? location.commonDirectory : undefined;
  } catch (error) {
    if (WorktreeError.hasCode(error, 'GIT_MISSING')) throw error;
    return undefined;
  }
}

async function deleteWorktreeFolder(worktree: GitAgentWorktree, cause: unknown): Promise<void> {
  const marker = `${path.sep}${WORKTREES_FOLDER}${path.sep}`;
  let isMainCheckout = false;
  try {
    isMainCheckout = (await lstat(path.join(worktree.path, '.git'))).isDirectory();
  } catch {
    // No .git at all: an abandoned folder.
  }
  if (!path.resolve(worktree.path).includes(marker) || isMainCheckout) {
    throw new WorktreeError({
      code: 'GIT_FAILED',
      message: `git could not remove the worktree ${worktree.path} (${(cause as Error).message}), and muster only deletes folders under ${WORKTREES_FOLDER} that are not a repository's main checkout. Remove it by hand.`,
      cause,
      details: { path: worktree.path },
    });
  }
  await rm(worktree.path, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * Deletes the worktree's branch when it has no commits beyond the start commit (and only
 * if it still points at the tip just checked); otherwise keeps it and says why.
 */
export async function deleteUnchangedBranch(
  commonDirectory: string,
  worktree: GitAgentWorktree,
  options: GitOptions,
): Promise<Pick<WorktreeRemoval, 'branchDeleted' | 'branchKeptReason'>> {
  const reference = `refs/heads/${worktree.branch}`;
  let tip: string;
  try {
    tip = (
      await git(commonDirectory, ['rev-parse', '--verify', '--end-of-options', reference], options)
    ).trim();
  } catch {
    return { branchDeleted: false, branchKeptReason: `branch ${worktree.branch} does not exist` };
  }
  try {
    const count = await git(
      commonDirectory,
      ['rev-list', '--count', '--end-of-options', `${worktree.headCommit}..${tip}`],
      options,
    );
    if (count.trim() !== '0') {
      return {
        branchDeleted: false,
        branchKeptReason: `branch ${worktree.branch} has ${count.trim()} commit(s) beyond ${worktree.headCommit.slice(0, 12)}`,
      };
    }
    // Deletes the ref only if it still points at the tip just checked.
    await git(commonDirectory, ['update-ref', '-d', reference, tip], options);
    return { branchDeleted: true };
  } catch (error) {
    return {
      branchDeleted: false,
      branchKeptReason: `branch ${worktree.branch} could not be checked or deleted: ${(error as Error).message}`,
    };
  }
}

/** Runs git against a repository named by its common git directory. */
function git(commonDirectory: string, args: string[], options: GitOptions): Promise<string> {
  return runGit(commonDirectory, [`--git-dir=${commonDirectory}`, ...args], options);
}
