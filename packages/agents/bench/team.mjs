// Team benchmark of @muster/agents (issue 16), over the built dist/ of the packages: a real team
// on disk, N in-process teammates (runTeammate), each with its own @muster/scripted-model fetch —
// a TEST DOUBLE of the Messages API, zero latency, in process, behind the real SDK. Each teammate
// works `--turns` lead-driven turns with tool calls (Read, Glob, every fifth round a slow Hold
// tool), SendMessage to a peer (and every fifth turn to the lead), and takes tasks from the
// shared list. Prints, per N, the runtime overhead per turn, memory per teammate, wake latency,
// lead fan-out and mid-turn delivery latencies, lost messages and double claims, plus the fork
// figures of packages/query/bench/fork.mjs (run, not duplicated), beside the goals. Asserts
// nothing. Each size runs in its own process (clean memory figures), bounded in time.
// Usage: node bench/team.mjs [--json] [--teammates N] [--turns N] [--wake-samples N] [--no-fork]
//   [--root DIR] (make the team under DIR instead of the system's temporary folder, e.g. /dev/shm
//   to see the runtime without the disk's fsync cost)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const json = argv.includes('--json');
function integer(flag, fallback, minimum = 1) {
  const index = argv.indexOf(flag);
  if (index === -1) return fallback;
  const value = Number(argv[index + 1]);
  if (!Number.isInteger(value) || value < minimum) {
    console.error(`bench/team: ${flag} must be an integer ≥ ${minimum}, got ${argv[index + 1]}.`);
    process.exit(2);
  }
  return value;
}
const turns = integer('--turns', 20);
const wakeSamples = integer('--wake-samples', 40);
// 1 teammate is the baseline: the same turns without other teammates competing for the CPU.
const sizes = argv.includes('--teammates') ? [integer('--teammates', 16)] : [1, 16, 32];
const rootIndex = argv.indexOf('--root');
const parent = rootIndex === -1 ? undefined : argv[rootIndex + 1];
if (rootIndex !== -1 && (parent === undefined || !existsSync(parent))) {
  console.error(`bench/team: --root needs an existing folder to make the team in, got ${parent}.`);
  process.exit(2);
}
/** Each size must end within this (0.6 s per teammate round, at least 5 minutes). */
const limitMs = (size) => Math.max(300_000, size * turns * 600);
const GOALS = { wakeP99Ms: 25, residentMiB32: 1024, forkByteIdentity: 1, forkCacheShare: 0.95 };

if (argv.includes('--child')) {
  // One size, in this process; prints its figures as one JSON line.
  const { runTeamBench } = await import('./support/team-run.mjs');
  const limit = setTimeout(() => {
    console.error(
      `bench/team: ${sizes[0]} teammates still running after ${limitMs(sizes[0]) / 1000} s; stopped.`,
    );
    process.exit(1);
  }, limitMs(sizes[0]));
  limit.unref();
  const collect = garbageCollector();
  const begun = Date.now();
  const figures = await runTeamBench({
    teammates: sizes[0],
    turns,
    holdEvery: 5,
    holdMs: 50,
    wakeSamples,
    settleMs: 50,
    collect: () => collect?.(),
    ...(parent === undefined ? {} : { parent }),
  });
  figures.gcForced = collect !== undefined;
  figures.seconds = Math.round((Date.now() - begun) / 100) / 10;
  console.log(JSON.stringify(figures));
  clearTimeout(limit);
  process.exit(0);
}

function garbageCollector() {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc');
  } catch {
    return undefined;
  }
}

