import { lstat, mkdir, realpath, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { isInside, normalizeRelativePath } from './relative-paths.js';
import { WorktreeError } from './worktree-error.js';

/** A folder of the main checkout that a new worktree will link to. */
export interface PlannedSymlink {
  /** Path relative to the root, `/`-separated. */
  relativePath: string;
  /** Absolute path in the main checkout that the link will point at. */
  target: string;
}

/** Checks the option's syntax without touching the disk; throws `INVALID_OPTIONS`. */
export function checkSymlinkDirectoryNames(directories: unknown): string[] {
  if (!Array.isArray(directories)) {
    throw invalidOption(`symlinkDirectories must be a list of paths, not ${typeof directories}`);
  }
  return directories.map((directory) => {
    const result = normalizeRelativePath(directory);
    if ('problem' in result) {
      throw invalidOption(
        `symlinkDirectories entry ${JSON.stringify(directory)} is not allowed: ${result.problem}`,
      );
    }
    const first = result.relativePath.split('/')[0];
    if (first === '.git' || first === '.muster') {
      throw invalidOption(
        `symlinkDirectories entry ${JSON.stringify(directory)} names git's or muster's own folder`,
      );
    }
    return result.relativePath;
  });
}

/**
 * Decides which folders to link: those that exist in the main checkout. Throws
 * `SYMLINK_ESCAPES_REPOSITORY` when a folder (or a symlink it goes through) resolves to
 * a place outside the repository, before anything is created.
 */
export async function planDirectorySymlinks(
  root: string,
  relativePaths: string[],
): Promise<PlannedSymlink[]> {
  const realRoot = await realpath(root);
  const planned: PlannedSymlink[] = [];
  for (const relativePath of relativePaths) {
    const target = path.join(root, relativePath);
    try {
      await lstat(target);
    } catch {
      continue;
    }
    let resolved: string;
    try {
      resolved = await realpath(target);
    } catch (error) {
      throw new WorktreeError({
        code: 'SYMLINK_ESCAPES_REPOSITORY',
        message: `${target} is a broken symlink, so it cannot be shared with the worktree. Fix or remove it, or leave ${relativePath} out of symlinkDirectories.`,
        cause: error,
        details: { path: target },
      });
    }
    if (!isInside(realRoot, resolved) || resolved === realRoot) {
      throw new WorktreeError({
        code: 'SYMLINK_ESCAPES_REPOSITORY',
        message: `${target} resolves to ${resolved}, outside the repository ${realRoot}; muster only links folders inside the repository. Leave ${relativePath} out of symlinkDirectories or make it a real folder.`,
        details: { path: target, resolved, root: realRoot },
      });
    }
    if (!(await stat(resolved)).isDirectory()) continue;
    planned.push({ relativePath, target });
  }
  return planned;
}

/**
 * Creates the planned links inside the worktree. A path the checkout already has (a
 * tracked folder) is left as it is. Returns the paths that were linked.
 */
export async function createDirectorySymlinks(
  worktreePath: string,
  planned: PlannedSymlink[],
): Promise<string[]> {
  const linked: string[] = [];
  for (const { relativePath, target } of planned) {
    const linkPath = path.join(worktreePath, relativePath);
    if (await exists(linkPath)) continue;
    await mkdir(path.dirname(linkPath), { recursive: true });
    await symlink(target, linkPath, 'dir');
    linked.push(relativePath);
  }
  return linked;
}

async function exists(target: string): Promise<boolean> {
  try {
    await lstat(target);
    return true;
  } catch {
    return false;
  }
}

function invalidOption(problem: string): WorktreeError {
  return new WorktreeError({
    code: 'INVALID_OPTIONS',
    message: `${problem}. Give paths relative to the repository root, inside it.`,
    details: { option: 'symlinkDirectories' },
  });
}
