import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import path from 'node:path';
import { describeFolderUsers, findFolderUsers } from './folder-users.js';
import {
  deleteUnchangedBranch,
  removeEmptyParents,
  type WorktreeRemoval,
} from './remove-worktree.js';
import { runGit, type GitOptions } from './run-git.js';
import type { AgentWorktree, GitAgentWorktree } from './types.js';
import { checkWorktreeChanges } from './worktree-changes.js';
import { describeRemains, pointGitAtWorktree } from './worktree-location.js';
import { worktreeGitDirectory, writeWorktreeRecord } from './worktree-record.js';

/** What `cleanupAgentWorktree` did: kept (with the reason to show) or removed. */
export type WorktreeCleanupResult =
  | {
      kept: true;
      /** Where the worktree is now: its own path, or (rarely) the name it was moved aside to. */
      path: string;
      branch?: string;
      reason: string;
    }
  | ({ kept: false } & WorktreeRemoval);

/**
 * Removes a worktree when it has nothing worth keeping, and otherwise keeps it and says
 * why, so the caller can show the user the path and branch. It cannot race a process
 * still writing there:
 *
 * 1. {@link checkWorktreeChanges} (fail closed) must find nothing, and no process may
 *    have the folder as its working folder or hold a file in it open (Linux `/proc`).
 * 2. The point of no return: the worktree is locked (`git worktree lock`, so that no
 *    `git worktree prune` forgets it while it is away), the folder is renamed, atomically,
 *    to a fresh name beside it (`{path}.muster-removing-{random}`), and git's link to it
 *    (`.git/worktrees/{name}/gitdir`) is pointed there ({@link pointGitAtWorktree}; never
 *    `git worktree repair`, which writes into every other worktree, including one a
 *    concurrent cleanup is deleting). From then on nothing written to the worktree's path
 *    lands in it.
 * 3. The moved folder is checked again, the same way. Anything found (a file written
 *    just before the move, a process that got in) and it is moved back and kept; if its
 *    path was taken in the meantime, it is kept under the new name and the result says so.
 * 4. Only then does `git worktree remove --force --force` delete it, and the branch is
 *    deleted when it has no commits beyond the start commit.
 *
 * Any error on the way means "keep it". Worktrees made by a create hook are always kept.
 */
export async function cleanupAgentWorktree(
  worktree: AgentWorktree,
  options: GitOptions = {},
): Promise<WorktreeCleanupResult> {
  if (worktree.managedBy === 'hook') {
    return {
      kept: true,
      path: worktree.path,
      reason: `${worktree.path} was made by a create hook; muster never removes those. Remove it with the tool that created it.`,
    };
  }
  const kept = (reason: string): WorktreeCleanupResult => ({
    kept: true,
    path: worktree.path,
    branch: worktree.branch,
    reason,
  });
  const before = await findReasonToKeep(worktree, options);
  if (before !== undefined) return kept(before);

  let directories: { gitDirectory: string; commonDirectory: string };
  // Recognised by interruptedCleanupOrigin: 12 hex digits.
  const aside = `${worktree.path}.muster-removing-${randomBytes(6).toString('hex')}`;
  try {
    directories = await worktreeGitDirectory(worktree.path, options);
  } catch (error) {
    return kept(
      `Could not find git's folder for ${worktree.path} (${(error as Error).message}), so it is kept; inspect it and remove it by hand if it holds nothing you need.`,
    );
  }
  if (existsSync(path.join(directories.gitDirectory, 'locked'))) {
    return kept(
      `${worktree.path} is locked ("git worktree lock"), so muster leaves it alone. Run "git worktree unlock ${worktree.path}" first if it should go.`,
    );
  }
  const lockReason = `muster is removing this worktree; if this lock stays, the cleanup was interrupted: move ${aside} back to ${worktree.path}, then run "git worktree repair ${worktree.path}" and "git worktree unlock ${worktree.path}"`;
  try {
    await git(
      directories.commonDirectory,
      ['worktree', 'lock', '--reason', lockReason, worktree.path],
      options,
    );
  } catch (error) {
    return kept(
      `${worktree.path} has no changes, but git could not lock it for removal (${(error as Error).message}), so it is kept. Remove it by hand if it holds nothing you need.`,
    );
  }
  try {
    await rename(worktree.path, aside);
  } catch (error) {
    const unlocked = await unlock(directories.commonDirectory, worktree.path, options);
    return kept(
      `${worktree.path} has no changes, but could not be moved aside for removal (${(error as Error).message}), so it is kept.${unlocked} Remove it by hand if it holds nothing you need.`,
    );
  }
  try {
    await pointGitAtWorktree(directories.gitDirectory, aside);
  } catch (error) {
    return restore(
      worktree,
      aside,
      directories,
      `git could not be pointed at the name ${worktree.path} was moved to for removal (${(error as Error).message}), so it is kept.`,
      options,
    );
  }

  // The folder no longer answers to its path: check it once more, where it is now.
  const moved: GitAgentWorktree = { ...worktree, path: aside };
  const after = await findReasonToKeep(moved, options);
  if (after !== undefined) {
    return restore(
      worktree,
      aside,
      directories,
      `Something changed while ${worktree.path} was being removed, so it is kept: ${after}`,
      options,
    );
  }
  try {
    // Twice --force: once for "no check", once for the lock cleanup itself took.
    await git(
      directories.commonDirectory,
      ['worktree', 'remove', '--force', '--force', aside],
      options,
    );
  } catch (error) {
    const remains = await describeRemains(aside, directories.gitDirectory);
    return restore(
      worktree,
      aside,
      directories,
      `git could not remove ${worktree.path} (${(error as Error).message}; ${remains}), so it is kept.`,
      options,
    );
  }
  await removeEmptyParents(worktree.repositoryRoot, worktree.path);
  const branchOutcome = await deleteUnchangedBranch(directories.commonDirectory, worktree, options);
  return {
    kept: false,
    path: worktree.path,
    branch: worktree.branch,
    removedBy: 'git',
    ...branchOutcome,
    ...(existsSync(worktree.path) ? { leftBehind: worktree.path } : {}),
  };
}