function runChild(args, script, timeoutMs) {
  const result = spawnSync(process.execPath, ['--expose-gc', script, ...args], {
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status !== 0) {
    return {
      error: `${script} ${args.join(' ')} ended with ${result.status ?? result.signal}: ${(result.stderr || result.stdout).trim().slice(-800)}`,
    };
  }
  // bench/team.mjs --child prints one line; fork.mjs --json prints indented JSON.
  return JSON.parse(result.stdout);
}

const results = [];
for (const size of sizes) {
  results.push(
    runChild(
      [
        '--child',
        ...[
          '--teammates',
          String(size),
          '--turns',
          String(turns),
          '--wake-samples',
          String(wakeSamples),
        ],
        ...(parent === undefined ? [] : ['--root', parent]),
      ],
      join(here, 'team.mjs'),
      limitMs(size) + 10_000,
    ),
  );
}
let fork;
const forkScript = join(here, '..', '..', 'query', 'bench', 'fork.mjs');
if (!argv.includes('--no-fork')) {
  fork = existsSync(forkScript)
    ? runChild(['--json'], forkScript, 90_000)
    : { error: `${forkScript} is missing (the fork figures come from @muster/query's bench).` };
}

const verdict = (good) => (good ? 'ok' : 'MISSED');
const rows = [];
const row = (name, values, goal = '', judged = '') => rows.push([name, ...values, goal, judged]);
const each = (pick) => results.map((result) => (result.error ? 'failed' : pick(result)));
const all = (test) => results.every((result) => !result.error && test(result));
const pair = (figure) => `${figure.p50Ms} / ${figure.p99Ms}`;
row(
  'work turn minus script time p50 / p99 ms',
  each((result) => pair(result.overheadPerWorkTurn)),
);
row(
  'CPU per turn (all turns) ms',
  each((result) => result.cpuPerTurnMs),
);
row(
  'turns: work / peer / task / hold / ping',
  each((result) =>
    ['work', 'peer', 'task', 'hold', 'ping'].map((kind) => result.turns[kind] ?? 0).join(' / '),
  ),
);
row(
  'RSS per teammate started / after run MiB',
  each(
    (result) => `${result.memory.rssPerTeammateStartedMiB} / ${result.memory.rssPerTeammateEndMiB}`,
  ),
);
row(
  'heap per teammate started / after run MiB',
  each(
    (result) =>
      `${result.memory.heapPerTeammateStartedMiB} / ${result.memory.heapPerTeammateEndMiB}`,
  ),
);
row(
  'process RSS at end / peak MiB',
  each((result) => `${result.memory.rssEndMiB} / ${result.memory.maxRssMiB}`),
  `32: < ${GOALS.residentMiB32}`,
  results.some((result) => result.teammates === 32)
    ? verdict(
        all((result) => result.teammates !== 32 || result.memory.maxRssMiB < GOALS.residentMiB32),
      )
    : '',
);
row(
  'wake p50 / p99 ms (settled idle teammate)',
  each((result) => pair(result.wake)),
  `p99 ≤ ${GOALS.wakeP99Ms}`,
  verdict(all((result) => result.wake.p99Ms <= GOALS.wakeP99Ms)),
);
row(
  'lead fan-out → request p50 / p99 ms',
  each((result) => pair(result.fanOut)),
);
row(
  'mid-turn: written → request p50 / p99 ms (tool runs 50 ms on)',
  each((result) => pair(result.midTurn.written)),
);
row(
  'mid-turn: tool end → request p50 / p99 ms',
  each((result) => pair(result.midTurn.afterTool)),
);
row(
  'mid-turn: delivered at the boundary',
  each((result) => `${result.midTurn.atBoundary}/${result.midTurn.samples}`),
);
row(
  'messages written / lost',
  each((result) => `${result.messages.written} / ${result.messages.lost}`),
  'lost 0',
  verdict(all((result) => result.messages.lost === 0 && result.messages.undelivered === 0)),
);
row(
  'idle notifications sent / read by lead',
  each(
    (result) =>
      `${result.messages.idleNotificationsEmitted} / ${result.messages.idleNotificationsReadByLead}`,
  ),
);
row(
  'tasks created / completed, double claims',
  each(
    (result) => `${result.tasks.created} / ${result.tasks.completed}, ${result.tasks.doubleClaims}`,
  ),
  'double 0',
  verdict(all((result) => result.tasks.doubleClaims === 0)),
);
row(
  'seconds',
  each((result) => result.seconds),
);
if (fork !== undefined && fork.error === undefined) {
  const identity = Math.min(...fork.forks.map((entry) => entry.byteIdentity));
  const share = Math.min(...fork.forks.map((entry) => entry.cacheShareStaggeredMin));
  const note = `(query fork.mjs, N=${fork.forks.map((entry) => entry.children).join('/')})`;
  row(
    `fork byte identity, min ${note}`,
    sizes.map(() => ''),
    '100 %',
    verdict(identity >= GOALS.forkByteIdentity),
  );
  rows.at(-1)[1] = `${(identity * 100).toFixed(0)} %`;
  row(
    `fork cache share children 2..N, min ${note}`,
    sizes.map(() => ''),
    `≥ ${GOALS.forkCacheShare}`,
    verdict(share >= GOALS.forkCacheShare),
  );
  rows.at(-1)[1] = share.toFixed(3);
}

if (json) {
  console.log(
    JSON.stringify({
      bench: 'agents/team',
      node: process.version,
      turns,
      teamFolder: parent ?? tmpdir(),
      goals: GOALS,
      sizes: results,
      fork,
    }),
  );
} else {
  console.log(
    `agents team bench (node ${process.version}; scripted model = TEST DOUBLE, in process, zero latency; ${turns} lead rounds per teammate; team folder under ${parent ?? tmpdir()})`,
  );
  const header = ['', ...sizes.map((size) => `${size} teammates`), 'goal', ''];
  const widths = header.map((_cell, column) =>
    Math.max(...[header, ...rows].map((line) => String(line[column]).length)),
  );
  for (const line of [header, ...rows]) {
    console.log(
      `  ${line
        .map((cell, column) => String(cell).padEnd(widths[column]))
        .join('  ')
        .trimEnd()}`,
    );
  }
  for (const result of results) if (result.error) console.log(`  failed: ${result.error}`);
  if (fork?.error) console.log(`  fork figures: ${fork.error}`);
  for (const result of results) {
    if (!result.error && result.noticeCount > 0) {
      console.log(
        `  ${result.teammates} teammates: ${result.noticeCount} notices, e.g. ${result.notices[0]}`,
      );
    }
  }
}
if (results.some((result) => result.error) || fork?.error) process.exitCode = 1;
