// Benchmark of followInboxes against inboxes emptied the way Claude Code 2.1.330 empties
// them: a writer process appends entries by temp file + rename under the inbox lock, a
// remover process deletes each one 20–100 ms after it appears (also temp file + rename).
// Prints one JSON line per scenario: entries written, recorded, lost, and the reaction
// latency from the writer's rename to the follower's read of the inbox (`readMs`, whole
// milliseconds) and to its history line (`recordedMs`), p50/p99/max.
// Scenarios: follower in a worker thread or in the main thread, main thread idle or busy
// (synchronous work in 200 ms slices, 250 ms apart), and shorter entry lifetimes.
// Usage: pnpm build && node bench/follow-inbox.mjs [--quick] [--only=<name>] [--json]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { followInboxes } from '../dist/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, '..', 'src', 'test-fixtures');
const quick = process.argv.includes('--quick');
const only = process.argv.find((argument) => argument.startsWith('--only='))?.slice(7);
const count = quick ? 200 : 1000;

const scenarios = [
  { name: 'worker-idle', thread: 'worker', busy: false, lifetime: [20, 100] },
  { name: 'worker-busy', thread: 'worker', busy: true, lifetime: [20, 100] },
  { name: 'main-idle', thread: 'main', busy: false, lifetime: [20, 100] },
  { name: 'main-busy', thread: 'main', busy: true, lifetime: [20, 100] },
  { name: 'worker-idle-short', thread: 'worker', busy: false, lifetime: [1, 10] },
  { name: 'worker-busy-short', thread: 'worker', busy: true, lifetime: [1, 10] },
];

function run(script, args) {
  const child = spawn(process.execPath, [path.join(fixtures, script), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const exited = new Promise((resolve, reject) =>
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${script} exited ${code}`)),
    ),
  );
  return { exited };
}

const percentile = (sorted, fraction) =>
  sorted.length === 0
    ? null
    : sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
const round = (value) => (value === null ? null : Math.round(value * 10) / 10);

async function runScenario(scenario) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'muster-follow-bench-'));
  const team = 'bench';
  const inbox = path.join(root, 'teams', team, 'inboxes', 'team-lead.json');
  mkdirSync(path.dirname(inbox), { recursive: true });
  const recordedAt = new Map();
  const controller = new AbortController();
  const follower = await followInboxes({
    root,
    team,
    thread: scenario.thread,
    signal: controller.signal,
    onEntry: ({ entry, firstSeenAt, recordedAtMs }) =>
      recordedAt.set(entry.msg_id, { seen: Date.parse(firstSeenAt), recorded: recordedAtMs }),
    onNotice: () => {},
  });
  let busy = scenario.busy;
  const busyLoop = async () => {
    while (busy) {
      const until = Date.now() + 200;
      while (Date.now() < until); // the main thread does nothing else for 200 ms
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const busyDone = busyLoop();
  const remover = run('removal-remover.mjs', [
    inbox,
    String(count),
    ...scenario.lifetime.map(String),
  ]);
  const writer = run('removal-writer.mjs', [inbox, 'alpha', String(count), '5']);
  const written = (await writer.exited)
    .split('\n')
    .filter((line) => line.startsWith('wrote '))
    .map((line) => line.split(' '));
  const removedLine = (await remover.exited).trim();
  busy = false;
  await busyDone;
  controller.abort();
  const summary = await follower.stopped;
  const seenWritten = written.filter(([, id]) => recordedAt.has(id));
  const sorted = (values) => values.sort((left, right) => left - right);
  // Read: rename → the reader's read (whole milliseconds). Recorded: rename → history line.
  const reaction = sorted(
    seenWritten.map(([, id, , dateAt]) => recordedAt.get(id).seen - Number(dateAt)),
  );
  const latencies = sorted(
    seenWritten.map(([, id, at]) => recordedAt.get(id).recorded - Number(at)),
  );
  rmSync(root, { recursive: true, force: true });
  return {
    scenario: scenario.name,
    thread: scenario.thread,
    mainThreadBusy: scenario.busy,
    lifetimeMs: scenario.lifetime,
    written: written.length,
    recorded: summary.recorded,
    lost: written.filter(([, id]) => !recordedAt.has(id)).length,
    lostIndexes: process.env.SHOW_LOST
      ? written
          .map(([, id], index) => (recordedAt.has(id) ? -1 : index))
          .filter((index) => index >= 0)
      : undefined,
    readMs: {
      p50: round(percentile(reaction, 0.5)),
      p99: round(percentile(reaction, 0.99)),
      max: round(reaction.at(-1) ?? null),
    },
    recordedMs: {
      p50: round(percentile(latencies, 0.5)),
      p99: round(percentile(latencies, 0.99)),
      max: round(latencies.at(-1) ?? null),
    },
    inboxReads: summary.inboxReads,
    remover: removedLine,
    loadAverage: os.loadavg()[0].toFixed(1),
  };
}

for (const scenario of scenarios) {
  if (only !== undefined && scenario.name !== only) continue;
  console.log(JSON.stringify(await runScenario(scenario)));
}
