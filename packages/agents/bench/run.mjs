// Runs every benchmark of @muster/agents (bench/*.mjs other than this file) in turn.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const benches = readdirSync(here).filter((name) => name.endsWith('.mjs') && name !== 'run.mjs');
if (benches.length === 0) console.log('@muster/agents: no benchmarks yet.');
for (const name of benches.sort()) {
  const result = spawnSync(process.execPath, [join(here, name), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  if (result.status !== 0) process.exitCode = 1;
}
