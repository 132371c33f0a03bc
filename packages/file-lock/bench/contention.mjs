// Lock contention benchmark: N processes each make M locked updates of one JSON counter.
// Prints one JSON line per scenario: throughput (updates/s over the common run time) and
// lock wait p50/p99 in ms. Run `pnpm --filter @muster/file-lock build` first.
// Usage: node bench/contention.mjs
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const worker = fileURLToPath(new URL('./contention-worker.mjs', import.meta.url));
const scenarios = [
  { processes: 1, updatesPerProcess: 300 },
  { processes: 8, updatesPerProcess: 60 },
  { processes: 32, updatesPerProcess: 20 },
];

function start(args) {
  const child = spawn(process.execPath, [worker, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  const ready = new Promise((resolve) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('ready\n')) resolve();
    });
  });
  const done = new Promise((resolve, reject) => {
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`worker exited with ${code}`));
      resolve(JSON.parse(output.trim().split('\n').at(-1)));
    });
  });
  return { ready, done };
}

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

for (const { processes, updatesPerProcess } of scenarios) {
  const folder = mkdtempSync(path.join(tmpdir(), 'muster-bench-'));
  try {
    const file = path.join(folder, 'counter.json');
    const go = path.join(folder, 'go');
    const workers = Array.from({ length: processes }, () =>
      start([file, String(updatesPerProcess), go]),
    );
    await Promise.all(workers.map((started) => started.ready));
    writeFileSync(go, '');
    const reports = await Promise.all(workers.map((started) => started.done));
    const total = processes * updatesPerProcess;
    const final = JSON.parse(readFileSync(file, 'utf8')).count;
    if (final !== total) throw new Error(`lost updates: expected ${total}, found ${final}`);
    const startedAt = Math.min(...reports.map((report) => report.startedAt));
    const endedAt = Math.max(...reports.map((report) => report.endedAt));
    const waits = reports.flatMap((report) => report.waits).sort((left, right) => left - right);
    const round = (value) => Math.round(value * 100) / 100;
    console.log(
      JSON.stringify({
        scenario: 'contention',
        processes,
        updatesPerProcess,
        updates: total,
        seconds: round((endedAt - startedAt) / 1000),
        throughputPerSecond: Math.round(total / ((endedAt - startedAt) / 1000)),
        waitP50Ms: round(percentile(waits, 0.5)),
        waitP99Ms: round(percentile(waits, 0.99)),
        waitMaxMs: round(waits.at(-1)),
      }),
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
