#!/usr/bin/env node
// Every benchmark of @muster/backends (the built dist/): `pnpm --filter @muster/backends bench`,
// or `node bench/run.mjs [--json]`. Runs each other `bench/*.mjs` in its own process, one after
// the other (this box has 2 shared cores), each with `--json` and its own time limit (together
// at most 5 minutes), prints what each measured, and ends with ONE table: per backend, spawn →
// running and → ready, members left after a lead SIGKILL, dead-member detection and growth over
// spawn/kill cycles, each beside its goal (bench/summary-table.mjs). Prints figures; asserts
// nothing. `--json` prints `{ benches: { <file>: figures | { error } }, summary: rows }`.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { mergeByBackend, summaryTable } from './summary-table.mjs';

/**
 * Seconds each bench may take; the sum stays within the 5-minute budget of the whole run. Time a
 * bench leaves unused is handed on to the benches after it (tmux.mjs, last, gets the most).
 */
const LIMIT_SECONDS = {
  'in-process.mjs': 30,
  'member-monitor.mjs': 45,
  'lead-link.mjs': 35,
  'pty.mjs': 60,
  'iterm.mjs': 40,
  'tmux.mjs': 90,
};
/** A bench file added later gets this much until it is given its own line above. */
const DEFAULT_LIMIT_SECONDS = 20;
/** Files in bench/ that are not benches. */
const NOT_BENCHES = new Set(['run.mjs', 'summary-table.mjs']);
/** How long a bench gets to end after SIGTERM at its limit before SIGKILL. */
const TERMINATE_GRACE_MS = 3_000;

const json = process.argv.includes('--json');
const folder = path.dirname(fileURLToPath(import.meta.url));
const benches = readdirSync(folder)
  .filter((name) => name.endsWith('.mjs') && !NOT_BENCHES.has(name))
  .sort();

/** The last line of stdout that parses as a JSON object (a bench may print a note before it). */
function lastJsonObject(text) {
  const candidates = [text.trim(), ...text.trim().split('\n').reverse()];
  for (const candidate of candidates) {
    try {
      const value = JSON.parse(candidate);
      if (value !== null && typeof value === 'object') return value;
    } catch {
      // Not this line; try the one before.
    }
  }
  return undefined;
}

function runOne(name, limitSeconds) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(folder, name), '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), TERMINATE_GRACE_MS).unref();
    }, limitSeconds * 1_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      const figures = timedOut ? undefined : lastJsonObject(stdout);
      if (figures !== undefined && code === 0) {
        resolve({ name, seconds, figures });
        return;
      }
      const why = timedOut
        ? `did not finish within its ${Math.round(limitSeconds)} s limit`
        : `ended with ${signal ?? `code ${code}`}`;
      resolve({ name, seconds, error: `${why}: ${stderr.trim().slice(-400)}` });
    });
  });
}

const results = [];
let unusedSeconds = 0;
for (const name of benches) {
  const ownSeconds = LIMIT_SECONDS[name] ?? DEFAULT_LIMIT_SECONDS;
  const result = await runOne(name, ownSeconds + unusedSeconds);
  unusedSeconds = Math.max(0, ownSeconds + unusedSeconds - result.seconds);
  results.push(result);
}
const rows = mergeByBackend(results);
const totalSeconds = Math.round(results.reduce((total, result) => total + result.seconds, 0));

if (json) {
  const byName = Object.fromEntries(
    results.map((result) => [result.name, result.figures ?? { error: result.error }]),
  );
  process.stdout.write(`${JSON.stringify({ benches: byName, summary: rows, totalSeconds })}\n`);
} else {
  for (const result of results) {
    console.log(`\n== ${result.name} (${result.seconds} s)`);
    console.log(result.error ?? JSON.stringify(result.figures, null, 2));
  }
  console.log(
    `\n== summary: ${benches.length} benches in ${totalSeconds} s; p50 / p95 in ms; "not measured" = no bench gives it`,
  );
  for (const line of summaryTable(rows)) console.log(line);
  const failed = results.filter((result) => result.error !== undefined);
  if (failed.length > 0) {
    console.log(
      `\nNo figures from ${failed.map((result) => result.name).join(', ')} (see above); their cells are missing from the table.`,
    );
  }
}
