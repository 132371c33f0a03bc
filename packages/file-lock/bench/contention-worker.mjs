// One contending process for bench/contention.mjs. Prints "ready", waits until the <go>
// file exists, makes <count> locked updates of <file>, then prints one JSON line with its
// start/end times and each update's lock wait (from calling updateFile until the update
// function runs: lock acquisition plus the read).
// Usage: node contention-worker.mjs <file> <count> <go>
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { updateFile } from '../dist/index.js';

const [file, countText, go] = process.argv.slice(2);
const count = Number(countText);
const now = () => performance.timeOrigin + performance.now();

console.log('ready');
while (!existsSync(go)) await new Promise((resolve) => setTimeout(resolve, 2));

const waits = [];
const startedAt = now();
for (let index = 0; index < count; index += 1) {
  const calledAt = now();
  let waited;
  await updateFile(file, {
    parse: (text) => JSON.parse(text),
    serialize: (value) => JSON.stringify(value, null, 2),
    update: (current) => {
      waited ??= now() - calledAt;
      return { count: (current?.count ?? 0) + 1 };
    },
    deadlineMs: 60_000,
    fsync: process.env.MUSTER_BENCH_FSYNC !== '0',
  });
  waits.push(waited);
}
console.log(JSON.stringify({ startedAt, endedAt: now(), waits }));
