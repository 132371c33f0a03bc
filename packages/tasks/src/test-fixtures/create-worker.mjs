// A creator in the concurrent-create race: creates <count> tasks, then prints one JSON line
// with the ids it was given.
// Usage: node create-worker.mjs <root> <team> <worker> <count> <startFile>
import { createTaskStore } from '../../dist/index.js';
import { waitForStart } from './wait-for-start.mjs';
import { performance } from 'node:perf_hooks';

const [root, team, worker, count, startFile] = process.argv.slice(2);
const store = createTaskStore({ root, team, lock: { deadlineMs: 60_000 } });
await waitForStart(startFile);
const ids = [];
const startedAt = performance.now();
for (let index = 0; index < Number(count); index += 1) {
  const task = await store.create({
    subject: `Task ${worker}-${index}`,
    description: `Created by worker ${worker}`,
  });
  ids.push(task.id);
}
process.stdout.write(
  `${JSON.stringify({ worker, ids, elapsedMs: performance.now() - startedAt, cpuMs: process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000 })}\n`,
);
