#!/usr/bin/env node
// Benchmark of the in-process backend (the built dist/): `node bench/in-process.mjs [--json]`.
// Prints figures; asserts nothing. Bounded: exits after 60 s.
//   spawn latency (n = 50): spawn() call → run's first statement ("running") and → ready
//   identity: calls per second through currentMember() with 8 members, and misattributions
//   CPU sharing (R28): how late one member's 10 ms timer fires while another runs a 300 ms loop
//   cycles (R33): process listeners and active resources before and after 100 spawn/kill cycles
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInProcessBackend, currentMember } from '../dist/index.js';

const LIMIT_MS = 60_000;
const json = process.argv.includes('--json');
const limit = setTimeout(() => {
  console.error(`bench: still running after ${LIMIT_MS / 1000} s; stopped`);
  process.exit(1);
}, LIMIT_MS);
limit.unref();

const folder = mkdtempSync(join(tmpdir(), 'muster-in-process-bench-'));
const team = 'bench-team';
const spec = (agentName, run) => ({
  root: folder,
  teamName: team,
  agentName,
  agentId: `${agentName}@${team}`,
  cwd: folder,
  run,
});
const untilAborted = (signal) =>
  new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

async function spawnLatency(count) {
  const backend = createInProcessBackend();
  const running = [];
  const ready = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    let runningAt = 0;
    const handle = await backend.spawn(
      spec(`latency-${index}`, async (context) => {
        runningAt = performance.now();
        context.ready();
        await untilAborted(context.signal);
      }),
    );
    await handle.ready;
    ready.push(performance.now() - started);
    running.push(runningAt - started);
  }
  await backend.close();
  return {
    n: count,
    runningP50Ms: percentile(running, 0.5),
    runningP95Ms: percentile(running, 0.95),
    readyP50Ms: percentile(ready, 0.5),
    readyP95Ms: percentile(ready, 0.95),
  };
}

async function identityThroughput(members, callsPerMember) {
  const backend = createInProcessBackend();
  let misattributed = 0;
  const started = performance.now();
  const handles = [];
  for (let index = 0; index < members; index += 1) {
    handles.push(
      await backend.spawn(
        spec(`identity-${index}`, async (context) => {
          context.ready();
          for (let call = 0; call < callsPerMember; call += 1) {
            if (call % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
            if (currentMember()?.agentId !== context.agentId) misattributed += 1;
          }
        }),
      ),
    );
  }
  await Promise.all(handles.map((handle) => handle.exited));
  const seconds = (performance.now() - started) / 1000;
  await backend.close();
  return {
    members,
    calls: members * callsPerMember,
    callsPerSecond: Math.round((members * callsPerMember) / seconds),
    misattributed,
  };
}

async function cpuSharing() {
  const backend = createInProcessBackend();
  let lateByMs = 0;
  const waiter = await backend.spawn(
    spec('waiter', async (context) => {
      context.ready();
      const planned = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 10));
      lateByMs = performance.now() - planned - 10;
    }),
  );
  const busy = await backend.spawn(
    spec('busy', async (context) => {
      context.ready();
      const until = performance.now() + 300;
      while (performance.now() < until) {
        // a CPU-bound "tool" on the main thread
      }
    }),
  );
  await Promise.all([waiter.exited, busy.exited]);
  await backend.close();
  return { timerMs: 10, loopMs: 300, timerLateByMs: lateByMs };
}

async function cycles(count) {
  const snapshot = () => ({
    uncaughtExceptionListeners: process.listenerCount('uncaughtException'),
    unhandledRejectionListeners: process.listenerCount('unhandledRejection'),
    activeResources: process.getActiveResourcesInfo().length,
    heapUsedMb: Math.round(process.memoryUsage().heapUsed / 1e5) / 10,
  });
  const before = snapshot();
  for (let cycle = 0; cycle < count; cycle += 1) {
    const backend = createInProcessBackend();
    const handle = await backend.spawn(
      spec(`cycle-${cycle}`, async (context) => {
        context.ready();
        await untilAborted(context.signal);
      }),
    );
    await handle.ready;
    await handle.kill();
    await backend.close();
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { cycles: count, before, after: snapshot() };
}

try {
  const results = {
    spawn: await spawnLatency(50),
    identity: await identityThroughput(8, 20_000),
    cpuSharing: await cpuSharing(),
    cycles: await cycles(100),
  };
  if (json) {
    console.log(JSON.stringify({ backend: 'in-process', ...results }, null, 2));
  } else {
    const { spawn, identity, cpuSharing: cpu, cycles: cycle } = results;
    const ms = (value) => `${value.toFixed(2)} ms`;
    console.log('in-process backend');
    console.log(
      `  spawn → running   p50 ${ms(spawn.runningP50Ms)}  p95 ${ms(spawn.runningP95Ms)}  (n = ${spawn.n}; target p95 ≤ 5 ms)`,
    );
    console.log(`  spawn → ready     p50 ${ms(spawn.readyP50Ms)}  p95 ${ms(spawn.readyP95Ms)}`);
    console.log(
      `  identity          ${identity.calls} calls by ${identity.members} members, ${identity.callsPerSecond} calls/s, ${identity.misattributed} misattributed`,
    );
    console.log(
      `  CPU sharing       a ${cpu.timerMs} ms timer fired ${ms(cpu.timerLateByMs)} late while another member looped ${cpu.loopMs} ms (why CPU-bound tools must leave the main thread)`,
    );
    console.log(
      `  100 cycles        uncaughtException listeners ${cycle.before.uncaughtExceptionListeners} → ${cycle.after.uncaughtExceptionListeners}, active resources ${cycle.before.activeResources} → ${cycle.after.activeResources}, heap ${cycle.before.heapUsedMb} → ${cycle.after.heapUsedMb} MB`,
    );
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
