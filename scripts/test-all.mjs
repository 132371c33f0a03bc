// `npm test`: sets everything up and runs the whole suite — install, build, lint,
// typecheck, every package's tests, and the generated-files drift checks.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { installDependencies, pnpm, repositoryRoot } from './pnpm.mjs';

installDependencies();
pnpm(['run', 'build']);
pnpm(['run', 'lint']);
pnpm(['run', 'typecheck']);
pnpm(['run', 'test:packages']);

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
