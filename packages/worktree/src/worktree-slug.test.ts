import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { git, makeGitRepository } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  createAgentWorktree,
  explainInvalidSlug,
  isValidWorktreeSlug,
  validateWorktreeSlug,
  WorktreeError,
} from './index.js';
import { snapshotGit, snapshotTree, testGitOptions } from './test-helpers.js';
import { branchNameForSlug } from './worktree-slug.js';

const hostileSlugs: Array<[label: string, slug: unknown]> = [
  ['parent traversal', '../x'],
  ['traversal in the middle', 'a/../../b'],
  ['deep traversal', '../../../../../../tmp/escaped'],
  ['dot', '.'],
  ['dot dot', '..'],
  ['dot segment', 'a/./b'],
  ['trailing dot dot', 'x/..'],
  ['absolute path', '/tmp/muster-hostile-slug'],
  ['65 characters', 'a'.repeat(65)],
  ['NUL byte', 'a\0b'],
  ['backslash', 'a\\b'],
  ['backslash traversal', '..\\..\\escaped'],
  ['drive letter', 'C:\\escaped'],
  ['fullwidth letter', '\uff41'],
  ['one-dot leader', 'a\u2024b'],
  ['right-to-left override', 'a\u202eb'],
  ['trailing slash', 'team/'],
  ['leading slash', '/team'],
  ['empty segment', 'a//b'],
  ['space', 'a b'],
  ['tilde', '~'],
  ['home path', '~/x'],
  ['newline', 'a\nb'],
  ['empty', ''],
  ['command substitution', '$(touch pwned)'],
  ['not a string', 42],
];

describe('worktree slugs', () => {
  it('accepts ordinary and awkward-but-safe slugs and gives each a valid branch name', async () => {
    const repository = await makeGitRepository();
    const slugs = [
      'a',
      'team-a/researcher',
      'a.b_c-d',
      'x'.repeat(64),
      '.hidden',
      'a..b/x.lock',
      'a.',
      '--help',
    ];
    for (const slug of slugs) {
      expect(explainInvalidSlug(slug), slug).toBeUndefined();
      expect(isValidWorktreeSlug(slug)).toBe(true);
      const branch = branchNameForSlug(slug, 1_700_000_000_000);
      expect(await git(repository.path, 'check-ref-format', '--branch', branch)).toBe(branch);
    }
    for (const slug of ['.hidden', 'a..b/x.lock', '--help']) {
      const worktree = await createAgentWorktree(repository.path, slug, testGitOptions);
      expect(worktree.path).toBe(path.join(repository.path, '.muster/worktrees', slug));
      expect(existsSync(path.join(worktree.path, 'README.md'))).toBe(true);
    }
  });

  it(`refuses ${hostileSlugs.length} hostile slugs and creates nothing anywhere`, async () => {
    const repository = await makeGitRepository({ 'README.md': '# r\n', 'src/a.ts': 'a\n' });
    await repository.write('node_modules/dep/index.js', 'module.exports = 1;\n');
    await repository.write('.worktreeinclude', '.env\n');
    const parent = path.dirname(repository.path);
    const treeBefore = await snapshotTree(repository.path);
    const gitBefore = await snapshotGit(repository.path);
    const parentBefore = (await readdir(parent)).sort();

    for (const [label, slug] of hostileSlugs) {
      expect(isValidWorktreeSlug(slug), label).toBe(false);
      expect(() => validateWorktreeSlug(slug), label).toThrow(WorktreeError);
      const attempt = createAgentWorktree(repository.path, slug as string, {
        ...testGitOptions,
        sparsePaths: ['src'],
      });
      await expect(attempt, label).rejects.toSatisfy((error) =>
        WorktreeError.hasCode(error, 'INVALID_SLUG'),
      );
      await expect(attempt, label).rejects.toThrow(
        /is not allowed: .*Use segments of ASCII letters/,
      );
    }

    expect(await snapshotTree(repository.path)).toEqual(treeBefore);
    expect(await snapshotGit(repository.path)).toEqual(gitBefore);
    expect((await readdir(parent)).sort()).toEqual(parentBefore);
    expect(existsSync('/tmp/muster-hostile-slug')).toBe(false);
    expect(existsSync('/tmp/escaped')).toBe(false);
    expect(existsSync(path.join(repository.path, 'pwned'))).toBe(false);
  });

  it('says which rule a slug breaks, quoting invisible characters', () => {
    expect(explainInvalidSlug('a'.repeat(65))).toMatch(/65 characters long; the limit is 64/);
    expect(explainInvalidSlug('a//b')).toMatch(/empty segment/);
    expect(explainInvalidSlug('x/..')).toMatch(/"\.\." segment/);
    expect(() => validateWorktreeSlug('a\u202eb')).toThrow(/"a\\u\{202e\}b"/);
  });
});
