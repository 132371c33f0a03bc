import { hostname } from 'node:os';
import { lstat, mkdir, realpath, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { checkCreateHook, runCreateHook } from './create-hook.js';
import { connectGitHooks } from './git-hooks.js';
import {
  excludeMusterFolder,
  resolveRepository,
  worktreePathFor,
  WORKTREES_FOLDER,
} from './repository.js';
import { removeEmptyParents } from './remove-worktree.js';
import { runGit, type GitOptions } from './run-git.js';
import { applySparseCheckout, checkSparsePaths, planSparseCheckout } from './sparse-checkout.js';
import {
  checkSymlinkDirectoryNames,
  createDirectorySymlinks,
  planDirectorySymlinks,
} from './symlink-directories.js';
import type { AgentWorktree, CreateAgentWorktreeOptions, GitAgentWorktree } from './types.js';
import { WorktreeError } from './worktree-error.js';
import { copyIncludedPaths, findIncludedIgnoredPaths } from './worktree-include.js';
import { worktreeGitDirectory, writeWorktreeRecord } from './worktree-record.js';
import { branchNameForSlug, validateWorktreeSlug } from './worktree-slug.js';

/** Folders linked from the main checkout when `symlinkDirectories` is not given. */
export const DEFAULT_SYMLINK_DIRECTORIES: readonly string[] = ['node_modules'];

/**
 * Creates an isolated worktree for one agent at `{root}/.muster/worktrees/{slug}` on a
 * new branch, where `repo` is any path inside the repository. The slug and every option
 * are checked before anything is written. After `git worktree add` it applies sparse
 * checkout, links large folders from the main checkout, keeps git hooks working and
 * copies ignored files listed in `.worktreeinclude`; if any of that fails, the new
 * worktree and branch are removed again and the error is thrown. With `createHook`,
 * the hook creates the worktree instead and git is not used at all.
 */
export async function createAgentWorktree(
  repo: string,
  slug: string,
  options: CreateAgentWorktreeOptions = {},
): Promise<AgentWorktree> {
  validateWorktreeSlug(slug);
  const sparsePaths = checkSparsePaths(options.sparsePaths);
  const symlinkNames = checkSymlinkDirectoryNames(
    options.symlinkDirectories ?? [...DEFAULT_SYMLINK_DIRECTORIES],
  );
  checkOtherOptions(options);

  if (options.createHook !== undefined) {
    const hook = checkCreateHook(options.createHook);
    if (sparsePaths.length > 0 || options.symlinkDirectories || options.branch) {
      throw new WorktreeError({
        code: 'INVALID_OPTIONS',
        message: `createHook replaces git, so sparsePaths, symlinkDirectories and branch cannot be applied to slug "${slug}". Drop those options or do that work inside the hook.`,
        details: { slug },
      });
    }
    return runCreateHook(hook, await existingFolder(repo), slug, options);
  }

  const { root, commonDirectory } = await resolveRepository(repo, options);
  const worktreePath = worktreePathFor(root, slug);
  await refuseOccupiedPath(root, worktreePath, slug);
  const plannedSymlinks = await planDirectorySymlinks(root, symlinkNames);
  const headCommit = await resolveStartPoint(root, options.startPoint ?? 'HEAD', options);
  const branch = options.branch ?? branchNameForSlug(slug, Date.now());
  await checkBranchName(root, branch, options);
  const sparsePlan =
    sparsePaths.length > 0
      ? await planSparseCheckout(root, headCommit, sparsePaths, options.sparseMode, options)
      : undefined;

  // Everything is checked; from here on the disk changes.
  await excludeMusterFolder(commonDirectory);
  await createBranch(root, branch, headCommit, options);
  try {
    await mkdir(path.dirname(worktreePath), { recursive: true });
    await runGit(
      root,
      ['worktree', 'add', ...(sparsePlan ? ['--no-checkout'] : []), worktreePath, branch],
      options,
    );
  } catch (error) {
    await deleteBranchQuietly(root, branch, headCommit, options);
    await removeEmptyParents(root, worktreePath);
    if (
      WorktreeError.hasCode(error, 'GIT_FAILED') &&
      /already exists/.test(String(error.details.stderr))
    ) {
      throw occupied(worktreePath, slug, error);
    }
    throw error;
  }

  try {
    if (sparsePlan) await applySparseCheckout(worktreePath, sparsePlan, options);
    const symlinkedDirectories = await createDirectorySymlinks(worktreePath, plannedSymlinks);
    await connectGitHooks(root, worktreePath, options);
    const copiedPaths =
      options.copyIncludedFiles === false
        ? []
        : await findIncludedIgnoredPaths(root, ['.muster', ...symlinkNames], options);
    await copyIncludedPaths(root, worktreePath, copiedPaths);
    const worktree: GitAgentWorktree = {
      managedBy: 'git',
      slug,
      path: worktreePath,
      branch,
      headCommit,
      repositoryRoot: root,
      createdAt: new Date().toISOString(),
      ownerProcessId: options.ownerProcessId ?? process.pid,
      ownerHostname: hostname(),
      symlinkedDirectories,
      copiedPaths,
      sparsePaths,
    };
    const { gitDirectory } = await worktreeGitDirectory(worktreePath, options);
    await writeWorktreeRecord(gitDirectory, worktree);
    return worktree;
  } catch (error) {
    const rollbackProblems = await rollBack(root, worktreePath, branch, headCommit, options);
    throw new WorktreeError({
      code: 'SETUP_FAILED',
      message: `Setting up the worktree for slug "${slug}" at ${worktreePath} failed: ${(error as Error).message.replace(/\.?$/, '.')} ${
        rollbackProblems.length === 0
          ? 'The worktree and its branch were removed again; fix the cause and create it again.'
          : `Removing it again also failed (${rollbackProblems.join('; ')}); remove ${worktreePath} and branch ${branch} by hand.`
      }`,
      cause: error,
      details: { slug, path: worktreePath, branch, rollbackProblems },
    });
  }
}

function checkOtherOptions(options: CreateAgentWorktreeOptions): void {
  const problems: string[] = [];
  if (
    options.startPoint !== undefined &&
    (typeof options.startPoint !== 'string' ||
      options.startPoint === '' ||
      options.startPoint.startsWith('-'))
  ) {
    problems.push('startPoint must be a revision such as "HEAD" or "main"');
  }
  if (
    options.branch !== undefined &&
    (typeof options.branch !== 'string' || options.branch === '' || options.branch.startsWith('-'))
  ) {
    problems.push('branch must be a branch name that does not start with "-"');
  }
  if (
    options.sparseMode !== undefined &&
    options.sparseMode !== 'cone' &&
    options.sparseMode !== 'no-cone'
  ) {
    problems.push('sparseMode must be "cone" or "no-cone"');
  }
  if (
    options.ownerProcessId !== undefined &&
    !(Number.isInteger(options.ownerProcessId) && options.ownerProcessId > 0)
  ) {
    problems.push('ownerProcessId must be a positive integer');
  }
  if (problems.length > 0) {
    throw new WorktreeError({
      code: 'INVALID_OPTIONS',
      message: `createAgentWorktree options are invalid: ${problems.join('; ')}. Fix them and try again.`,
      details: { problems },
    });
  }
}

async function existingFolder(repo: string): Promise<string> {
  const absolute = path.resolve(repo);
  try {
    if ((await stat(absolute)).isDirectory()) return await realpath(absolute);
  } catch {
    // reported below
  }
  throw new WorktreeError({
    code: 'PATH_NOT_FOUND',
    message: `${absolute} is not an existing folder, so the create hook has nowhere to run. Pass the repository folder.`,
    details: { path: absolute },
  });
}

/** Refuses a slug whose folder exists, or that would sit inside another worktree. */
async function refuseOccupiedPath(root: string, worktreePath: string, slug: string): Promise<void> {
  if (await exists(worktreePath)) throw occupied(worktreePath, slug);
  const worktreesFolder = path.join(root, WORKTREES_FOLDER);
  for (
    let folder = path.dirname(worktreePath);
    folder.startsWith(worktreesFolder) && folder !== worktreesFolder;
    folder = path.dirname(folder)
  ) {
    if (await exists(path.join(folder, '.git'))) {
      throw new WorktreeError({
        code: 'WORKTREE_EXISTS',
        message: `The slug "${slug}" would put a worktree inside the existing worktree ${folder}. Choose a slug that does not start with another worktree's slug.`,
        details: { slug, path: worktreePath, enclosingWorktree: folder },
      });
    }
  }
}

function occupied(worktreePath: string, slug: string, cause?: unknown): WorktreeError {
  return new WorktreeError({
    code: 'WORKTREE_EXISTS',
    message: `${worktreePath} already exists, so no worktree was created for slug "${slug}". Clean up the old worktree (cleanupAgentWorktree) or choose another slug.`,
    details: { slug, path: worktreePath },
    ...(cause === undefined ? {} : { cause }),
  });
}

async function resolveStartPoint(
  root: string,
  startPoint: string,
  options: GitOptions,
): Promise<string> {
  try {
    const output = await runGit(
      root,
      ['rev-parse', '--verify', '--end-of-options', `${startPoint}^{commit}`],
      options,
    );
    return output.trim();
  } catch (error) {
    if (!WorktreeError.hasCode(error, 'GIT_FAILED')) throw error;
    throw new WorktreeError({
      code: 'START_POINT_NOT_FOUND',
      message: `"${startPoint}" is not a commit in ${root}, so there is nothing to branch from. Commit at least once, or pass an existing branch or commit as startPoint.`,
      cause: error,
      details: { root, startPoint },
    });
  }
}

async function checkBranchName(root: string, branch: string, options: GitOptions): Promise<void> {
  try {
    await runGit(root, ['check-ref-format', '--branch', branch], options);
  } catch (error) {
    if (!WorktreeError.hasCode(error, 'GIT_FAILED')) throw error;
    throw new WorktreeError({
      code: 'INVALID_OPTIONS',
      message: `"${branch}" is not a valid branch name. Pick another name (see "git check-ref-format").`,
      cause: error,
      details: { branch },
    });
  }
  try {
    await runGit(root, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], options);
  } catch (error) {
    if (WorktreeError.hasCode(error, 'GIT_FAILED') && error.details.exitCode === 1) return;
    throw error;
  }
  throw branchExists(root, branch);
}

