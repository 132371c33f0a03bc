#!/usr/bin/env node
// Every benchmark of @muster/backends (the built dist/): `pnpm --filter @muster/backends bench`,
// or `node bench/run.mjs [--json]`. Runs each other `bench/*.mjs` in its own process, one after
// the other (this box has 2 shared cores), each with `--json`, at most 150 s each, and prints
// what they measured. Prints figures; asserts nothing.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PER_BENCH_LIMIT_MS = 150_000;
const json = process.argv.includes('--json');
const folder = path.dirname(fileURLToPath(import.meta.url));
const benches = readdirSync(folder)
  .filter((name) => name.endsWith('.mjs') && name !== 'run.mjs')
  .sort();

function runOne(name) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(folder, name), '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGTERM'), PER_BENCH_LIMIT_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const text = stdout.trim();
      for (const candidate of [text, text.split('\n').at(-1) ?? '']) {
        try {
          return resolve({ name, figures: JSON.parse(candidate) });
        } catch {
          // Not JSON: try the last line, then report the failure.
        }
      }
      resolve({
        name,
        error: `ended with ${signal ?? `code ${code}`}: ${stderr.trim().slice(-400)}`,
      });
    });
  });
}

const results = [];
for (const name of benches) results.push(await runOne(name));
if (json) {
  process.stdout.write(
    `${JSON.stringify(Object.fromEntries(results.map((result) => [result.name, result.figures ?? { error: result.error }])))}\n`,
  );
} else {
  for (const result of results) {
    console.log(`\n== ${result.name}`);
    console.log(result.error ?? JSON.stringify(result.figures, null, 2));
  }
}
