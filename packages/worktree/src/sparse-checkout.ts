import { normalizeRelativePath } from './relative-paths.js';
import { runGit, type GitOptions } from './run-git.js';
import { WorktreeError } from './worktree-error.js';

/** Checks sparse paths without touching the disk; throws `INVALID_OPTIONS`. */
export function checkSparsePaths(sparsePaths: unknown): string[] {
  if (sparsePaths === undefined) return [];
  if (!Array.isArray(sparsePaths)) {
    throw invalidSparseOption(`sparsePaths must be a list of paths, not ${typeof sparsePaths}`);
  }
  return sparsePaths.map((entry) => {
    const result = normalizeRelativePath(entry);
    if ('problem' in result) {
      throw invalidSparseOption(
        `sparsePaths entry ${JSON.stringify(entry)} is not allowed: ${result.problem}`,
      );
    }
    if (result.relativePath.startsWith('!')) {
      throw invalidSparseOption(`sparsePaths entry ${JSON.stringify(entry)} starts with "!"`);
    }
    return result.relativePath;
  });
}

/** The sparse-checkout mode and the lines to hand to `git sparse-checkout set --stdin`. */
export interface SparsePlan {
  mode: 'cone' | 'no-cone';
  lines: string[];
}

/**
 * Chooses the sparse-checkout mode: `cone` when every path is a folder in `commit`,
 * otherwise `no-cone`, where each path that exists in the commit is anchored at the root
 * (`/src/`, `/README.md`) and anything else is passed on as a gitignore-style pattern.
 */
export async function planSparseCheckout(
  root: string,
  commit: string,
  paths: string[],
  mode: 'cone' | 'no-cone' | undefined,
  options: GitOptions,
): Promise<SparsePlan> {
  const input = paths.map((entry) => `${commit}:${entry}\n`).join('');
  const output = await runGit(root, ['cat-file', '--batch-check=%(objecttype)'], {
    ...options,
    input,
  });
  const kinds = output.split('\n').slice(0, paths.length);
  const chosen = mode ?? (kinds.every((kind) => kind === 'tree') ? 'cone' : 'no-cone');
  if (chosen === 'cone') return { mode: 'cone', lines: paths };
  const lines = paths.map((entry, index) => {
    if (kinds[index] === 'tree') return `/${entry}/`;
    if (kinds[index] === 'blob') return `/${entry}`;
    return entry;
  });
  return { mode: 'no-cone', lines };
}

/**
 * Applies the plan to a worktree created with `--no-checkout`, then checks out only the
 * selected files. git keeps the sparse settings in the worktree's own config.
 */
export async function applySparseCheckout(
  worktreePath: string,
  plan: SparsePlan,
  options: GitOptions,
): Promise<void> {
  await runGit(worktreePath, ['sparse-checkout', 'set', `--${plan.mode}`, '--stdin'], {
    ...options,
    input: plan.lines.map((line) => `${line}\n`).join(''),
  });
  await runGit(worktreePath, ['read-tree', '-mu', 'HEAD'], options);
}

function invalidSparseOption(problem: string): WorktreeError {
  return new WorktreeError({
    code: 'INVALID_OPTIONS',
    message: `${problem}. Give folders or files relative to the repository root.`,
    details: { option: 'sparsePaths' },
  });
}
