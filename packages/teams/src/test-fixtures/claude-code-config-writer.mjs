// A config writer that locks as Claude Code 2.1.330 does: mkdir config.json.lock with 10
// retries and 5–100 ms backoff, then rewrites config.json in place (not atomically) and
// removes the lock. Usage: node claude-code-config-writer.mjs <configPath> <seenHeldMarker>
// <member> <true|false>: sets that member's isActive. Writes <seenHeldMarker> the first time
// it finds the lock taken. Prints {"acquired", "failedAttempts"}; exits 2 when it gave up.
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
  writeSync,
} from 'node:fs';

const [configPath, seenHeldMarker, member, active] = process.argv.slice(2);
const lockDirectory = `${configPath}.lock`;
const retries = 10;
let failedAttempts = 0;
let delayMs = 5;
for (;;) {
  try {
    mkdirSync(lockDirectory);
    break;
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
    if (failedAttempts === 0) writeFileSync(seenHeldMarker, '');
    failedAttempts += 1;
    if (failedAttempts > retries) {
      process.stdout.write(`${JSON.stringify({ acquired: false, failedAttempts })}\n`);
      process.exit(2);
    }
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    delayMs = Math.min(delayMs * 2, 100);
  }
}
const config = JSON.parse(readFileSync(configPath, 'utf8'));
config.members.find((entry) => entry.name === member).isActive = active === 'true';
// In place, as 2.1.330 rewrites config.json: open (truncating), write, close.
const descriptor = openSync(configPath, 'w');
writeSync(descriptor, JSON.stringify(config, null, 2));
closeSync(descriptor);
rmdirSync(lockDirectory);
process.stdout.write(`${JSON.stringify({ acquired: true, failedAttempts })}\n`);
