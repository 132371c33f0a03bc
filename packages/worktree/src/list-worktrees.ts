import { readdir, readFile, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import {
  listGitWorktrees,
  resolveRepository,
  WORKTREES_FOLDER,
  type RepositoryLocation,
} from './repository.js';
import {
  cleanupAgentWorktree,
  interruptedCleanupOrigin,
  type WorktreeCleanupResult,
} from './cleanup-worktree.js';
import type { WorktreeRemoval } from './remove-worktree.js';
import { runGit, type GitOptions } from './run-git.js';
import type { GitAgentWorktree } from './types.js';
import { checkWorktreeChanges } from './worktree-changes.js';
import { readWorktreeRecord } from './worktree-record.js';

/**
 * - `missing`: git still lists the worktree, but its folder is gone.
 * - `changed`: the folder is there and has uncommitted changes or new commits, or that
 *   could not be checked (no muster record, git failing, not registered with git).
 * - `orphaned`: the folder is there, has no changes, and the process that created it
 *   (same host) is no longer running.
 * - `clean`: the folder is there, has no changes, and its owner is still running.
 */
export type AgentWorktreeState = 'clean' | 'changed' | 'missing' | 'orphaned';

/** One of muster's worktrees in a repository, with its state. */
export interface AgentWorktreeStatus {
  slug: string;
  path: string;
  state: AgentWorktreeState;
  /** One sentence saying why it has this state. */
  reason: string;
  /** True when git lists it in `git worktree list`. */
  registered: boolean;
  /** The branch checked out there, when known. */
  branch?: string;
  /** muster's record of it, when there is one; pass it to cleanup or removal. */
  worktree?: GitAgentWorktree;
}

/**
 * Lists the worktrees under `{root}/.muster/worktrees` of the repository around `repo`,
 * registered with git or not, sorted by slug, each with its state (see
 * {@link AgentWorktreeState}). Reads only; changes nothing.
 */
export async function listAgentWorktrees(
  repo: string,
  options: GitOptions = {},
): Promise<AgentWorktreeStatus[]> {
  const location = await resolveRepository(repo, options);
  return listIn(location, options);
}

/** What `pruneAgentWorktrees` did. */
export interface WorktreePruneResult {
  /** Orphaned worktrees that were removed. */
  removed: WorktreeRemoval[];
  /** Orphaned worktrees kept after all, because the re-check before removal found changes. */
  kept: Extract<WorktreeCleanupResult, { kept: true }>[];
  /** Every worktree as it was listed before pruning. */
  listed: AgentWorktreeStatus[];
}

/**
 * Removes muster's `orphaned` worktrees (no changes, owner process gone), each after a
 * fresh change check, then runs `git worktree prune` so git forgets worktrees whose
 * folders are gone. Never touches `changed`, `clean` (owner alive) or unregistered ones.
 */
export async function pruneAgentWorktrees(
  repo: string,
  options: GitOptions = {},
): Promise<WorktreePruneResult> {
  const location = await resolveRepository(repo, options);
  const listed = await listIn(location, options);
  const removed: WorktreeRemoval[] = [];
  const kept: WorktreePruneResult['kept'] = [];
  for (const entry of listed) {
    if (entry.state !== 'orphaned' || !entry.worktree) continue;
    const result = await cleanupAgentWorktree(entry.worktree, options);
    if (result.kept) kept.push(result);
    else {
      const { kept: _kept, ...removal } = result;
      removed.push(removal);
    }
  }
  await runGit(location.root, ['worktree', 'prune'], options);
  return { removed, kept, listed };
}

async function listIn(
  location: RepositoryLocation,
  options: GitOptions,
): Promise<AgentWorktreeStatus[]> {
  const worktreesFolder = path.join(location.root, WORKTREES_FOLDER);
  const administrativeFolders = await mapAdministrativeFolders(location.commonDirectory);
  const registered = (await listGitWorktrees(location.root, options)).filter((entry) =>
    entry.path.startsWith(`${worktreesFolder}${path.sep}`),
  );
  const statuses: AgentWorktreeStatus[] = [];
  for (const entry of registered) {
    const slug = path.relative(worktreesFolder, entry.path).split(path.sep).join('/');
    const branch = entry.branch?.replace(/^refs\/heads\//, '');
    const base = { slug, path: entry.path, registered: true, ...(branch ? { branch } : {}) };
    const administrativeFolder = administrativeFolders.get(entry.path);
    let record: GitAgentWorktree | undefined;
    let recordProblem = 'muster has no record of it';
    try {
      record = administrativeFolder ? await readWorktreeRecord(administrativeFolder) : undefined;
    } catch (error) {
      recordProblem = (error as Error).message;
    }
    const withRecord = record ? { ...base, worktree: record } : base;
    if (!(await isDirectory(entry.path))) {
      const aside = await findMovedAside(entry.path);
      if (aside !== undefined) {
        statuses.push({
          ...withRecord,
          state: 'missing',
          reason: `An interrupted cleanup moved ${entry.path} to ${aside}; git keeps it (locked), so nothing is lost. ${undoInterruptedCleanup(aside, entry.path)}`,
        });
        continue;
      }
      statuses.push({
        ...withRecord,
        state: 'missing',
        reason: `git still lists ${entry.path}, but the folder is gone; "git worktree prune" (or pruneAgentWorktrees) makes git forget it${branch ? `, and branch ${branch} stays` : ''}.`,
      });
      continue;
    }
    const origin = interruptedCleanupOrigin(entry.path);
    if (record && origin !== undefined && record.path !== entry.path) {
      statuses.push({
        ...withRecord,
        state: 'changed',
        reason: `An interrupted cleanup left ${origin} here, at ${entry.path}; it is kept. ${undoInterruptedCleanup(entry.path, origin)}`,
      });
      continue;
    }
    if (!record) {
      statuses.push({
        ...withRecord,
        state: 'changed',
        reason: `${recordProblem}, so its new commits cannot be told apart; it is treated as changed and kept.`,
      });
      continue;
    }
    const report = await checkWorktreeChanges(record, options);
    if (report.hasChanges) {
      statuses.push({ ...withRecord, state: 'changed', reason: report.reason });
    } else if (ownerIsAlive(record)) {
      statuses.push({
        ...withRecord,
        state: 'clean',
        reason: `No changes; its owner (process ${record.ownerProcessId}) is still running.`,
      });
    } else {
      statuses.push({
        ...withRecord,
        state: 'orphaned',
        reason: `No changes, and its owner (process ${record.ownerProcessId} on ${record.ownerHostname}) is gone.`,
      });
    }
  }
  const known = new Set(registered.map((entry) => entry.path));
  for (const folder of await findWorktreeFolders(worktreesFolder)) {
    if (known.has(folder)) continue;
    const origin = interruptedCleanupOrigin(folder);
    statuses.push({
      slug: path.relative(worktreesFolder, folder).split(path.sep).join('/'),
      path: folder,
      registered: false,
      state: 'changed',
      reason:
        origin !== undefined
          ? `An interrupted cleanup moved ${origin} here, and git still knows it by its old path; it is kept. ${undoInterruptedCleanup(folder, origin)}`
          : `git does not list ${folder} as a worktree, so it cannot be checked for changes; it is left alone. Inspect it and delete it by hand if it holds nothing you need.`,
    });
  }
  return statuses.sort((left, right) => left.slug.localeCompare(right.slug));
}

/** Where an interrupted cleanup moved the worktree at `worktreePath`, if it did. */
async function findMovedAside(worktreePath: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = await readdir(path.dirname(worktreePath));
  } catch {
    return undefined;
  }
  const name = names.find(
    (candidate) =>
      interruptedCleanupOrigin(path.join(path.dirname(worktreePath), candidate)) === worktreePath,
  );
  return name === undefined ? undefined : path.join(path.dirname(worktreePath), name);
}

function undoInterruptedCleanup(aside: string, origin: string): string {
  return `To undo it, move ${aside} back to ${origin}, then run "git worktree repair ${origin}" and "git worktree unlock ${origin}" in the main checkout.`;
}

/** Maps each worktree path to git's private folder for it (`.git/worktrees/{name}`). */
async function mapAdministrativeFolders(commonDirectory: string): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  const parent = path.join(commonDirectory, 'worktrees');
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return map;
  }
  for (const name of names) {
    try {
      const gitFile = (await readFile(path.join(parent, name, 'gitdir'), 'utf8')).trim();
      map.set(path.dirname(gitFile), path.join(parent, name));
    } catch {
      // Not a worktree folder git would use either.
    }
  }
  return map;
}

/** Folders under `root` that hold a `.git` entry; does not descend into them. */
async function findWorktreeFolders(root: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (folder: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    if (folder !== root && entries.some((entry) => entry.name === '.git')) {
      found.push(folder);
      return;
    }
    if (depth > 32) return;
    for (const entry of entries) {
      if (entry.isDirectory()) await visit(path.join(folder, entry.name), depth + 1);
    }
  };
  await visit(root, 0);
  return found;
}

function ownerIsAlive(record: GitAgentWorktree): boolean {
  if (!Number.isInteger(record.ownerProcessId) || record.ownerHostname !== hostname()) {
    return true;
  }
  try {
    process.kill(record.ownerProcessId, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function isDirectory(folder: string): Promise<boolean> {
  try {
    return (await stat(folder)).isDirectory();
  } catch {
    return false;
  }
}
