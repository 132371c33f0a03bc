import { readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runGit, type GitOptions } from './run-git.js';
import type { GitAgentWorktree } from './types.js';
import { WorktreeError } from './worktree-error.js';

/**
 * File muster keeps in git's private folder for each worktree (`.git/worktrees/{name}/`).
 * git ignores it and deletes it together with the worktree's other bookkeeping.
 */
export const WORKTREE_RECORD_FILE = 'muster-worktree.json';

/**
 * The git directory of the worktree at `worktreePath`, after checking that git really
 * treats that folder as the top of a working tree. Without the check, a folder whose
 * `.git` file is missing would be read as part of the enclosing main checkout.
 */
export async function worktreeGitDirectory(
  worktreePath: string,
  options: GitOptions,
): Promise<{ gitDirectory: string; commonDirectory: string }> {
  const output = await runGit(
    worktreePath,
    ['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-dir', '--git-common-dir'],
    options,
  );
  const [topLevel, gitDirectory, commonDirectory] = output.trim().split('\n');
  const expected = await realpath(worktreePath);
  if (!topLevel || !gitDirectory || !commonDirectory || (await realpath(topLevel)) !== expected) {
    throw new WorktreeError({
      code: 'GIT_FAILED',
      message: `${worktreePath} is not the top of a git worktree (git sees ${topLevel ?? 'nothing'}); its .git file may be missing or broken. Inspect the folder by hand; muster will not touch it.`,
      details: { path: worktreePath, topLevel },
    });
  }
  return { gitDirectory, commonDirectory };
}

/** Writes the record into the worktree's private git folder. */
export async function writeWorktreeRecord(
  gitDirectory: string,
  worktree: GitAgentWorktree,
): Promise<void> {
  await writeFile(
    path.join(gitDirectory, WORKTREE_RECORD_FILE),
    JSON.stringify({ version: 1, ...worktree }, null, 2),
  );
}

/** Reads a record from a worktree's private git folder; undefined when there is none. */
export async function readWorktreeRecord(
  gitDirectory: string,
): Promise<GitAgentWorktree | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(gitDirectory, WORKTREE_RECORD_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isRecord(parsed)) {
    throw new WorktreeError({
      code: 'CORRUPT_RECORD',
      message: `${path.join(gitDirectory, WORKTREE_RECORD_FILE)} is not a muster worktree record. Remove the file if it is stale; muster then treats the worktree as unknown and keeps it.`,
      details: { path: path.join(gitDirectory, WORKTREE_RECORD_FILE) },
    });
  }
  const { version: _version, ...worktree } = parsed;
  return worktree;
}

/**
 * Reads the worktree muster created at `worktreePath` back from its record, for callers
 * that only kept the path (Claude Code's team config stores only `worktreePath`).
 */
export async function readAgentWorktree(
  worktreePath: string,
  options: GitOptions = {},
): Promise<GitAgentWorktree> {
  const { gitDirectory } = await worktreeGitDirectory(path.resolve(worktreePath), options);
  const record = await readWorktreeRecord(gitDirectory);
  if (!record) {
    throw new WorktreeError({
      code: 'NOT_A_MUSTER_WORKTREE',
      message: `${worktreePath} is a git worktree but muster did not create it (no ${WORKTREE_RECORD_FILE} in ${gitDirectory}). Manage it with "git worktree" directly.`,
      details: { path: worktreePath, gitDirectory },
    });
  }
  return record;
}

function isRecord(value: unknown): value is GitAgentWorktree & { version: number } {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    candidate.managedBy === 'git' &&
    typeof candidate.slug === 'string' &&
    typeof candidate.path === 'string' &&
    typeof candidate.branch === 'string' &&
    typeof candidate.headCommit === 'string' &&
    typeof candidate.repositoryRoot === 'string'
  );
}
