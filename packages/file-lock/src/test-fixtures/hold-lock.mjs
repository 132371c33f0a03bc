// Takes the lock, prints "locked <pid>", holds it for <holdMs> (or until killed when
// "forever"), then releases it and prints "released". With "exit" it calls process.exit(0)
// while still holding the lock.
// Usage: node hold-lock.mjs <file> <holdMs|forever|exit> [staleMs]
import { acquireFileLock } from '../../dist/index.js';

const [file, hold, staleText] = process.argv.slice(2);
const lock = await acquireFileLock(file, { staleMs: Number(staleText ?? 10_000) });
console.log(`locked ${process.pid}`);
if (hold === 'exit') {
  process.exit(0);
} else if (hold === 'forever') {
  setInterval(() => {}, 1_000);
} else {
  await new Promise((resolve) => setTimeout(resolve, Number(hold)));
  await lock.release();
  console.log('released');
}
