// `npm test`: sets everything up and runs the whole suite — install, build, lint,
// typecheck, every package's tests, and the generated-files drift checks.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { installDependencies, pnpm, pnpmStatus, repositoryRoot } from './pnpm.mjs';
import {
  formatTestTally,
  removeTestReports,
  tallyTestReports,
  TEST_REPORT_ARGUMENTS,
  testedPackages,
} from './test-reports.mjs';

installDependencies();
pnpm(['run', 'build']);
pnpm(['run', 'lint']);
pnpm(['run', 'typecheck']);

// Every package with a `test` script runs, even after one fails (`--continue`), and each
// writes vitest's JSON report; the closing line is added up from those reports, so a test
// file that failed to load and a package that never ran are counted as failures.
const packages = testedPackages();
removeTestReports(packages);
const status = pnpmStatus([
  'exec',
  'turbo',
  'run',
  'test',
  '--concurrency=1',
  '--continue',
  '--',
  ...TEST_REPORT_ARGUMENTS,
]);
const tally = tallyTestReports(packages);
// One plain closing line that any CI can read: `tests: N passed, N failed, N skipped`.
const testsLine = formatTestTally(tally);
for (const problem of tally.problems) console.error(`[muster] ${problem}`);
console.log(testsLine);
if (status !== 0 || tally.failed > 0) {
  console.error(`[muster] the package tests failed (turbo exit ${status}).`);
  process.exit(typeof status === 'number' && status !== 0 ? status : 1);
}
if (tally.passed === 0) {
  console.error('[muster] the test run reported no passing test.');
  process.exit(1);
}

// Generated files must be exactly what the generators produce from the current sources.
if (existsSync(path.join(repositoryRoot, '.git'))) {
  pnpm(['run', 'schemas']);
  pnpm(['run', 'clients']);
  const drift = spawnSync('git', ['diff', '--exit-code', '--stat', '--', 'schemas', 'clients'], {
    cwd: repositoryRoot,
    stdio: 'inherit',
  });
  if (drift.status !== 0) {
    console.error(
      '[muster] schemas/ or clients/ differ from what the generators produce. Run `pnpm schemas` and `pnpm clients`, then commit.',
    );
    process.exit(1);
  }
}
console.log('[muster] all checks passed.');
console.log(testsLine);
