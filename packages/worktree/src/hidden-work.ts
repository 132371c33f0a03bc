import { createHash } from 'node:crypto';
import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { runGit, type GitOptions } from './run-git.js';
import type { GitAgentWorktree } from './types.js';

/**
 * Commits named by the reflog of the worktree's HEAD or of its branch that no branch, tag
 * or remote-tracking branch of the repository reaches, and that are not part of the
 * commit the worktree started from. Removing the worktree deletes its HEAD reflog (and
 * deleting the branch deletes the branch's), after which such commits are unreachable:
 * a branch reset with `git reset --hard`, or a commit made on a detached HEAD and then
 * left by switching back. Throws when git fails; the caller then keeps the worktree.
 */
export async function countReflogOnlyCommits(
  worktree: GitAgentWorktree,
  options: GitOptions,
): Promise<number> {
  const named = new Set<string>();
  const output = await runGit(
    worktree.path,
    [
      'log',
      '--walk-reflogs',
      '--format=%H',
      '--end-of-options',
      'HEAD',
      `refs/heads/${worktree.branch}`,
    ],
    options,
  );
  for (const line of output.split('\n')) {
    const commit = line.trim();
    if (commit === '') continue;
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) {
      throw new Error(`git log --walk-reflogs printed ${JSON.stringify(commit)}, not a commit id`);
    }
    named.add(commit);
  }
  named.delete(worktree.headCommit);
  if (named.size === 0) return 0;
  const count = await runGit(
    worktree.path,
    [
      'rev-list',
      '--count',
      ...named,
      '--not',
      worktree.headCommit,
      '--branches',
      '--tags',
      '--remotes',
    ],
    options,
  );
  const parsed = Number.parseInt(count.trim(), 10);
  if (Number.isNaN(parsed)) throw new Error('git rev-list did not print a count');
  return parsed;
}

interface FlaggedEntry {
  path: string;
  mode: string;
  objectId: string;
  skipWorktree: boolean;
}

/**
 * Paths whose index entry carries `assume-unchanged` or `skip-worktree` (so `git status`
 * does not look at them) and whose file differs from the index: edited, replaced, or,
 * for `assume-unchanged`, deleted. A `skip-worktree` file that is absent is what sparse
 * checkout leaves, not a change. Contents are hashed by git with the same filters
 * `git add` would apply. Throws when git fails or a file cannot be read.
 */
export async function findHiddenEdits(
  worktree: GitAgentWorktree,
  options: GitOptions,
): Promise<string[]> {
  const flagged = await listFlaggedEntries(worktree.path, options);
  const changed: string[] = [];
  const regularFiles: FlaggedEntry[] = [];
  for (const entry of flagged) {
    if (entry.mode === '160000') continue; // a submodule: git status checks those itself
    let stats;
    try {
      stats = await lstat(path.join(worktree.path, entry.path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (!entry.skipWorktree) changed.push(entry.path);
      continue;
    }
    if (entry.mode === '120000') {
      if (
        !stats.isSymbolicLink() ||
        symbolicLinkObjectId(await readlink(path.join(worktree.path, entry.path)), entry) !==
          entry.objectId
      ) {
        changed.push(entry.path);
      }
    } else if (!stats.isFile() || entry.path.includes('\n')) {
      // Replaced by something else, or a name `--stdin-paths` cannot carry: keep it.
      changed.push(entry.path);
    } else regularFiles.push(entry);
  }
  if (regularFiles.length > 0) {
    const hashes = (
      await runGit(worktree.path, ['hash-object', '--stdin-paths'], {
        ...options,
        input: regularFiles.map((entry) => `${entry.path}\n`).join(''),
      })
    )
      .trim()
      .split('\n');
    if (hashes.length !== regularFiles.length) {
      throw new Error(
        `git hash-object printed ${hashes.length} id(s) for ${regularFiles.length} file(s)`,
      );
    }
    regularFiles.forEach((entry, index) => {
      if (hashes[index] !== entry.objectId) changed.push(entry.path);
    });
  }
  return changed.sort();
}

async function listFlaggedEntries(
  worktreePath: string,
  options: GitOptions,
): Promise<FlaggedEntry[]> {
  // `-v` tags assume-unchanged entries with a lower-case letter and skip-worktree ones
  // with `S`; `-s` adds the mode and object id. Together: "<tag> <mode> <id> <stage>\t<path>".
  const output = await runGit(worktreePath, ['ls-files', '-v', '-s', '-z'], options);
  const entries: FlaggedEntry[] = [];
  for (const record of output.split('\0')) {
    if (record === '') continue;
    const match = /^(\S) (\d{6}) ([0-9a-f]+) (\d)\t(.+)$/s.exec(record);
    if (!match) throw new Error(`git ls-files printed an entry it could not read: ${record}`);
    const [, tag, mode, objectId, stage, entryPath] = match as unknown as string[];
    const assumeUnchanged = tag !== tag!.toUpperCase();
    const skipWorktree = tag!.toUpperCase() === 'S';
    if ((!assumeUnchanged && !skipWorktree) || stage !== '0') continue;
    entries.push({ path: entryPath!, mode: mode!, objectId: objectId!, skipWorktree });
  }
  return entries;
}

/** git's object id for a symbolic link: the blob of its target text (SHA-1 or SHA-256). */
function symbolicLinkObjectId(target: string, entry: FlaggedEntry): string {
  const content = Buffer.from(target);
  return createHash(entry.objectId.length === 64 ? 'sha256' : 'sha1')
    .update(`blob ${content.length}\0`)
    .update(content)
    .digest('hex');
}
