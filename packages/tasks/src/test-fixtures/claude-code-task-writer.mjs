// A task writer that locks as Claude Code 2.1.330 does (mkdir lock directories, retries with
// 5–100 ms backoff; the lock is removed with rmdir). It keeps working until it has done
// <writes> changes and found the lock taken by someone else at least once (at most 2000
// rounds). Prints {"done", "gaveUp", "sawHeld", "ids"} at the end.
// Usage: node claude-code-task-writer.mjs update <taskFile> <writes>
//          appends "cc-<n>" to metadata.log of the task, under <taskFile>.lock (10 retries),
//          writing <id>.json.tmp.<8 hex> and renaming it over the task
//        node claude-code-task-writer.mjs create <taskFolder> <writes>
//          creates tasks under <taskFolder>/.lock.lock (30 retries): id = max(file ids,
//          .highwatermark) + 1, a plain write of <id>.json with subject "cc-<n>"
import { randomBytes } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

const [mode, target, writesText] = process.argv.slice(2);
const wanted = Number(writesText);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let sawHeld = 0;
let gaveUp = 0;
let done = 0;
const ids = [];

/** mkdir with retries as proper-lockfile does; false when every retry found it taken. */
async function lock(directory, retries) {
  let delayMs = 5;
  for (let attempt = 0; ; attempt += 1) {
    try {
      mkdirSync(directory);
      return true;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      sawHeld += 1;
      if (attempt >= retries) return false;
      await sleep(delayMs);
      delayMs = Math.min(delayMs * 2, 100);
    }
  }
}

function nextId(folder) {
  let highest = 0;
  for (const name of readdirSync(folder)) {
    const match = /^([1-9][0-9]*)\.json$/.exec(name);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  try {
    highest = Math.max(highest, Number(readFileSync(path.join(folder, '.highwatermark'), 'utf8')));
  } catch {
    // No watermark yet.
  }
  return String(highest + 1);
}

for (let round = 0; round < 2000 && (done < wanted || sawHeld === 0); round += 1) {
  if (mode === 'update') {
    const lockDirectory = `${target}.lock`;
    if (!(await lock(lockDirectory, 10))) {
      gaveUp += 1;
      continue;
    }
    const task = JSON.parse(readFileSync(target, 'utf8'));
    task.metadata = { ...task.metadata, log: [...(task.metadata?.log ?? []), `cc-${done}`] };
    const temporary = `${target}.tmp.${randomBytes(4).toString('hex')}`;
    writeFileSync(temporary, JSON.stringify(task, null, 2));
    renameSync(temporary, target);
    rmdirSync(lockDirectory);
  } else {
    const lockDirectory = path.join(target, '.lock.lock');
    if (!(await lock(lockDirectory, 30))) {
      gaveUp += 1;
      continue;
    }
    const id = nextId(target);
    const task = {
      id,
      subject: `cc-${done}`,
      description: 'made by the 2.1.330-style writer',
      status: 'pending',
      blocks: [],
      blockedBy: [],
    };
    writeFileSync(path.join(target, `${id}.json`), JSON.stringify(task, null, 2));
    rmdirSync(lockDirectory);
    ids.push(id);
  }
  done += 1;
  await sleep(2);
}
process.stdout.write(`${JSON.stringify({ done, gaveUp, sawHeld, ids })}\n`);
