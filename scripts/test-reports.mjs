// Adds up the package test runs of `npm test` from vitest's JSON reports, one per package,
// so that the closing line counts what a summary scraped from the log would miss: a test
// file that failed to load (vitest reports it as a failed file with no tests) and a package
// whose tests never ran at all (no report).
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { repositoryRoot } from './pnpm.mjs';

/** Where each package's vitest writes its JSON report, relative to the package folder. */
export const TEST_REPORT_FILE = path.join('.vitest', 'report.json');

/** The vitest arguments that keep the normal output and also write the JSON report. */
export const TEST_REPORT_ARGUMENTS = [
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${TEST_REPORT_FILE}`,
];

/**
 * The workspace packages that have a `test` script: `{ name, folder }` for each, found by
 * reading `packages/*` and `apps/*` (the folders pnpm-workspace.yaml names).
 */
export function testedPackages(root = repositoryRoot) {
  const found = [];
  for (const parent of ['packages', 'apps']) {
    const parentFolder = path.join(root, parent);
    if (!existsSync(parentFolder)) continue;
    for (const entry of readdirSync(parentFolder, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const folder = path.join(parentFolder, entry.name);
      const manifestPath = path.join(folder, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
      if (manifest.scripts?.test) found.push({ name: manifest.name, folder });
    }
  }
  return found.sort((left, right) => left.name.localeCompare(right.name));
}

/** Deletes reports left by an earlier run, so a package that does not run now has none. */
export function removeTestReports(packages) {
  for (const { folder } of packages) rmSync(path.join(folder, TEST_REPORT_FILE), { force: true });
}

/**
 * Reads every package's report and adds them up. `failed` counts failed tests, test files
 * that failed without running a test (a load error), and packages with no readable report;
 * `problems` says which, in words.
 */
export function tallyTestReports(packages) {
  const tally = { passed: 0, failed: 0, skipped: 0, problems: [] };
  for (const { name, folder } of packages) {
    const reportPath = path.join(folder, TEST_REPORT_FILE);
    let report;
    try {
      report = JSON.parse(readFileSync(reportPath, 'utf8'));
    } catch (error) {
      tally.failed += 1;
      const why = error.code === 'ENOENT' ? 'it wrote no report' : `its report is unreadable`;
      tally.problems.push(
        `${name}: its tests never ran or did not finish (${why}: ${reportPath}).`,
      );
      continue;
    }
    tally.passed += report.numPassedTests ?? 0;
    tally.failed += report.numFailedTests ?? 0;
    tally.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    for (const file of report.testResults ?? []) {
      if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) {
        tally.failed += 1;
        const reason = String(file.message ?? '').split('\n')[0];
        tally.problems.push(
          `${name}: ${path.relative(folder, file.name)} failed to load: ${reason}`,
        );
      }
    }
    if (report.numTotalTests === 0 && (report.testResults ?? []).length === 0) {
      tally.failed += 1;
      tally.problems.push(`${name}: its test run found no test file.`);
    }
  }
  return tally;
}

/** The plain closing line: `tests: N passed, N failed, N skipped`. */
export function formatTestTally(tally) {
  return `tests: ${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped`;
}
