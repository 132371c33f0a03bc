// The repository's tests, benchmarks and scripts must not read anything beside the
// repository (the project's shared/ folder is not there in a fresh clone): what they
// compare against is copied into fixtures/.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claudeCode2_1_330ReferenceDirectory, claudeCodeReferenceDirectory } from './index.js';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** A path that leaves the repository for its sibling `shared/` folder, however it is spelled. */
const outsidePath =
  /(\.\.[\\/]+)+shared[\\/](reference|seeds|research)|["'`]\.\.["'`]\s*,\s*["'`]shared["'`]|"shared",\s*"reference"|\/work\/shared|os\.path\.dirname\(REPOSITORY_ROOT\)/;

describe('the repository is self-contained', () => {
  it('no tracked code file reaches outside the repository for shared files', () => {
    const files = execFileSync('git', ['ls-files'], { cwd: repositoryRoot, encoding: 'utf8' })
      .split('\n')
      .filter((file) => /\.(ts|tsx|mjs|js|py|go|sh)$/.test(file))
      .filter((file) => !file.endsWith('self-contained.test.ts'));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter((file) =>
      outsidePath.test(readFileSync(path.join(repositoryRoot, file), 'utf8')),
    );
    expect(offenders).toEqual([]);
  });

  it('the Claude Code reference files are in the repository', () => {
    const folder = claudeCodeReferenceDirectory();
    expect(path.relative(repositoryRoot, folder)).toBe(path.join('fixtures', 'claude-code-2.1.45'));
  });

  it('the Claude Code 2.1.330 reference files are in the repository', () => {
    const folder = claudeCode2_1_330ReferenceDirectory();
    expect(path.relative(repositoryRoot, folder)).toBe(
      path.join('fixtures', 'claude-code-2.1.330'),
    );
  });
});