async function createBranch(
  root: string,
  branch: string,
  commit: string,
  options: GitOptions,
): Promise<void> {
  try {
    await runGit(root, ['branch', '--no-track', branch, commit], options);
  } catch (error) {
    if (
      WorktreeError.hasCode(error, 'GIT_FAILED') &&
      /already exists/.test(String(error.details.stderr))
    ) {
      throw branchExists(root, branch, error);
    }
    throw error;
  }
}

function branchExists(root: string, branch: string, cause?: unknown): WorktreeError {
  return new WorktreeError({
    code: 'BRANCH_EXISTS',
    message: `A branch named "${branch}" already exists in ${root}. Pass another branch name, or delete the old branch if it is no longer needed.`,
    details: { root, branch },
    ...(cause === undefined ? {} : { cause }),
  });
}

async function deleteBranchQuietly(
  root: string,
  branch: string,
  commit: string,
  options: GitOptions,
): Promise<string | undefined> {
  try {
    // Deletes the branch only while it still points at the commit we created it on.
    await runGit(root, ['update-ref', '-d', `refs/heads/${branch}`, commit], options);
    return undefined;
  } catch (error) {
    return `deleting branch ${branch}: ${(error as Error).message}`;
  }
}

async function rollBack(
  root: string,
  worktreePath: string,
  branch: string,
  commit: string,
  options: GitOptions,
): Promise<string[]> {
  const problems: string[] = [];
  try {
    await runGit(root, ['worktree', 'remove', '--force', worktreePath], options);
  } catch (error) {
    try {
      await rm(worktreePath, { recursive: true, force: true });
      await runGit(root, ['worktree', 'prune'], options);
    } catch (removeError) {
      problems.push(`git worktree remove: ${(error as Error).message}`);
      problems.push(`deleting the folder: ${(removeError as Error).message}`);
    }
  }
  const branchProblem = await deleteBranchQuietly(root, branch, commit, options);
  if (branchProblem) problems.push(branchProblem);
  await removeEmptyParents(root, worktreePath);
  return problems;
}

async function exists(target: string): Promise<boolean> {
  try {
    await lstat(target);
    return true;
  } catch {
    return false;
  }
}
