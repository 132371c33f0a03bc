import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isolatedGitEnvironment, makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  cleanupAgentWorktree,
  createAgentWorktree,
  hasWorktreeChanges,
  removeAgentWorktree,
  WorktreeError,
} from './index.js';

const hookScript = fileURLToPath(new URL('./test-fixtures/create-hook.mjs', import.meta.url));

async function withoutGit() {
  // PATH has no git at all: the hook must do everything.
  return { env: { ...isolatedGitEnvironment, PATH: await makeTempDirectory('muster-no-git-') } };
}

describe('create hook', () => {
  it('replaces git entirely, and its worktrees are never removed automatically', async () => {
    const folder = await makeTempDirectory('muster-other-vcs-');
    const options = await withoutGit();
    const worktree = await createAgentWorktree(folder, 'team/hooked', {
      ...options,
      createHook: { command: process.execPath, args: [hookScript] },
    });

    const expectedPath = path.join(folder, '.muster/worktrees/team/hooked');
    expect(worktree).toMatchObject({ managedBy: 'hook', slug: 'team/hooked', path: expectedPath });
    const facts = JSON.parse(await readFile(path.join(expectedPath, 'hook-facts.json'), 'utf8'));
    expect(facts).toEqual({
      stdin: { slug: 'team/hooked', repositoryRoot: folder, suggestedPath: expectedPath },
      slug: 'team/hooked',
      root: folder,
      cwd: folder,
    });

    expect(await hasWorktreeChanges(worktree, options)).toBe(true);
    const cleanup = await cleanupAgentWorktree(worktree, options);
    expect(cleanup).toMatchObject({ kept: true, path: expectedPath });
    expect(cleanup.kept && cleanup.reason).toMatch(/made by a create hook/);
    await expect(removeAgentWorktree(worktree, options)).rejects.toSatisfy((error) =>
      WorktreeError.hasCode(error, 'HOOK_MANAGED'),
    );
    expect(existsSync(expectedPath)).toBe(true);
  });

  it('reports a failing hook, a hook that prints no folder, and options a hook cannot honour', async () => {
    const folder = await makeTempDirectory();
    const options = await withoutGit();
    const failing = createAgentWorktree(folder, 'a', {
      ...options,
      createHook: { command: process.execPath, args: [hookScript, 'fail'] },
    });
    await expect(failing).rejects.toSatisfy((error) => WorktreeError.hasCode(error, 'HOOK_FAILED'));
    await expect(failing).rejects.toThrow(/exited with 3: the workspace server said no/);

    await expect(
      createAgentWorktree(folder, 'a', {
        ...options,
        createHook: { command: process.execPath, args: [hookScript, 'nowhere'] },
      }),
    ).rejects.toThrow(/not an existing folder/);
    await expect(
      createAgentWorktree(folder, 'a', {
        ...options,
        createHook: { command: path.join(folder, 'no-such-hook') },
      }),
    ).rejects.toThrow(/could not be started/);
    await expect(
      createAgentWorktree(folder, 'a', {
        ...options,
        sparsePaths: ['src'],
        createHook: { command: process.execPath, args: [hookScript] },
      }),
    ).rejects.toSatisfy((error) => WorktreeError.hasCode(error, 'INVALID_OPTIONS'));
  });

  it('checks the slug before the hook ever runs', async () => {
    const folder = await makeTempDirectory();
    await expect(
      createAgentWorktree(folder, '../escape', {
        ...(await withoutGit()),
        createHook: { command: process.execPath, args: [hookScript] },
      }),
    ).rejects.toSatisfy((error) => WorktreeError.hasCode(error, 'INVALID_SLUG'));
    expect(existsSync(path.join(folder, '.muster'))).toBe(false);
    expect(existsSync(path.join(path.dirname(folder), 'escape'))).toBe(false);
  });
});
