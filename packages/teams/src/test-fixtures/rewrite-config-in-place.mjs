// Rewrites config.json in place over and over, the way Claude Code 2.1.330 does (truncate,
// then write), in two halves with a pause between them, so a reader without the lock often
// sees an empty or half-written file. Usage: node rewrite-config-in-place.mjs <configPath>
// <rewrites> <lock|nolock>. With "lock" every rewrite holds config.json.lock (mkdir/rmdir,
// retrying while it is taken). Prints "started" after the first rewrite and "done" at the end.
import { closeSync, mkdirSync, openSync, readFileSync, rmdirSync, writeSync } from 'node:fs';

const [configPath, rewritesText, lockMode] = process.argv.slice(2);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const config = JSON.parse(readFileSync(configPath, 'utf8'));
for (let rewrite = 0; rewrite < Number(rewritesText); rewrite += 1) {
  if (lockMode === 'lock') {
    for (;;) {
      try {
        mkdirSync(`${configPath}.lock`);
        break;
      } catch (error) {
        if (error.code !== 'EEXIST') throw error;
        await sleep(5);
      }
    }
  }
  config.members[0].isActive = rewrite % 2 === 0;
  const text = Buffer.from(JSON.stringify(config, null, 2));
  const half = Math.floor(text.length / 2);
  const descriptor = openSync(configPath, 'w');
  writeSync(descriptor, text, 0, half);
  await sleep(3);
  writeSync(descriptor, text, half, text.length - half);
  closeSync(descriptor);
  if (lockMode === 'lock') rmdirSync(`${configPath}.lock`);
  if (rewrite === 0) process.stdout.write('started\n');
  await sleep(4);
}
process.stdout.write('done\n');
