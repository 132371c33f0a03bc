import { execFileSync } from 'node:child_process';
import { chmod, lstat, readdir, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, isolatedGitEnvironment, makeTempDirectory } from '@muster/test-utils';

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

/**
 * A folder with a `git` wrapper that appends `{subcommand} {exit code}` to `log` after
 * each call to the real git. Put `PATH` from `env` in front to watch what git does.
 */
export async function makeLoggingGit(): Promise<{ env: NodeJS.ProcessEnv; log: string }> {
  const folder = await makeTempDirectory('muster-logging-git-');
  const log = path.join(folder, 'calls.log');
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  await writeFile(log, '');
  await writeFile(
    path.join(folder, 'git'),
    `#!/bin/sh\n'${realGit}' "$@"\ncode=$?\necho "$1 $code" >> '${log}'\nexit $code\n`,
  );
  await chmod(path.join(folder, 'git'), 0o755);
  return { env: { ...isolatedGitEnvironment, PATH: `${folder}:${process.env.PATH}` }, log };
}
