// The claim race and the concurrent-create race, run with real processes. Shared by the
// tests and the benchmark; imports the built package (dist).
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTaskStore } from '../../dist/index.js';
import { performance } from 'node:perf_hooks';

const fixtures = path.dirname(fileURLToPath(import.meta.url));

/** Starts every worker, waits until all are ready, releases them at once, collects results. */
export async function runWorkers(script, argumentLists, startFile) {
  const workers = argumentLists.map((args) => startWorker(path.join(fixtures, script), args));
  await Promise.all(workers.map((worker) => worker.ready));
  const startedAt = performance.now();
  await writeFile(startFile, 'go');
  const results = await Promise.all(workers.map((worker) => worker.done));
  return { results, wallMs: performance.now() - startedAt };
}

function startWorker(script, args) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let markReady;
  const ready = new Promise((resolve) => (markReady = resolve));
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    if (stdout.includes('ready\n')) markReady();
  });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const done = new Promise((resolve, reject) => {
    child.on('close', (code) => {
      markReady();
      if (code !== 0) {
        reject(
          new Error(`${path.basename(script)} ${args.join(' ')} exited with ${code}: ${stderr}`),
        );
        return;
      }
      const lines = stdout.trim().split('\n');
      resolve(JSON.parse(lines[lines.length - 1]));
    });
  });
  return { ready, done };
}

/** Creates `count` pending tasks for a race. */
export async function seedTasks(root, team, count) {
  const store = createTaskStore({ root, team });
  for (let index = 0; index < count; index += 1) {
    await store.create({ subject: `Race task ${index + 1}`, description: 'claim me' });
  }
}

/**
 * `processes` claimers race for `taskCount` tasks. Returns the figures: total claims, double
 * claims (a task reported by two claimers), tasks never claimed, and files whose owner
 * differs from the claimer that reported the task.
 */
export async function runClaimRace({ root, team, processes, taskCount, mode = 'plain' }) {
  await seedTasks(root, team, taskCount);
  const startFile = path.join(root, `start-claim-${processes}`);
  const { results, wallMs } = await runWorkers(
    'claim-worker.mjs',
    Array.from({ length: processes }, (_, index) => [
      root,
      team,
      `agent-${index + 1}`,
      startFile,
      mode,
    ]),
    startFile,
  );
  const claimers = new Map();
  let doubleClaims = 0;
  for (const { agent, claimed } of results) {
    for (const id of claimed) {
      if (claimers.has(id)) doubleClaims += 1;
      else claimers.set(id, agent);
    }
  }
  const store = createTaskStore({ root, team });
  const { tasks, problems } = await store.list();
  let ownerMismatches = 0;
  for (const { task } of tasks) if (task.owner !== claimers.get(task.id)) ownerMismatches += 1;
  return {
    processes,
    tasks: taskCount,
    claims: results.reduce((sum, result) => sum + result.claimed.length, 0),
    distinctClaimed: claimers.size,
    doubleClaims,
    unclaimed: tasks.filter(({ task }) => !claimers.has(task.id)).length,
    ownerMismatches,
    problems: problems.length,
    perProcess: results.map((result) => result.claimed.length),
    wallMs: Math.round(wallMs),
  };
}

/** `processes` creators make `total` tasks between them at once. */
export async function runCreateRace({ root, team, processes, total }) {
  const startFile = path.join(root, `start-create-${processes}`);
  // Spread `total` over the processes (the first ones take one more when it does not divide).
  const countFor = (index) => Math.floor(total / processes) + (index < total % processes ? 1 : 0);
  const { results, wallMs } = await runWorkers(
    'create-worker.mjs',
    Array.from({ length: processes }, (_, index) => [
      root,
      team,
      String(index + 1),
      String(countFor(index)),
      startFile,
    ]),
    startFile,
  );
  const ids = results.flatMap((result) => result.ids);
  const directory = path.join(root, 'tasks', team);
  const files = (await readdir(directory)).filter((name) => /^[1-9][0-9]*\.json$/.test(name));
  const subjects = new Set();
  for (const name of files) {
    subjects.add(JSON.parse(await readFile(path.join(directory, name), 'utf8')).subject);
  }
  return {
    processes,
    requested: total,
    files: files.length,
    distinctIds: new Set(ids).size,
    distinctSubjects: subjects.size,
    highestId: Math.max(...ids.map(Number)),
    wallMs: Math.round(wallMs),
  };
}

/**
 * The fairness race: `claimers` processes claim-and-complete (busy check, team lock) and
 * `creators` processes create tasks (team lock), `count` operations each, all at once, each
 * operation waiting at most `deadlineMs` for a lock. Returns the LOCK_TIMEOUT count and the
 * operations done.
 */
export async function runMixedRace({ root, team, claimers, creators, count, deadlineMs }) {
  await seedTasks(root, team, claimers * count);
  const startFile = path.join(root, `start-mixed-${claimers}-${creators}`);
  const argumentLists = [
    ...Array.from({ length: claimers }, (_, index) => ['claim', `claimer-${index + 1}`]),
    ...Array.from({ length: creators }, (_, index) => ['create', `creator-${index + 1}`]),
  ].map(([role, name]) => [root, team, role, name, String(count), String(deadlineMs), startFile]);
  const { results, wallMs } = await runWorkers('mixed-worker.mjs', argumentLists, startFile);
  return {
    processes: results.length,
    operations: results.reduce((sum, result) => sum + result.done, 0),
    timeouts: results.reduce((sum, result) => sum + result.timeouts, 0),
    longestWaitMs: Math.max(...results.map((result) => result.longestWaitMs)),
    wallMs: Math.round(wallMs),
  };
}
