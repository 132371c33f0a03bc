// Uses the real proper-lockfile the way Claude Code does (lockSync, no retries).
// Usage: node proper-lockfile.mjs try <file>
//          prints "acquired" (then unlocks) or the error code, e.g. "ELOCKED"
//        node proper-lockfile.mjs hold <file> <holdMs> <log>
//          locks, appends "claude-start" and, just before unlocking, "claude-end" to <log>
import { appendFileSync } from 'node:fs';
import lockfile from 'proper-lockfile';

const [mode, file, holdText, log] = process.argv.slice(2);
if (mode === 'try') {
  try {
    const release = lockfile.lockSync(file);
    release();
    console.log('acquired');
  } catch (error) {
    console.log(error.code);
  }
} else {
  const release = lockfile.lockSync(file);
  appendFileSync(log, 'claude-start\n');
  console.log('locked');
  await new Promise((resolve) => setTimeout(resolve, Number(holdText)));
  appendFileSync(log, 'claude-end\n');
  release();
  console.log('unlocked');
}
