// One process of the dependency-removal race: removes "<blocker> blocks <blocked>" and
// prints one JSON line with the result. Imports the built package (dist).
// Usage: node remove-dependency-worker.mjs <root> <team> <blockerId> <blockedId>
import { removeTaskDependencies } from '../../dist/index.js';

const [root, team, blockerId, blockedId] = process.argv.slice(2);
const [result] = await removeTaskDependencies({ root, team, lock: { deadlineMs: 60_000 } }, [
  { blockerId, blockedId },
]);
process.stdout.write(`${JSON.stringify(result)}\n`);
