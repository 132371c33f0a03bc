import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  git,
  isolatedGitEnvironment,
  makeGitRepository,
  makeTempDirectory,
  startNodeProcess,
} from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  cleanupAgentWorktree,
  createAgentWorktree,
  listAgentWorktrees,
  pruneAgentWorktrees,
  readAgentWorktree,
  type GitAgentWorktree,
} from './index.js';
import { snapshotTree, testGitOptions } from './test-helpers.js';

const holdOpenScript = fileURLToPath(new URL('./test-fixtures/hold-open.mjs', import.meta.url));
const worktreeScript = fileURLToPath(
  new URL('./test-fixtures/worktree-process.mjs', import.meta.url),
);

async function cleanWorktree(slug: string) {
  const repository = await makeGitRepository();
  const worktree = await createAgentWorktree(repository.path, slug, testGitOptions);
  if (worktree.managedBy !== 'git') throw new Error('expected a git worktree');
  return { repository, worktree };
}

describe('cleanup fences off the folder before deleting it', () => {
  it('keeps a clean worktree while a process holds one of its files open', async () => {
    const { repository, worktree } = await cleanWorktree('held');
    const holder = startNodeProcess(holdOpenScript, [path.join(worktree.path, 'README.md')], {
      cwd: repository.path,
    });
    try {
      await holder.waitForLine((line) => line === 'holding');
      const result = await cleanupAgentWorktree(worktree, testGitOptions);
      expect(result).toMatchObject({ kept: true, path: worktree.path });
      expect(result.kept && result.reason).toMatch(
        new RegExp(`process ${holder.child.pid} .*open file README\\.md`),
      );
      expect(existsSync(path.join(worktree.path, 'README.md'))).toBe(true);
    } finally {
      holder.child.kill();
      await holder.exited;
    }
    // Once the holder is gone, the same clean worktree is removed.
    expect(await cleanupAgentWorktree(worktree, testGitOptions)).toMatchObject({
      kept: false,
      branchDeleted: true,
    });
    expect(existsSync(worktree.path)).toBe(false);
  });

  it('keeps a locked worktree instead of moving it', async () => {
    const { repository, worktree } = await cleanWorktree('locked');
    await repository.git('worktree', 'lock', worktree.path);
    const result = await cleanupAgentWorktree(worktree, testGitOptions);
    expect(result).toMatchObject({ kept: true, path: worktree.path });
    expect(result.kept && result.reason).toMatch(/is locked/);
    expect(await repository.git('worktree', 'list', '--porcelain')).toContain(
      `worktree ${worktree.path}\n`,
    );
  });

  it('keeps the worktree under its new name when a late write arrives and its path is taken', async () => {
    const { repository, worktree } = await cleanWorktree('team/late');
    // A `git` that, when cleanup first runs it in the moved folder (to check it again),
    // plays two writers: one that still had the moved folder open (its file lands there)
    // and one that writes by path (it creates the old path again).
    const folder = await makeTempDirectory('muster-late-git-');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    await writeFile(
      path.join(folder, 'git'),
      [
        '#!/bin/sh',
        'here=$(pwd -P)',
        `if [ "$1" = rev-parse ] && [ "\${here%.muster-removing-*}" != "$here" ] && [ ! -e '${folder}/done' ]; then`,
        `  : > '${folder}/done'`,
        `  echo late > "$here/late.txt"`,
        `  mkdir -p '${worktree.path}' && echo stray > '${worktree.path}/stray.txt'`,
        'fi',
        `exec '${realGit}' "$@"`,
        '',
      ].join('\n'),
    );
    await chmod(path.join(folder, 'git'), 0o755);
    const env = { ...isolatedGitEnvironment, PATH: `${folder}:${process.env.PATH}` };

    const result = await cleanupAgentWorktree(worktree, { env });
    expect(existsSync(path.join(folder, 'done'))).toBe(true);
    if (!result.kept) throw new Error('expected the worktree to be kept');
    expect(result.path).toMatch(/team\/late\.muster-removing-[0-9a-f]{12}$/);
    expect(result.reason).toMatch(/Something changed while .* could not be moved back/);
    expect(await readFile(path.join(result.path, 'late.txt'), 'utf8')).toBe('late\n');
    expect(await readFile(path.join(worktree.path, 'stray.txt'), 'utf8')).toBe('stray\n');

    // git and muster's record follow it to its new name; cleanup keeps it there too.
    expect(await git(result.path, 'rev-parse', '--show-toplevel')).toBe(result.path);
    const moved = await readAgentWorktree(result.path, testGitOptions);
    expect(moved).toMatchObject({ path: result.path, branch: worktree.branch });
    const listed = await listAgentWorktrees(repository.path, testGitOptions);
    expect(listed.find((entry) => entry.path === result.path)).toMatchObject({
      state: 'changed',
    });
    expect((await cleanupAgentWorktree(moved as GitAgentWorktree, testGitOptions)).kept).toBe(true);
  });

  it('removes the clean worktree but leaves a folder a writer created at its path meanwhile', async () => {
    const { worktree } = await cleanWorktree('team/recreated');
    // A `git` that, when cleanup deletes the moved-aside folder, plays a writer that writes
    // by path after the final check: it creates the worktree's old path again.
    const folder = await makeTempDirectory('muster-recreate-git-');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    await writeFile(
      path.join(folder, 'git'),
      [
        '#!/bin/sh',
        'if [ "$2" = worktree ] && [ "$3" = remove ]; then',
        `  mkdir -p '${worktree.path}' && echo new > '${worktree.path}/new.txt'`,
        'fi',
        `exec '${realGit}' "$@"`,
        '',
      ].join('\n'),
    );
    await chmod(path.join(folder, 'git'), 0o755);
    const env = { ...isolatedGitEnvironment, PATH: `${folder}:${process.env.PATH}` };

    const result = await cleanupAgentWorktree(worktree, { env });
    expect(result).toMatchObject({
      kept: false,
      path: worktree.path,
      branchDeleted: true,
      leftBehind: worktree.path,
    });
    expect(await readFile(path.join(worktree.path, 'new.txt'), 'utf8')).toBe('new\n');
    expect(existsSync(path.join(worktree.path, '.git'))).toBe(false);
  });

  it('says what is left and whether git still knows the worktree when git fails to remove it', async () => {
    const { worktree } = await cleanWorktree('team/half');
    // A `git` whose `worktree remove` ends the way it did when another process wrote a
    // `.git` file into the folder while git deleted it: git's own folder for the worktree
    // gone, the worktree's folder left holding that file, "Directory not empty".
    const folder = await makeTempDirectory('muster-half-git-');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    await writeFile(
      path.join(folder, 'git'),
      [
        '#!/bin/sh',
        'if [ "$2" = worktree ] && [ "$3" = remove ]; then',
        '  for last in "$@"; do :; done',
        `  '${realGit}' "$@" || exit $?`,
        '  mkdir "$last" && echo "gitdir: $1/worktrees/gone" > "$last/.git"',
        `  echo "error: failed to delete '$last': Directory not empty" >&2`,
        '  exit 255',
        'fi',
        `exec '${realGit}' "$@"`,
        '',
      ].join('\n'),
    );
    await chmod(path.join(folder, 'git'), 0o755);
    const env = { ...isolatedGitEnvironment, PATH: `${folder}:${process.env.PATH}` };

    const result = await cleanupAgentWorktree(worktree, { env });
    if (!result.kept) throw new Error('expected the worktree to be kept');
    expect(result.reason).toMatch(
      /git could not remove .*Directory not empty; .*muster-removing-[0-9a-f]{12} still holds \.git; git has already deleted its folder .* so git no longer lists this worktree\), so it is kept\./,
    );
  });

  it('loses nothing when the cleaning process dies right after moving the folder aside', async () => {
    const { repository, worktree } = await cleanWorktree('team/crash');
    // A `git` that kills its caller (SIGKILL) the first time it is run in the moved
    // folder: right after the rename and the new link, before the second check. It exits
    // at once: a wrapper left sleeping in the folder would rightly count as using it.
    const folder = await makeTempDirectory('muster-crash-git-');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    await writeFile(
      path.join(folder, 'git'),
      [
        '#!/bin/sh',
        'here=$(pwd -P)',
        'if [ "${here%.muster-removing-*}" != "$here" ]; then kill -9 "$PPID"; exit 1; fi',
        `exec '${realGit}' "$@"`,
        '',
      ].join('\n'),
    );
    await chmod(path.join(folder, 'git'), 0o755);
    const crashing = startNodeProcess(
      worktreeScript,
      ['cleanup', JSON.stringify(worktree), String(Date.now())],
      { env: { ...isolatedGitEnvironment, PATH: `${folder}:${process.env.PATH}` } },
    );
    expect((await crashing.exited).signal).toBe('SIGKILL');

    expect(existsSync(worktree.path)).toBe(false);
    const listed = await listAgentWorktrees(repository.path, testGitOptions);
    expect(listed).toHaveLength(1);
    const aside = listed[0]!;
    expect(aside.path).toMatch(/team\/crash\.muster-removing-[0-9a-f]{12}$/);
    expect(aside).toMatchObject({ state: 'changed', registered: true });
    expect(aside.reason).toMatch(
      /An interrupted cleanup left .* here, .* To undo it, move .* back to/,
    );

    // Pruning does not forget it (git knows it at its new name, locked).
    await pruneAgentWorktrees(repository.path, testGitOptions);
    expect(await repository.git('worktree', 'list', '--porcelain')).toContain(
      `worktree ${aside.path}\n`,
    );
    await expectAdviceToRestore(repository, worktree, aside.path);
  });

  it('lists a worktree a cleanup moved aside before git knew, and its advice restores it', async () => {
    const { repository, worktree } = await cleanWorktree('team/moved');
    // What a cleanup killed between its rename and pointing git at the new name leaves.
    const movedTo = `${worktree.path}.muster-removing-0123456789ab`;
    await repository.git(
      'worktree',
      'lock',
      '--reason',
      'muster is removing this worktree',
      worktree.path,
    );
    await rename(worktree.path, movedTo);

    const listed = await listAgentWorktrees(repository.path, testGitOptions);
    const original = listed.find((entry) => entry.path === worktree.path);
    const aside = listed.find((entry) => entry.path !== worktree.path);
    expect(original).toMatchObject({ state: 'missing', registered: true });
    expect(original?.reason).toMatch(/An interrupted cleanup moved .* git keeps it \(locked\)/);
    expect(aside).toMatchObject({ path: movedTo, state: 'changed', registered: false });
    expect(aside?.reason).toMatch(/To undo it, move .* back to/);

    // Pruning forgets missing worktrees, but not this locked one: git's folder for it
    // (index, HEAD and its reflog) stays.
    await pruneAgentWorktrees(repository.path, testGitOptions);
    expect(await repository.git('worktree', 'list', '--porcelain')).toContain(
      `worktree ${worktree.path}\n`,
    );
    await expectAdviceToRestore(repository, worktree, movedTo);
  });

  it('touches no other worktree, not even one a concurrent cleanup is half-way through deleting', async () => {
    const { repository, worktree } = await cleanWorktree('team/first');
    const other = await createAgentWorktree(repository.path, 'team/second', testGitOptions);
    // `git worktree remove` in another cleanup deletes the folder's entries one by one;
    // here it has deleted `.git` and not yet the rest. `git worktree repair`, which this
    // cleanup used to run, "repaired" every worktree and wrote a new `.git` into such a
    // folder, so the other removal failed with "Directory not empty".
    await rm(path.join(other.path, '.git'));
    const before = await snapshotTree(other.path);

    const result = await cleanupAgentWorktree(worktree, testGitOptions);
    expect(result, result.kept ? result.reason : 'removed').toMatchObject({
      kept: false,
      removedBy: 'git',
      branchDeleted: true,
    });
    expect(existsSync(path.join(other.path, '.git'))).toBe(false);
    expect(await snapshotTree(other.path)).toEqual(before);
  });
});

/** Follows the "To undo it" advice, then checks that the worktree is cleaned up as usual. */
async function expectAdviceToRestore(
  repository: { git: (...args: string[]) => Promise<string> },
  worktree: GitAgentWorktree,
  aside: string,
): Promise<void> {
  expect(existsSync(path.join(aside, 'README.md'))).toBe(true);
  await rename(aside, worktree.path);
  await repository.git('worktree', 'repair', worktree.path);
  await repository.git('worktree', 'unlock', worktree.path);
  expect(await cleanupAgentWorktree(worktree, testGitOptions)).toMatchObject({
    kept: false,
    branchDeleted: true,
  });
  expect(await repository.git('worktree', 'list', '--porcelain')).not.toContain('.muster');
}
