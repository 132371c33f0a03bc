// Test child that treats one inbox the way Claude Code 2.1.330 does (FORMAT.md of the
// 2.1.330 reference: "Locks", "Delivery by removal"); written from that description, it
// shares no code with muster.
// - Lock: `mkdir <inbox>.lock`; on EEXIST up to 10 retries, 5–100 ms apart, then give up
//   (counted; the reader tries again at its next poll, the writer at its next turn).
// - Every write: `<name>.json.tmp.<8 hex>`, then rename over the inbox.
// - reader: reads without the lock, delivers every entry whose read !== true (prints
//   `delivered <msg_id or -> <text>`), then under the lock rewrites the inbox keeping only
//   unread entries not just delivered (matched by from|timestamp|text). An entry that shows
//   up again after it was removed prints `reappeared <text>`; an unlocked read that does not
//   parse prints `unparsable <bytes>`. Stops once `stopFile` exists and the inbox has
//   nothing left to deliver; prints `stats <json>`.
// - writer: appends `count` entries `{from: 'claude-code', text: 'cc-<i>', timestamp, msgV,
//   msg_id, type, read}` one by one under the lock; prints `ack cc-<i>` after each.
// Usage: node claude-code-2-1-330.mjs <inboxFile> reader <stopFile>
//        node claude-code-2-1-330.mjs <inboxFile> writer <count>
import { randomBytes, randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  watch,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

const [inbox, mode, argument] = process.argv.slice(2);
const lockPath = `${inbox}.lock`;
const stats = { lockAttempts: 0, lockRetries: 0, gaveUp: 0, writes: 0, unlockedReads: 0 };
const sleep = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));

async function takeLock() {
  for (let attempt = 0; attempt <= 10; attempt += 1) {
    stats.lockAttempts += 1;
    try {
      mkdirSync(lockPath);
      return true;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    if (attempt === 10) break;
    stats.lockRetries += 1;
    await sleep(5 + Math.random() * 95);
  }
  stats.gaveUp += 1;
  return false;
}

function readInbox() {
  let text;
  try {
    text = readFileSync(inbox, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
  const value = JSON.parse(text);
  return Array.isArray(value) ? value : [];
}

function writeInbox(entries) {
  const temporary = path.join(
    path.dirname(inbox),
    `${path.basename(inbox)}.tmp.${randomBytes(4).toString('hex')}`,
  );
  writeFileSync(temporary, JSON.stringify(entries, null, 2));
  renameSync(temporary, inbox);
  stats.writes += 1;
}

const keyOf = (entry) => `${entry.from}|${entry.timestamp}|${entry.text}`;

async function runReader(stopFile) {
  const removed = new Set();
  let waiting = new Map(); // key -> entry: delivered, not yet removed from the file
  let wake;
  const watcher = watch(path.dirname(inbox), () => wake?.());
  for (;;) {
    const stopping = existsSync(stopFile);
    let entries;
    try {
      stats.unlockedReads += 1;
      entries = readInbox();
    } catch (error) {
      process.stdout.write(`unparsable ${String(error.message).length}\n`);
      await sleep(5);
      continue;
    }
    for (const entry of entries) {
      if (entry.read === true) continue;
      const key = keyOf(entry);
      if (removed.has(key)) {
        process.stdout.write(`reappeared ${entry.text}\n`);
        continue;
      }
      if (waiting.has(key)) continue;
      waiting.set(key, entry);
      process.stdout.write(`delivered ${entry.msg_id ?? '-'} ${entry.text}\n`);
    }
    if (waiting.size > 0 && (await takeLock())) {
      try {
        const current = readInbox();
        const kept = current.filter((entry) => entry.read !== true && !waiting.has(keyOf(entry)));
        writeInbox(kept);
        for (const key of waiting.keys()) removed.add(key);
        waiting = new Map();
      } finally {
        rmdirSync(lockPath);
      }
    }
    if (stopping && waiting.size === 0 && entries.every((entry) => removed.has(keyOf(entry)))) {
      break;
    }
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 20);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = undefined;
  }
  watcher.close();
}

async function runWriter(count) {
  for (let index = 0; index < count; index += 1) {
    const entry = {
      from: 'claude-code',
      text: `cc-${index}`,
      timestamp: new Date().toISOString(),
      msgV: 1,
      msg_id: randomUUID(),
      type: 'message',
      read: false,
    };
    while (!(await takeLock())) await sleep(10);
    try {
      writeInbox([...readInbox(), entry]);
    } finally {
      rmdirSync(lockPath);
    }
    process.stdout.write(`ack ${entry.text}\n`);
    await sleep(Math.random() * 10);
  }
}

mkdirSync(path.dirname(inbox), { recursive: true });
process.stdout.write('ready\n');
if (mode === 'reader') await runReader(argument);
else await runWriter(Number(argument));
process.stdout.write(`stats ${JSON.stringify(stats)}\n`);
