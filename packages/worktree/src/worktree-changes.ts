import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { countReflogOnlyCommits, findHiddenEdits } from './hidden-work.js';
import { runGit, type GitOptions } from './run-git.js';
import type { AgentWorktree, GitAgentWorktree } from './types.js';
import { worktreeGitDirectory } from './worktree-record.js';

/** What a change check found. */
export interface WorktreeChangeReport {
  /** True when the worktree must be kept: it has changes, or they could not be checked. */
  hasChanges: boolean;
  /** One sentence for people: what was found, or why the check failed. */
  reason: string;
  /**
   * Paths git reports as modified, staged, deleted or untracked, and edited files that
   * `git status` does not look at because they are marked `assume-unchanged` or
   * `skip-worktree`.
   */
  changedPaths: string[];
  /**
   * Commits on the worktree's HEAD or its branch (counted once) beyond the commit it started
   * from that no other local branch holds (a branch merged elsewhere leaves nothing to lose).
   */
  newCommits: number;
  /**
   * Commits that only the reflog of the worktree's HEAD or branch still names (a reset
   * branch, a commit made on a detached HEAD and left): no branch, tag or remote-tracking
   * branch reaches them, so removing the worktree would make them unreachable.
   */
  reflogOnlyCommits: number;
  /** True when the answer is "keep it" only because the check itself failed. */
  checkFailed: boolean;
}

/**
 * Checks a worktree for uncommitted changes (including untracked files, but not ignored
 * ones, and edits hidden from `git status` by `assume-unchanged` or `skip-worktree`), for
 * commits beyond the one it started from, and for commits only its reflog still names
 * (see {@link WorktreeChangeReport}). Fails closed: if git is missing,
 * fails, times out, or the folder is not a worktree of its own, the report says
 * `hasChanges: true`, because deleting someone's work is worse than keeping an empty
 * folder. Worktrees made by a create hook always report changes.
 */
export async function checkWorktreeChanges(
  worktree: AgentWorktree,
  options: GitOptions = {},
): Promise<WorktreeChangeReport> {
  if (worktree.managedBy === 'hook') {
    return {
      hasChanges: true,
      reason: `${worktree.path} was made by a create hook; muster cannot see changes in it, so it is kept for you to remove.`,
      changedPaths: [],
      newCommits: 0,
      reflogOnlyCommits: 0,
      checkFailed: false,
    };
  }
  try {
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(worktree.headCommit)) {
      throw new Error(
        `the recorded head commit ${JSON.stringify(worktree.headCommit)} is not a commit id`,
      );
    }
    await worktreeGitDirectory(worktree.path, options);
    const status = await runGit(
      worktree.path,
      ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=none'],
      { ...options, extraEnv: { GIT_OPTIONAL_LOCKS: '0' } },
    );
    const shownPaths = await withoutOwnSymlinks(worktree, parseStatus(status));
    const hiddenEdits = await findHiddenEdits(worktree, options);
    const changedPaths = [...new Set([...shownPaths, ...hiddenEdits])].sort();
    // Both tips at once: the branch's commits count even when HEAD switched away from it.
    // Commits another local branch already holds (the branch was merged) are safe elsewhere.
    const otherBranchTips = await otherBranchTipsOf(worktree, options);
    const newCommits = Number.parseInt(
      (
        await runGit(
          worktree.path,
          [
            'rev-list',
            '--count',
            '--end-of-options',
            'HEAD',
            `refs/heads/${worktree.branch}`,
            `^${worktree.headCommit}`,
            ...otherBranchTips.map((tip) => `^${tip}`),
          ],
          options,
        )
      ).trim(),
      10,
    );
    if (Number.isNaN(newCommits)) throw new Error('git rev-list did not print a count');
    const reflogOnlyCommits = await countReflogOnlyCommits(worktree, options);
    const parts: string[] = [];
    if (changedPaths.length > 0) {
      const hidden =
        hiddenEdits.length > 0
          ? ` (${hiddenEdits.length} in files marked assume-unchanged or skip-worktree, which git status does not show)`
          : '';
      parts.push(`${changedPaths.length} uncommitted change(s)${hidden}`);
    }
    if (newCommits > 0) parts.push(`${newCommits} new commit(s) on ${worktree.branch}`);
    if (reflogOnlyCommits > 0) {
      parts.push(
        `${reflogOnlyCommits} commit(s) reachable only from the reflog (a reset branch or a commit on a detached HEAD; "git reflog" in the worktree shows them)`,
      );
    }
    return {
      hasChanges: parts.length > 0,
      reason:
        parts.length > 0
          ? `${worktree.path} has ${parts.join(' and ')}.`
          : `${worktree.path} has no changes.`,
      changedPaths,
      newCommits,
      reflogOnlyCommits,
      checkFailed: false,
    };
  } catch (error) {
    return {
      hasChanges: true,
      reason: `Could not check ${worktree.path} for changes (${(error as Error).message}), so it is kept; inspect it and remove it by hand if it holds nothing you need.`,
      changedPaths: [],
      newCommits: 0,
      reflogOnlyCommits: 0,
      checkFailed: true,
    };
  }
}

/**
 * True when the worktree has uncommitted changes or new commits, or when that cannot be
 * determined (any error means "yes, keep it").
 */
export async function hasWorktreeChanges(
  worktree: AgentWorktree,
  options: GitOptions = {},
): Promise<boolean> {
  return (await checkWorktreeChanges(worktree, options)).hasChanges;
}

interface StatusEntry {
  code: string;
  path: string;
}

function parseStatus(output: string): StatusEntry[] {
  const fields = output.split('\0');
  const entries: StatusEntry[] = [];
  for (let index = 0; index < fields.length; index += 1) {
    const field = fields[index]!;
    if (field.length < 4) continue;
    entries.push({ code: field.slice(0, 2), path: field.slice(3) });
    // Renames and copies are followed by the original path in the next field.
    if (field[0] === 'R' || field[0] === 'C') index += 1;
  }
  return entries;
}

/**
 * Drops untracked entries that are the symlinks muster itself made: a link at `p` that
 * points at `{repositoryRoot}/p` (shared folders such as `node_modules`, hook folders).
 */
async function withoutOwnSymlinks(
  worktree: AgentWorktree,
  entries: StatusEntry[],
): Promise<string[]> {
  const kept: string[] = [];
  for (const { code, path: relativePath } of entries) {
    if (code !== '??') {
      kept.push(relativePath);
      continue;
    }
    const absolute = path.join(worktree.path, relativePath);
    try {
      if (
        (await lstat(absolute)).isSymbolicLink() &&
        (await readlink(absolute)) === path.join(worktree.repositoryRoot, relativePath)
      ) {
        continue;
      }
    } catch {
      // Gone or unreadable: count it as a change.
    }
    kept.push(relativePath);
  }
  return kept;
}

/** The commits the repository's other local branches point at (not the worktree's own branch). */
async function otherBranchTipsOf(
  worktree: GitAgentWorktree,
  options: GitOptions,
): Promise<string[]> {
  const listing = await runGit(
    worktree.path,
    ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/'],
    options,
  );
  const own = `refs/heads/${worktree.branch}`;
  return listing
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter(([tip, reference]) => tip !== undefined && tip !== '' && reference !== own)
    .map(([tip]) => tip as string);
}
