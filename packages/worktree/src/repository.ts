import { appendFile, mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { runGit, type GitOptions } from './run-git.js';
import { WorktreeError } from './worktree-error.js';

/** Folder, relative to the repository root, that holds muster's worktrees. */
export const WORKTREES_FOLDER = path.join('.muster', 'worktrees');

/** Where a repository lives on disk. */
export interface RepositoryLocation {
  /** Absolute path of the main working tree (the checkout that owns `.git`). */
  root: string;
  /** Absolute path of the git directory every worktree shares (usually `{root}/.git`). */
  commonDirectory: string;
}

/**
 * Finds the repository that contains `somePath` (a folder or file anywhere inside it,
 * including inside one of its linked worktrees) and returns its main working tree.
 * Throws `PATH_NOT_FOUND` or `NOT_A_GIT_REPOSITORY` with what to do next.
 */
export async function resolveRepository(
  somePath: string,
  options: GitOptions = {},
): Promise<RepositoryLocation> {
  const absolute = path.resolve(somePath);
  const folder = await folderOf(absolute);
  let output: string;
  try {
    output = await runGit(
      folder,
      ['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir'],
      options,
    );
  } catch (error) {
    if (WorktreeError.hasCode(error, 'GIT_FAILED')) {
      throw new WorktreeError({
        code: 'NOT_A_GIT_REPOSITORY',
        message: `${absolute} is not inside a git working tree (${String(error.details.stderr).trim()}). Pass a path inside a git checkout, or run "git init" there first.`,
        cause: error,
        details: { path: absolute },
      });
    }
    throw error;
  }
  const [topLevel, commonDirectory] = output.trim().split('\n');
  if (!topLevel || !commonDirectory) {
    throw new WorktreeError({
      code: 'GIT_FAILED',
      message: `git rev-parse printed ${JSON.stringify(output)} in ${folder}, not a working tree and a git directory. Check the git installation.`,
      details: { path: absolute, output },
    });
  }
  return { root: await mainWorkingTree(topLevel, options), commonDirectory };
}

/** The absolute folder a worktree with this slug gets inside `root`. */
export function worktreePathFor(root: string, slug: string): string {
  return path.join(root, WORKTREES_FOLDER, ...slug.split('/'));
}

/**
 * Makes sure `.muster/` is listed in the repository's `info/exclude`, so muster's
 * worktrees never show up as untracked files in any checkout. Appends only; existing
 * lines are never rewritten.
 */
export async function excludeMusterFolder(commonDirectory: string): Promise<void> {
  const excludeFile = path.join(commonDirectory, 'info', 'exclude');
  let current = '';
  try {
    current = await readFile(excludeFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(path.dirname(excludeFile), { recursive: true });
  }
  const alreadyListed = current
    .split('\n')
    .some((line) => ['.muster', '.muster/', '/.muster', '/.muster/'].includes(line.trim()));
  if (alreadyListed) return;
  const separator = current === '' || current.endsWith('\n') ? '' : '\n';
  await appendFile(excludeFile, `${separator}# muster agent worktrees\n/.muster/\n`);
}

async function folderOf(absolute: string): Promise<string> {
  try {
    const info = await stat(absolute);
    return info.isDirectory() ? absolute : path.dirname(absolute);
  } catch {
    throw new WorktreeError({
      code: 'PATH_NOT_FOUND',
      message: `${absolute} does not exist. Pass the path of a git checkout (or any folder inside one).`,
      details: { path: absolute },
    });
  }
}

async function mainWorkingTree(topLevel: string, options: GitOptions): Promise<string> {
  const [main] = await listGitWorktrees(topLevel, options);
  if (!main || main.bare) return topLevel;
  return main.path;
}

/** One entry of `git worktree list`. */
export interface GitWorktreeEntry {
  /** Absolute path git has recorded for the worktree. */
  path: string;
  /** Commit checked out, when git knows it. */
  head?: string;
  /** Full ref of the checked-out branch (`refs/heads/…`), when not detached. */
  branch?: string;
  bare: boolean;
  /** Present when git considers the worktree prunable (its folder is gone); git's reason. */
  prunable?: string;
}

/** Every worktree git knows for the repository around `cwd`, the main one first. */
export async function listGitWorktrees(
  cwd: string,
  options: GitOptions = {},
): Promise<GitWorktreeEntry[]> {
  const output = await runGit(cwd, ['worktree', 'list', '--porcelain', '-z'], options);
  const entries: GitWorktreeEntry[] = [];
  let current: GitWorktreeEntry | undefined;
  for (const field of output.split('\0')) {
    if (field === '') {
      current = undefined;
      continue;
    }
    const space = field.indexOf(' ');
    const name = space === -1 ? field : field.slice(0, space);
    const value = space === -1 ? '' : field.slice(space + 1);
    if (name === 'worktree') {
      current = { path: value, bare: false };
      entries.push(current);
    } else if (current && name === 'HEAD') current.head = value;
    else if (current && name === 'branch') current.branch = value;
    else if (current && name === 'bare') current.bare = true;
    else if (current && name === 'prunable') current.prunable = value;
  }
  return entries;
}
