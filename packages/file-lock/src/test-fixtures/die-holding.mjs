// Waits for the lock, logs "enter <pid>", holds it for 20 ms, logs "exit <pid>", then
// kills itself with SIGKILL while still holding it, leaving the lock to be taken over.
// Usage: node die-holding.mjs <file> <log>
import { appendFileSync } from 'node:fs';
import { acquireFileLock } from '../../dist/index.js';

const [file, log] = process.argv.slice(2);
await acquireFileLock(file, { staleMs: 10_000, deadlineMs: 50_000 });
appendFileSync(log, `enter ${process.pid}\n`);
await new Promise((resolve) => setTimeout(resolve, 20));
appendFileSync(log, `exit ${process.pid}\n`);
process.kill(process.pid, 'SIGKILL');
