// `npm test`'s closing line (scripts/test-reports.mjs) must count every way a package's
// tests can fail, including the two a scraped vitest summary misses: a test file that fails
// to load and a package that never ran. Real vitest runs in a throwaway workspace.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  formatTestTally,
  tallyTestReports,
  TEST_REPORT_ARGUMENTS,
  testedPackages,
} from '../../../scripts/test-reports.mjs';
import { makeTempDirectory } from './index.js';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const vitestBinary = path.join(
  repositoryRoot,
  'packages/test-utils/node_modules/vitest/vitest.mjs',
);

function writePackage(root: string, name: string, files: Record<string, string>): string {
  const folder = path.join(root, 'packages', name);
  mkdirSync(path.join(folder, 'src'), { recursive: true });
  writeFileSync(
    path.join(folder, 'package.json'),
    JSON.stringify({ name: `@example/${name}`, scripts: { test: 'vitest run' } }),
  );
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(folder, file), text);
  return folder;
}

function runVitest(folder: string): number | null {
  const result = spawnSync(
    process.execPath,
    [vitestBinary, 'run', '--root', folder, '--globals', ...TEST_REPORT_ARGUMENTS],
    { encoding: 'utf8', env: { ...process.env, CI: 'true' } },
  );
  return result.status;
}

describe('npm test closing line', () => {
  it('counts failed tests, files that failed to load and packages that never ran', async () => {
    const root = await makeTempDirectory('muster-test-reports-');
    const healthy = writePackage(root, 'healthy', {
      'src/a.test.mjs': "test('one', () => expect(1).toBe(1));\ntest('two', () => {});\n",
    });
    const broken = writePackage(root, 'broken', {
      'src/good.test.mjs': "test('fine', () => {});\ntest.skip('later', () => {});\n",
      'src/fails.test.mjs': "test('wrong', () => expect(1).toBe(2));\n",
      'src/unloadable.test.mjs': "import './no-such-module.mjs';\ntest('never', () => {});\n",
    });
    writePackage(root, 'never-ran', { 'src/x.test.mjs': "test('x', () => {});\n" });

    expect(runVitest(healthy)).toBe(0);
    expect(runVitest(broken)).not.toBe(0);

    const packages = testedPackages(root);
    expect(packages.map((entry) => entry.name)).toEqual([
      '@example/broken',
      '@example/healthy',
      '@example/never-ran',
    ]);
    const tally = tallyTestReports(packages);
    // healthy: 2 passed; broken: 1 passed, 1 skipped, 1 failed test + 1 file that did not
    // load; never-ran: no report at all.
    expect(tally.passed).toBe(3);
    expect(tally.skipped).toBe(1);
    expect(tally.failed).toBe(3);
    expect(tally.problems.join('\n')).toMatch(
      /@example\/broken: src\/unloadable\.test\.mjs failed to load/,
    );
    expect(tally.problems.join('\n')).toMatch(/@example\/never-ran: its tests never ran/);
    expect(formatTestTally(tally)).toBe('tests: 3 passed, 3 failed, 1 skipped');
  });
});
