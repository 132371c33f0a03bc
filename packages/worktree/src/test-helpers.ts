import { readdir, lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { git, isolatedGitEnvironment } from '@muster/test-utils';

/** Options that keep the library's git calls away from the user's configuration. */
export const testGitOptions = { env: isolatedGitEnvironment };

/**
 * Every path under `folder` (recursively, including `.git`), with the symlink target or
 * file size, sorted: a cheap fingerprint of what exists on disk.
 */
export async function snapshotTree(folder: string): Promise<string[]> {
  const lines: string[] = [];
  const visit = async (current: string): Promise<void> => {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const absolute = path.join(current, entry.name);
      const relative = path.relative(folder, absolute);
      if (entry.isSymbolicLink()) lines.push(`${relative} -> ${await readlink(absolute)}`);
      else if (entry.isDirectory()) {
        lines.push(`${relative}/`);
        await visit(absolute);
      } else lines.push(`${relative} ${(await lstat(absolute)).size}`);
    }
  };
  await visit(folder);
  return lines.sort();
}

/** `git worktree list` and `git branch --list` of a repository, for before/after checks. */
export async function snapshotGit(repositoryPath: string): Promise<string[]> {
  return [
    await git(repositoryPath, 'worktree', 'list', '--porcelain'),
    await git(repositoryPath, 'branch', '--list', '--all'),
  ];
}
