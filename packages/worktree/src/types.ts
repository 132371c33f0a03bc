import type { GitOptions } from './run-git.js';

/** A worktree muster created with git. Keep it: every other operation takes it back. */
export interface GitAgentWorktree {
  managedBy: 'git';
  /** The slug it was created for, e.g. `team-a/researcher`. */
  slug: string;
  /** Absolute path: `{repositoryRoot}/.muster/worktrees/{slug}`. */
  path: string;
  /** The branch created for it, e.g. `muster-wt-1732280000000-team-a+researcher`. */
  branch: string;
  /** The commit the worktree started from; later commits count as changes. */
  headCommit: string;
  /** Absolute path of the main checkout the worktree belongs to. */
  repositoryRoot: string;
  /** When it was created (ISO 8601). */
  createdAt: string;
  /** Process that owns it; when that process is gone, a clean worktree is an orphan. */
  ownerProcessId: number;
  /** Host name of the owning process (liveness is only judged on the same host). */
  ownerHostname: string;
  /** Paths (relative to the root) symlinked from the main checkout, e.g. `node_modules`. */
  symlinkedDirectories: string[];
  /** Ignored paths copied because `.worktreeinclude` lists them (folders end in `/`). */
  copiedPaths: string[];
  /** The sparse-checkout paths applied, or an empty list for a full checkout. */
  sparsePaths: string[];
}

/** A worktree made by a create hook. muster never removes it; the hook's owner does. */
export interface HookAgentWorktree {
  managedBy: 'hook';
  slug: string;
  /** Absolute path the hook printed. */
  path: string;
  /** Absolute path of the folder the hook ran in. */
  repositoryRoot: string;
  createdAt: string;
}

/** What `createAgentWorktree` returns and the other operations take. */
export type AgentWorktree = GitAgentWorktree | HookAgentWorktree;

/**
 * A command that creates worktrees instead of git (for other version control systems).
 * It runs without a shell, in the repository folder, with `MUSTER_WORKTREE_SLUG`,
 * `MUSTER_REPOSITORY_ROOT` and `MUSTER_WORKTREE_PATH` (the suggested path) in its
 * environment and the same facts as JSON on standard input. It must print the path of
 * the folder it created as the last line of its standard output and exit with 0.
 */
export interface WorktreeCreateHook {
  /** The executable, e.g. `/usr/local/bin/make-workspace` or `sh`. */
  command: string;
  /** Its arguments, passed as they are. */
  args?: string[];
  /** Time limit in milliseconds (default 300 000). */
  timeoutMs?: number;
}

/** Settings for `createAgentWorktree`. */
export interface CreateAgentWorktreeOptions extends GitOptions {
  /**
   * Folders (relative to the root) symlinked from the main checkout instead of copied,
   * when they exist there. Default `['node_modules']`. Each must stay inside the repository.
   */
  symlinkDirectories?: string[];
  /** Check out only these paths (sparse checkout). Omitted or empty: everything. */
  sparsePaths?: string[];
  /**
   * `cone` takes folders; `no-cone` takes gitignore-style patterns. Default: `cone` when
   * every path is a folder in the start commit, otherwise `no-cone` with each existing
   * path anchored at the root and anything else passed as a pattern.
   */
  sparseMode?: 'cone' | 'no-cone';
  /** What to branch from (default `HEAD` of the main checkout). */
  startPoint?: string;
  /** Branch name to create (default `muster-wt-{timestamp}-{slug}`); must not exist. */
  branch?: string;
  /** Copy ignored files listed in `.worktreeinclude` (default true). */
  copyIncludedFiles?: boolean;
  /** Process that owns the worktree (default this process). */
  ownerProcessId?: number;
  /** Replaces git entirely (see {@link WorktreeCreateHook}). */
  createHook?: WorktreeCreateHook;
}
