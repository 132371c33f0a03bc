import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  git,
  isolatedGitEnvironment,
  makeGitRepository,
  runNodeProcesses,
} from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createAgentWorktree, type GitAgentWorktree, type WorktreeCleanupResult } from './index.js';
import { makeLoggingGit } from './test-helpers.js';

const script = fileURLToPath(new URL('./test-fixtures/worktree-process.mjs', import.meta.url));
const count = 8;

describe('concurrent worktrees in one repository', () => {
  it(`creates ${count} worktrees from ${count} processes at once, then cleans them all up at once`, async () => {
    const repository = await makeGitRepository({
      'src/index.ts': 'index\n',
      'docs/guide.md': 'guide\n',
    });
    // Half of them use sparse checkout, so they race to set extensions.worktreeConfig
    // in the shared .git/config and meet git's config.lock.
    const startAt = Date.now() + 1_500;
    const created = await runNodeProcesses(
      script,
      count,
      (index) => [
        'create',
        repository.path,
        `agent-${index}`,
        index % 2 === 0 ? 'yes' : 'no',
        String(startAt),
      ],
      { env: isolatedGitEnvironment },
    );
    const worktrees = created.map((result) => JSON.parse(result.stdout) as GitAgentWorktree);

    expect(new Set(worktrees.map((worktree) => worktree.path)).size).toBe(count);
    expect(new Set(worktrees.map((worktree) => worktree.branch)).size).toBe(count);
    const listing = await repository.git('worktree', 'list', '--porcelain');
    for (const [index, worktree] of worktrees.entries()) {
      expect(worktree.slug).toBe(`agent-${index}`);
      expect(listing).toContain(`worktree ${worktree.path}\n`);
      expect(await git(worktree.path, 'branch', '--show-current')).toBe(worktree.branch);
      expect(existsSync(path.join(worktree.path, 'src/index.ts'))).toBe(true);
      expect(existsSync(path.join(worktree.path, 'docs/guide.md'))).toBe(index % 2 !== 0);
    }
    expect(await repository.git('config', '--get', 'extensions.worktreeConfig')).toBe('true');
    expect(await repository.git('status', '--porcelain', '--untracked-files=all')).toBe('');

    const cleanedAt = Date.now() + 1_500;
    const cleaned = await runNodeProcesses(
      script,
      count,
      (index) => ['cleanup', JSON.stringify(worktrees[index]), String(cleanedAt)],
      { env: isolatedGitEnvironment },
    );
    for (const [index, result] of cleaned.entries()) {
      const outcome = JSON.parse(result.stdout) as WorktreeCleanupResult;
      // On failure, say why it was kept (or why the branch stayed), not only that it was.
      const why = outcome.kept ? outcome.reason : (outcome.branchKeptReason ?? 'removed');
      expect(outcome, `cleanup of agent-${index}: ${why}`).toMatchObject({
        kept: false,
        removedBy: 'git',
        branchDeleted: true,
      });
    }
    expect(await repository.git('worktree', 'list', '--porcelain')).not.toContain('.muster');
    expect(await repository.git('branch', '--list', 'muster-wt-*')).toBe('');
    // Sixteen processes of git work on a small, busy machine: a generous limit.
  }, 180_000);

  it('waits while another git process holds .git/config.lock, then succeeds', async () => {
    const repository = await makeGitRepository({
      'src/index.ts': 'index\n',
      'docs/guide.md': 'guide\n',
    });
    const { env, log } = await makeLoggingGit();
    const lock = path.join(repository.path, '.git/config.lock');
    await writeFile(lock, ''); // what a concurrent `git config` holds while it writes

    const creating = createAgentWorktree(repository.path, 'patient', { env, sparsePaths: ['src'] });
    // Release the lock only after git has run into it at least once.
    while (!/^sparse-checkout [1-9]/m.test(await readFile(log, 'utf8'))) await sleep(20);
    await rm(lock);
    const worktree = await creating;

    expect(existsSync(path.join(worktree.path, 'src/index.ts'))).toBe(true);
    expect(existsSync(path.join(worktree.path, 'docs'))).toBe(false);
    const sparseCalls = (await readFile(log, 'utf8'))
      .split('\n')
      .filter((line) => line.startsWith('sparse-checkout'));
    expect(sparseCalls.at(0)).not.toBe('sparse-checkout 0');
    expect(sparseCalls.at(-1)).toBe('sparse-checkout 0');
  });

  it('retries while another process is half-way through creating its worktree, then succeeds', async () => {
    const repository = await makeGitRepository({ 'src/index.ts': 'index\n' });
    const { env, log } = await makeLoggingGit();
    // What `git worktree add` in another process leaves for a moment: its admin folder with
    // `gitdir` written and `commondir` created but still empty. git then fails with "failed
    // to read …/commondir" while it checks that the branch is not checked out elsewhere.
    const sibling = path.join(repository.path, '.git/worktrees/sibling');
    await mkdir(sibling, { recursive: true });
    await writeFile(path.join(sibling, 'commondir'), '');
    await writeFile(path.join(sibling, 'gitdir'), `${repository.path}/../sibling/.git\n`);

    const creating = createAgentWorktree(repository.path, 'patient-2', { env });
    // Wait for git's first `worktree` call to end (it must have failed: checked below).
    while (!/^worktree \d+/m.test(await readFile(log, 'utf8'))) await sleep(20);
    await rm(sibling, { recursive: true }); // the other process finished (or gave up)
    const worktree = await creating;

    expect(existsSync(path.join(worktree.path, 'src/index.ts'))).toBe(true);
    const worktreeCalls = (await readFile(log, 'utf8'))
      .split('\n')
      .filter((line) => line.startsWith('worktree'));
    expect(worktreeCalls.at(0)).toBe('worktree 128');
    expect(worktreeCalls.at(-1)).toBe('worktree 0');
  });
});
