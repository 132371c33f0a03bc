// Test child: writes inbox entries the way Claude Code 2.1.330 does (plain Node, no muster
// code): under the `<inbox>.lock` directory lock, read the array, append one entry with
// msgV/msg_id/type, write `<inbox>.tmp.<8 hex>`, rename it over the inbox. Prints
// `wrote <msg_id> <epoch ms of the rename (performance clock)> <Date.now() then>` for each
// entry, then `done`.
// Usage: node removal-writer.mjs <inbox file> <from> <count> <pause ms between entries>
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [inbox, from, countText, pauseText] = process.argv.slice(2);
const count = Number(countText);
const pauseMs = Number(pauseText);
const sleep = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));

async function withInboxLock(file, action) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      mkdirSync(`${file}.lock`);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST' || attempt > 2000) throw error;
      await sleep(1 + Math.random() * 4);
    }
  }
  try {
    return action();
  } finally {
    rmdirSync(`${file}.lock`);
  }
}

function readEntries(file) {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(value) ? value : [];
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
}

process.stdout.write('ready\n');
for (let index = 0; index < count; index += 1) {
  const entry = {
    from,
    text: `${from} entry ${index}`,
    summary: `entry ${index}`,
    timestamp: new Date().toISOString(),
    color: 'blue',
    msgV: 1,
    msg_id: randomUUID(),
    type: 'message',
    read: false,
  };
  const renamedAt = await withInboxLock(inbox, () => {
    const entries = readEntries(inbox);
    entries.push(entry);
    const temporary = `${inbox}.tmp.${randomBytes(4).toString('hex')}`;
    writeFileSync(temporary, JSON.stringify(entries, null, 2));
    renameSync(temporary, inbox);
    return `${performance.timeOrigin + performance.now()} ${Date.now()}`;
  });
  process.stdout.write(`wrote ${entry.msg_id} ${renamedAt}\n`);
  if (pauseMs > 0) await sleep(pauseMs);
}
process.stdout.write('done\n');
