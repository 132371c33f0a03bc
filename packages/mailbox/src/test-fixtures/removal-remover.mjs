// Test child: delivers entries the way Claude Code 2.1.330 does, by removing them (plain
// Node, no muster code). It reads the inbox every 2 ms without the lock; each entry it sees
// gets a due time, `min..max` ms (random) after it first saw it; due entries are removed
// under the `<inbox>.lock` directory lock by writing `<inbox>.tmp.<8 hex>` and renaming it
// over the inbox, matching entries by from|timestamp|text as Claude Code does. Exits after
// removing `expected` entries and prints `removed <n> longest-lifetime-ms <ms>`.
// Usage: node removal-remover.mjs <inbox file> <expected> <min ms> <max ms>
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [inbox, expectedText, minText, maxText] = process.argv.slice(2);
const expected = Number(expectedText);
const minimumMs = Number(minText);
const maximumMs = Number(maxText);
const sleep = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));
const now = () => performance.timeOrigin + performance.now();
const keyOf = (entry) => `${entry.from}|${entry.timestamp}|${entry.text}`;

function readEntries() {
  try {
    const value = JSON.parse(readFileSync(inbox, 'utf8'));
    return Array.isArray(value) ? value : [];
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
}

const seen = new Map(); // key -> { firstSeen, due }
let removed = 0;
let longestLifetimeMs = 0;
process.stdout.write('ready\n');
while (removed < expected) {
  const at = now();
  const due = new Set();
  for (const entry of readEntries()) {
    const key = keyOf(entry);
    let state = seen.get(key);
    if (state === undefined) {
      state = { firstSeen: at, due: at + minimumMs + Math.random() * (maximumMs - minimumMs) };
      seen.set(key, state);
    }
    if (state.due <= at) due.add(key);
  }
  if (due.size > 0) {
    for (let attempt = 0; ; attempt += 1) {
      try {
        mkdirSync(`${inbox}.lock`);
        break;
      } catch (error) {
        if (error.code !== 'EEXIST' || attempt > 2000) throw error;
        await sleep(1 + Math.random() * 4);
      }
    }
    try {
      const entries = readEntries();
      const kept = entries.filter((entry) => !due.has(keyOf(entry)));
      const temporary = `${inbox}.tmp.${randomBytes(4).toString('hex')}`;
      writeFileSync(temporary, JSON.stringify(kept, null, 2));
      renameSync(temporary, inbox);
      const renamedAt = now();
      for (const entry of entries) {
        if (!due.has(keyOf(entry))) continue;
        removed += 1;
        longestLifetimeMs = Math.max(
          longestLifetimeMs,
          renamedAt - seen.get(keyOf(entry)).firstSeen,
        );
      }
    } finally {
      rmdirSync(`${inbox}.lock`);
    }
  }
  await sleep(2);
}
process.stdout.write(`removed ${removed} longest-lifetime-ms ${longestLifetimeMs.toFixed(1)}\n`);
