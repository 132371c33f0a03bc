import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, makeGitRepository, makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  createAgentWorktree,
  listAgentWorktrees,
  pruneAgentWorktrees,
  type CreateAgentWorktreeOptions,
  type GitAgentWorktree,
} from './index.js';
import { testGitOptions } from './test-helpers.js';

function deadProcessId(): number {
  const finished = spawnSync(process.execPath, ['-e', '']);
  if (finished.pid === undefined) throw new Error('could not start a short-lived process');
  return finished.pid;
}

describe('listAgentWorktrees and pruneAgentWorktrees', () => {
  it('reports clean, changed, missing and orphaned worktrees and prunes only the clean orphans', async () => {
    const repository = await makeGitRepository();
    const create = async (slug: string, options: CreateAgentWorktreeOptions = {}) =>
      (await createAgentWorktree(repository.path, slug, {
        ...testGitOptions,
        ...options,
      })) as GitAgentWorktree;
    const deadOwner = { ownerProcessId: deadProcessId() };

    const liveClean = await create('live/clean');
    const liveChanged = await create('live/changed');
    await writeFile(path.join(liveChanged.path, 'README.md'), 'edited\n');
    const deadClean = await create('dead/clean', deadOwner);
    const deadCommitted = await create('dead/committed', deadOwner);
    await git(deadCommitted.path, 'commit', '-q', '--allow-empty', '-m', 'unsaved work');
    const gone = await create('gone', deadOwner);
    await rm(gone.path, { recursive: true, force: true });
    const stray = await create('stray', deadOwner);
    const strayGitDirectory = (await readFile(path.join(stray.path, '.git'), 'utf8'))
      .replace('gitdir: ', '')
      .trim();
    await rm(strayGitDirectory, { recursive: true, force: true });
    // A worktree muster did not make is not listed.
    await repository.git(
      'worktree',
      'add',
      '-q',
      '-b',
      'by-hand',
      path.join(await makeTempDirectory(), 'by-hand'),
    );

    const listed = await listAgentWorktrees(repository.path, testGitOptions);
    expect(listed.map(({ slug, state, registered }) => ({ slug, state, registered }))).toEqual([
      { slug: 'dead/clean', state: 'orphaned', registered: true },
      { slug: 'dead/committed', state: 'changed', registered: true },
      { slug: 'gone', state: 'missing', registered: true },
      { slug: 'live/changed', state: 'changed', registered: true },
      { slug: 'live/clean', state: 'clean', registered: true },
      { slug: 'stray', state: 'changed', registered: false },
    ]);
    const bySlug = new Map(listed.map((entry) => [entry.slug, entry]));
    expect(bySlug.get('dead/committed')?.reason).toMatch(/1 new commit/);
    expect(bySlug.get('gone')?.reason).toMatch(/folder is gone/);
    expect(bySlug.get('stray')?.reason).toMatch(/git does not list/);
    expect(bySlug.get('live/clean')?.worktree).toEqual(liveClean);

    const pruned = await pruneAgentWorktrees(repository.path, testGitOptions);
    expect(pruned.removed.map((removal) => removal.path)).toEqual([deadClean.path]);
    expect(pruned.kept).toEqual([]);
    expect(existsSync(deadClean.path)).toBe(false);
    expect(await repository.git('branch', '--list', deadClean.branch)).toBe('');
    for (const kept of [liveClean, liveChanged, deadCommitted, stray]) {
      expect(existsSync(kept.path), kept.slug).toBe(true);
    }
    // `git worktree prune` made git forget the missing one; its branch stays.
    expect(await repository.git('worktree', 'list', '--porcelain')).not.toContain(gone.path);
    expect(await repository.git('branch', '--list', gone.branch)).not.toBe('');

    const after = await listAgentWorktrees(repository.path, testGitOptions);
    expect(after.map(({ slug, state }) => `${slug}:${state}`)).toEqual([
      'dead/committed:changed',
      'live/changed:changed',
      'live/clean:clean',
      'stray:changed',
    ]);
  });
});
