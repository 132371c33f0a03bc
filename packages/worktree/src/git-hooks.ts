import { lstat, mkdir, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from './relative-paths.js';
import { runGit, type GitOptions } from './run-git.js';
import { WorktreeError } from './worktree-error.js';

/** How the new worktree reaches the repository's git hooks. */
export type HooksConnection =
  /** The shared `hooks` folder, an absolute `core.hooksPath`, or a tracked folder. */
  | 'shared'
  /** A relative `core.hooksPath` folder missing from the checkout, linked to the main one. */
  | 'symlinked'
  /** A relative `core.hooksPath` outside the repository, set per worktree as absolute. */
  | 'configured';

/**
 * Makes git hooks run in a new worktree as they do in the main checkout. Worktrees share
 * `$GIT_COMMON_DIR/hooks` by themselves; the case to fix is a relative `core.hooksPath`
 * (husky's `.husky/_`, for instance), which git resolves inside each worktree, where a
 * generated, ignored hooks folder does not exist.
 */
export async function connectGitHooks(
  root: string,
  worktreePath: string,
  options: GitOptions,
): Promise<HooksConnection> {
  const hooksPath = await readConfig(worktreePath, 'core.hooksPath', options);
  if (hooksPath === undefined || path.isAbsolute(hooksPath) || hooksPath.startsWith('~')) {
    return 'shared';
  }
  if (await exists(path.resolve(worktreePath, hooksPath))) return 'shared';
  const mainHooks = path.resolve(root, hooksPath);
  if (!(await isDirectory(mainHooks))) return 'shared';
  if (isInside(root, mainHooks) && mainHooks !== root) {
    const linkPath = path.join(worktreePath, path.relative(root, mainHooks));
    await mkdir(path.dirname(linkPath), { recursive: true });
    await symlink(mainHooks, linkPath, 'dir');
    return 'symlinked';
  }
  await runGit(worktreePath, ['config', 'extensions.worktreeConfig', 'true'], options);
  await runGit(worktreePath, ['config', '--worktree', 'core.hooksPath', mainHooks], options);
  return 'configured';
}

/** Reads one git config value in `cwd`; undefined when it is not set. */
export async function readConfig(
  cwd: string,
  key: string,
  options: GitOptions,
): Promise<string | undefined> {
  try {
    const value = await runGit(cwd, ['config', '--get', key], options);
    return value.replace(/\n$/, '');
  } catch (error) {
    if (WorktreeError.hasCode(error, 'GIT_FAILED') && error.details.exitCode === 1) {
      return undefined;
    }
    throw error;
  }
}

async function exists(target: string): Promise<boolean> {
  try {
    await lstat(target);
    return true;
  } catch {
    return false;
  }
}

async function isDirectory(target: string): Promise<boolean> {
  try {
    return (await stat(target)).isDirectory();
  } catch {
    return false;
  }
}
