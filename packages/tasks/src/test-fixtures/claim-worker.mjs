// A claimer in the claim race: claims the next available task until none is left, then
// prints one JSON line with the ids it claimed.
// Usage: node claim-worker.mjs <root> <team> <agent> <startFile> [busy]
import { createTaskStore } from '../../dist/index.js';
import { waitForStart } from './wait-for-start.mjs';
import { performance } from 'node:perf_hooks';

const [root, team, agent, startFile, mode] = process.argv.slice(2);
const store = createTaskStore({ root, team, lock: { deadlineMs: 60_000 } });
await waitForStart(startFile);
const claimed = [];
const startedAt = performance.now();
for (;;) {
  const result = await store.claimNextAvailable(agent, { checkAgentBusy: mode === 'busy' });
  if (!result.success) {
    if (result.reason === 'no_available_task') break;
    throw new Error(`unexpected claim failure: ${JSON.stringify(result)}`);
  }
  claimed.push(result.task.id);
  if (mode === 'busy') await store.update(result.task.id, { status: 'completed' }, { agent });
}
process.stdout.write(
  `${JSON.stringify({ agent, claimed, elapsedMs: performance.now() - startedAt, cpuMs: process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000 })}\n`,
);
