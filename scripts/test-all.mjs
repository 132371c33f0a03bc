// `npm test`: sets everything up and runs the whole suite — install, build, lint,
// typecheck, every package's tests, and the generated-files drift checks.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { installDependencies, pnpm, pnpmWithOutput, repositoryRoot } from './pnpm.mjs';

installDependencies();
pnpm(['run', 'build']);
pnpm(['run', 'lint']);
pnpm(['run', 'typecheck']);
const tests = await pnpmWithOutput(['run', 'test:packages']);
const counts = countVitestTests(tests.output);
// One plain closing line that any CI can read: `tests: N passed, N failed, N skipped`.
const testsLine = `tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
console.log(testsLine);
if (tests.status !== 0) {
  console.error(`[muster] pnpm run test:packages failed (exit ${tests.status}).`);
  process.exit(typeof tests.status === 'number' ? tests.status : 1);
}
if (counts.passed === 0) {
  console.error(
    '[muster] the test run reported no passing test: the summary lines were not found.',
  );
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

/** Adds up vitest's `Tests  1 failed | 51 passed | 2 skipped (54)` lines across packages. */
function countVitestTests(output) {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  // eslint-disable-next-line no-control-regex
  const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
  for (const line of plain.split('\n')) {
    const summary = /\bTests\s+(.*\(\d+\))\s*$/.exec(line);
    if (!summary) continue;
    for (const [, number, kind] of summary[1].matchAll(/(\d+) (passed|failed|skipped)/g)) {
      counts[kind] += Number(number);
    }
  }
  return counts;
}
