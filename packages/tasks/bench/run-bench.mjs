// Benchmark of @muster/tasks with real processes, on the built package (dist). Prints one
// JSON line per measurement. Run: pnpm --filter @muster/tasks bench
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTaskStore } from '../dist/index.js';
import { runClaimRace, runCreateRace, runMixedRace } from '../src/test-fixtures/races.mjs';
import { performance } from 'node:perf_hooks';

const temporaryRoots = [];
async function freshRoot(label) {
  const root = await mkdtemp(path.join(tmpdir(), `muster-tasks-bench-${label}-`));
  temporaryRoots.push(root);
  return root;
}

function print(record) {
  process.stdout.write(`${JSON.stringify(record)}\n`);
}

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

/** Writes `count` task files directly (setup only), with a mix of owners, statuses and blockers. */
async function seedTaskFiles(root, team, count) {
  const folder = path.join(root, 'tasks', team);
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, '.lock'), '');
  for (let id = 1; id <= count; id += 1) {
    const task = {
      id: String(id),
      subject: `Task ${id}`,
      description: `Benchmark task number ${id}`,
      activeForm: `Working on task ${id}`,
      status: id % 3 === 0 ? 'completed' : id % 3 === 1 ? 'pending' : 'in_progress',
      blocks: [],
      blockedBy: id > 1 && id % 5 === 0 ? [String(id - 1)] : [],
      ...(id % 3 === 2 ? { owner: `agent-${id % 7}` } : {}),
    };
    await writeFile(path.join(folder, `${id}.json`), JSON.stringify(task, null, 2));
  }
}

/** p50 / p99 of `runs` listings; `fresh` opens a new store each time (nothing cached). */
async function measureListings(root, runs, fresh) {
  let store = createTaskStore({ root, team: 'bench' });
  await store.list(); // warm up the code (and, for the warm figures, the store's cache)
  const samples = [];
  let listed = 0;
  for (let run = 0; run < runs; run += 1) {
    if (fresh) store = createTaskStore({ root, team: 'bench' });
    const startedAt = performance.now();
    const result = await store.list();
    samples.push(performance.now() - startedAt);
    listed = result.tasks.length;
  }
  samples.sort((left, right) => left - right);
  return {
    listed,
    p50Ms: Number(percentile(samples, 0.5).toFixed(2)),
    p99Ms: Number(percentile(samples, 0.99).toFixed(2)),
  };
}

async function benchListLatency(count, runs) {
  const root = await freshRoot(`list-${count}`);
  await seedTaskFiles(root, 'bench', count);
  const cold = await measureListings(root, runs, true);
  const warm = await measureListings(root, runs, false);
  print({
    bench: 'list-latency',
    tasks: count,
    listed: cold.listed,
    runs,
    // A new store reads and validates every file (a CLI call); a long-lived store re-reads
    // only files whose identity changed since its last listing.
    coldP50Ms: cold.p50Ms,
    coldP99Ms: cold.p99Ms,
    warmP50Ms: warm.p50Ms,
    warmP99Ms: warm.p99Ms,
  });
}

try {
  for (const processes of [8, 32]) {
    const root = await freshRoot(`claim-${processes}`);
    const figures = await runClaimRace({ root, team: 'bench', processes, taskCount: 300 });
    print({
      bench: 'claim-race',
      processes,
      tasks: figures.tasks,
      claims: figures.claims,
      doubleClaims: figures.doubleClaims,
      everyTaskClaimedOnce:
        figures.doubleClaims === 0 &&
        figures.distinctClaimed === figures.tasks &&
        figures.unclaimed === 0,
      ownerMismatches: figures.ownerMismatches,
      timeMs: figures.wallMs,
    });
  }
  {
    const root = await freshRoot('create');
    const figures = await runCreateRace({ root, team: 'bench', processes: 8, total: 300 });
    print({
      bench: 'create-race',
      processes: 8,
      requested: figures.requested,
      files: figures.files,
      distinctIds: figures.distinctIds,
      highestId: figures.highestId,
      timeMs: figures.wallMs,
    });
  }
  {
    // Fairness on the team lock: 16 claimers (busy check) + 16 creators, each lock wait
    // bounded by a 10 s deadline; any LOCK_TIMEOUT is counted.
    const root = await freshRoot('mixed');
    const figures = await runMixedRace({
      root,
      team: 'bench',
      claimers: 16,
      creators: 16,
      count: 10,
      deadlineMs: 10_000,
    });
    print({
      bench: 'team-lock-fairness',
      processes: figures.processes,
      operations: figures.operations,
      lockTimeouts: figures.timeouts,
      longestOperationMs: figures.longestWaitMs,
      timeMs: figures.wallMs,
    });
  }
  await benchListLatency(100, 100);
  await benchListLatency(1_000, 30);
  await benchListLatency(10_000, 10);
} finally {
  for (const root of temporaryRoots) await rm(root, { recursive: true, force: true });
}
