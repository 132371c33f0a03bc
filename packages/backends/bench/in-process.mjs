#!/usr/bin/env node
// Benchmark of the in-process backend (the built dist/): `node bench/in-process.mjs [--json]`.
// Prints figures; asserts nothing. Bounded: exits after 60 s.
//   spawn latency (n = 50): spawn() call → run's first statement ("running") and → ready
//   identity: calls per second through currentMember() with 8 members, and misattributions
//   CPU sharing (R28): how late one member's 10 ms timer fires while another runs a 300 ms loop
//   cycles (R33): process listeners and active resources before and after 100 spawn/kill cycles
//   crash detection: a member's run throws → its `exited` reports it (n = 20)
//   lead SIGKILL (R31): a lead process whose 2 in-process members each run a "tool" the way
//     @muster/tools' Bash does (`/bin/bash -c 'sleep 1000 & wait'` in its own process group,
//     with the member's context.environment: the process reaper's MUSTER_LEAD_RUN marker) is
//     SIGKILLed; processes of those tools still alive 5 s later (then killed here), and when
//     the last one went
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

async function crashDetection(count) {
  const backend = createInProcessBackend();
  const latencies = [];
  for (let index = 0; index < count; index += 1) {
    let thrownAt = 0;
    const handle = await backend.spawn(
      spec(`crash-${index}`, async (context) => {
        context.ready();
        await new Promise((resolve) => setTimeout(resolve, 5));
        thrownAt = performance.now();
        throw new Error('bench: member fails on purpose');
      }),
    );
    await handle.exited;
    latencies.push(performance.now() - thrownAt);
  }
  await backend.close();
  return { n: count, p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) };
}

// The lead: 2 members, each starting a tool like the Bash tool does, then prints every pid.
const leadScript = `
import { spawn } from 'node:child_process';
import { createInProcessBackend } from ${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)};
const backend = createInProcessBackend();
const pids = [];
for (const name of ['one', 'two']) {
  const handle = await backend.spawn({
    root: process.argv[1], teamName: 'doomed', agentName: name, agentId: name + '@doomed',
    cwd: process.argv[1],
    run: async (context) => {
      const tool = spawn('/bin/bash', ['-c', 'sleep 1000 & echo $!; wait'], {
        detached: true, stdio: ['ignore', 'pipe', 'ignore'],
        env: { ...process.env, ...context.environment },
      });
      const grandchild = await new Promise((resolve) => tool.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim()))));
      pids.push(tool.pid, grandchild);
      context.signal.addEventListener('abort', () => process.kill(-tool.pid, 'SIGKILL'));
      context.ready();
      await new Promise(() => {});
    },
  });
  await handle.ready;
}
console.log(JSON.stringify({ pids }));
setInterval(() => {}, 1000);
`;

// Running = the pid exists and (where /proc tells) is not a zombie waiting for init to reap it.
const runs = (pid) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
};

async function leadSigkill() {
  const lead = spawn(process.execPath, ['--input-type=module', '-e', leadScript, folder], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    let output = '';
    lead.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('\n')) resolve(output.split('\n')[0]);
    });
    lead.once('exit', () => reject(new Error('the lead ended before its members were ready')));
  });
  const { pids } = JSON.parse(line);
  lead.kill('SIGKILL');
  const killedAt = performance.now();
  let goneAfterMs;
  while (performance.now() - killedAt < 5_000) {
    if (goneAfterMs === undefined && !pids.some(runs)) goneAfterMs = performance.now() - killedAt;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const survivors = pids.filter(runs);
  for (const pid of survivors) process.kill(pid, 'SIGKILL');
  return { watched: pids.length, survivors: survivors.length, goneAfterMs };
}

try {
  const results = {
    spawn: await spawnLatency(50),
    identity: await identityThroughput(8, 20_000),
    cpuSharing: await cpuSharing(),
    cycles: await cycles(100),
    crashDetectionMs: await crashDetection(20),
    leadSigkill: await leadSigkill(),
  };
  const { spawn: latency, cycles: cycle } = results;
  const summary = [
    {
      backend: 'in-process',
      spawnToRunningMs: { n: latency.n, p50: latency.runningP50Ms, p95: latency.runningP95Ms },
      spawnToReadyMs: { n: latency.n, p50: latency.readyP50Ms, p95: latency.readyP95Ms },
      orphansAfterLeadKill: results.leadSigkill,
      deadDetectionMs: results.crashDetectionMs,
      cycles: {
        cycles: cycle.cycles,
        listenerGrowth:
          cycle.after.uncaughtExceptionListeners +
          cycle.after.unhandledRejectionListeners -
          cycle.before.uncaughtExceptionListeners -
          cycle.before.unhandledRejectionListeners,
        resourceGrowth: cycle.after.activeResources - cycle.before.activeResources,
      },
    },
  ];
  if (json) {
    console.log(JSON.stringify({ backend: 'in-process', ...results, summary }));
  } else {
    const { identity, cpuSharing: cpu } = results;
    const spawn = latency;
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
    const crash = results.crashDetectionMs;
    console.log(`  crash → exited    p50 ${ms(crash.p50)}  p95 ${ms(crash.p95)}  (n = ${crash.n})`);
    const { leadSigkill: killed } = results;
    const gone =
      killed.goneAfterMs === undefined
        ? ''
        : ` (all gone ${ms(killed.goneAfterMs)} after the SIGKILL)`;
    console.log(
      `  lead SIGKILL      ${killed.survivors} of ${killed.watched} tool processes still alive 5 s later${gone}`,
    );
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
