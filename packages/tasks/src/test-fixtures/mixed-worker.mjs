// One of the 32 processes of the fairness race: a "claim" worker claims the next available
// task with the busy check (under the team lock) and completes it, <count> times; a
// "create" worker creates <count> tasks (under the team lock). Every operation that fails
// with LOCK_TIMEOUT is counted, not retried. Prints one JSON line at the end.
// Usage: node mixed-worker.mjs <root> <team> <claim|create> <name> <count> <deadlineMs> <startFile>
import { createTaskStore } from '../../dist/index.js';
import { waitForStart } from './wait-for-start.mjs';

const [root, team, role, name, countText, deadlineText, startFile] = process.argv.slice(2);
const store = createTaskStore({ root, team, lock: { deadlineMs: Number(deadlineText) } });
await waitForStart(startFile);
let done = 0;
let timeouts = 0;
let longestWaitMs = 0;
for (let index = 0; index < Number(countText); index += 1) {
  const startedAt = Date.now();
  try {
    if (role === 'create') {
      await store.create({ subject: `${name} ${index}`, description: 'fairness race' });
    } else {
      const result = await store.claimNextAvailable(name, { checkAgentBusy: true });
      if (result.success)
        await store.update(result.task.id, { status: 'completed' }, { agent: name });
    }
    done += 1;
  } catch (error) {
    if (error.code !== 'LOCK_TIMEOUT') throw error;
    timeouts += 1;
  }
  longestWaitMs = Math.max(longestWaitMs, Date.now() - startedAt);
}
process.stdout.write(`${JSON.stringify({ name, role, done, timeouts, longestWaitMs })}\n`);