/**
 * Why the worktree must be kept (a process using it, changes, a failed check), or
 * undefined. Processes are looked at first: once none holds the folder (as working folder,
 * root or open file) after it was moved aside, nothing can reach it any more, so the
 * change check that follows sees its final contents.
 */
async function findReasonToKeep(
  worktree: GitAgentWorktree,
  options: GitOptions,
): Promise<string | undefined> {
  const users = await checkUsers(worktree.path);
  if (users !== undefined) return users;
  const report = await checkWorktreeChanges(worktree, options);
  return report.hasChanges ? report.reason : undefined;
}

async function checkUsers(folder: string): Promise<string | undefined> {
  try {
    const users = await findFolderUsers(folder);
    if (users === undefined || users.length === 0) return undefined;
    return `${folder} is in use by ${describeFolderUsers(users)}, which could still write there; it is kept. Stop those processes (or let them leave the folder), then clean up again.`;
  } catch (error) {
    return `Could not check which processes use ${folder} (${(error as Error).message}), so it is kept; inspect it and remove it by hand if it holds nothing you need.`;
  }
}

/**
 * Renames the worktree back to its path (refused when something else now occupies it),
 * tells git and unlocks it; when the rename fails, keeps it where it is and says so.
 */
async function restore(
  worktree: GitAgentWorktree,
  aside: string,
  directories: { gitDirectory: string; commonDirectory: string },
  reason: string,
  options: GitOptions,
): Promise<WorktreeCleanupResult> {
  let at = worktree.path;
  let note = '';
  try {
    // rename() replaces only an empty folder; one holding anything fails with ENOTEMPTY.
    await rename(aside, worktree.path);
  } catch (error) {
    at = aside;
    note = ` It could not be moved back to ${worktree.path} (${(error as Error).message}), so it is kept at ${aside}; move it back once that path is free.`;
    try {
      await writeWorktreeRecord(directories.gitDirectory, { ...worktree, path: aside });
    } catch (recordError) {
      note += ` muster's record of it still names the old path (${(recordError as Error).message}).`;
    }
  }
  try {
    await pointGitAtWorktree(directories.gitDirectory, at);
  } catch (error) {
    note += ` git could not be told where it is (${(error as Error).message}); run "git worktree repair ${at}" and "git worktree unlock ${at}" in the main checkout.`;
    return { kept: true, path: at, branch: worktree.branch, reason: `${reason}${note}` };
  }
  note += await unlock(directories.commonDirectory, at, options);
  return { kept: true, path: at, branch: worktree.branch, reason: `${reason}${note}` };
}

/** Removes the lock cleanup took; returns "" or a sentence saying it could not. */
async function unlock(commonDirectory: string, at: string, options: GitOptions): Promise<string> {
  try {
    await git(commonDirectory, ['worktree', 'unlock', at], options);
    return '';
  } catch (error) {
    return ` It is still locked (${(error as Error).message}); run "git worktree unlock ${at}".`;
  }
}

/**
 * When `folder` is the name an interrupted cleanup moved a worktree to, the worktree's
 * own path; otherwise undefined.
 */
export function interruptedCleanupOrigin(folder: string): string | undefined {
  const match = /^(.+)\.muster-removing-[0-9a-f]{12}$/.exec(folder);
  return match?.[1];
}

/** Runs git against a repository named by its common git directory. */
function git(commonDirectory: string, args: string[], options: GitOptions): Promise<string> {
  return runGit(commonDirectory, [`--git-dir=${commonDirectory}`, ...args], options);
}
