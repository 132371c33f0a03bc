import { cp, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseIncludePatterns, patternsReachDirectory } from './include-patterns.js';
import { runGit, type GitOptions } from './run-git.js';

/** The file, at the repository root, that lists ignored files worth copying. */
export const WORKTREE_INCLUDE_FILE = '.worktreeinclude';

const pathspecBatchSize = 500;

/**
 * Lists the paths in the main checkout that git ignores AND `.worktreeinclude` matches
 * (folders that match as a whole end in `/`). One `git ls-files --directory` call lists
 * ignored paths with fully ignored folders collapsed; only the collapsed folders some
 * pattern reaches into are handed to a second, scoped `git ls-files` that applies the
 * `.worktreeinclude` patterns. Paths equal to or under `skip` entries are left out.
 */
export async function findIncludedIgnoredPaths(
  root: string,
  skip: string[],
  options: GitOptions,
): Promise<string[]> {
  const includeFile = path.join(root, WORKTREE_INCLUDE_FILE);
  let includeText: string;
  try {
    includeText = await readFile(includeFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const patterns = parseIncludePatterns(includeText);
  if (!patterns.some((pattern) => !pattern.negated)) return [];
  const isSkipped = (entry: string) =>
    skip.some((skipped) => entry === skipped || entry.startsWith(`${skipped}/`));

  const ignored = splitNul(
    await runGit(
      root,
      ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'],
      options,
    ),
  );
  const pathspecs = ignored
    .filter((entry) => !isSkipped(entry.replace(/\/$/, '')))
    .filter((entry) => !entry.endsWith('/') || patternsReachDirectory(patterns, entry));
  if (pathspecs.length === 0) return [];

  const matched = new Set<string>();
  for (let start = 0; start < pathspecs.length; start += pathspecBatchSize) {
    const batch = pathspecs.slice(start, start + pathspecBatchSize);
    const output = await runGit(
      root,
      [
        '--literal-pathspecs',
        'ls-files',
        '-z',
        '--others',
        '--ignored',
        `--exclude-from=${includeFile}`,
        '--directory',
        '--',
        ...batch,
      ],
      options,
    );
    for (const entry of splitNul(output)) matched.add(entry);
  }
  const folders = [...matched].filter((entry) => entry.endsWith('/'));
  return [...matched]
    .filter((entry) => !isSkipped(entry.replace(/\/$/, '')))
    .filter((entry) => !folders.some((folder) => folder !== entry && entry.startsWith(folder)))
    .sort();
}

/** Copies the listed paths from the main checkout into the worktree, never overwriting. */
export async function copyIncludedPaths(
  root: string,
  worktreePath: string,
  relativePaths: string[],
): Promise<void> {
  for (const relativePath of relativePaths) {
    const source = path.join(root, relativePath);
    const destination = path.join(worktreePath, relativePath);
    await mkdir(path.dirname(destination.replace(/\/$/, '')), { recursive: true });
    await cp(source, destination, {
      recursive: true,
      force: false,
      errorOnExist: false,
      verbatimSymlinks: true,
      preserveTimestamps: true,
    });
  }
}

function splitNul(output: string): string[] {
  return output.split('\0').filter((entry) => entry !== '');
}
