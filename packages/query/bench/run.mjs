#!/usr/bin/env node
// Benchmark of @muster/query (the built dist/): `pnpm --filter @muster/query bench`, or
// `node bench/run.mjs [--json] [--quick]`. Two TEST DOUBLES of the Messages API, both in process
// with zero latency behind the real @anthropic-ai/sdk: the canned model (bench/canned-model.mjs,
// pre-encoded responses; each turn's requests are replayed through the raw SDK, so turn − replay
// is muster's own cost per turn) and the scripted model (@muster/scripted-model, whose own SSE
// generation stays in its "turn minus script" figures). Prints figures; asserts nothing.
// Bounded: exits after 60 s.
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  cacheSharePerTurn,
  cannedOverheadPerTurn,
  memoryPerAgent,
  midStreamErrors,
  openedLogs,
  overheadPerTurn,
  stallDetection,
  truncatedToolCalls,
} from './scenarios.mjs';

const LIMIT_MS = 60_000;
const json = process.argv.includes('--json');
const quick = process.argv.includes('--quick');
const overheadTurns = quick ? 40 : 100;
const memoryTurns = quick ? 40 : 200;

const limit = setTimeout(() => {
  console.error(
    `bench: still running after ${LIMIT_MS / 1000} s; stopped (a scenario hangs or the machine is overloaded)`,
  );
  process.exit(1);
}, LIMIT_MS);
limit.unref();

function garbageCollector() {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc');
  } catch {
    return undefined;
  }
}

const started = performance.now();
const seconds = {};
async function timed(name, scenario) {
  const begun = performance.now();
  try {
    return await scenario();
  } finally {
    seconds[name] = Number(((performance.now() - begun) / 1000).toFixed(1));
  }
}
const figures = {
  model: 'scripted model (TEST DOUBLE), in process, zero latency, real @anthropic-ai/sdk',
  cannedModel:
    'canned model (TEST DOUBLE): pre-encoded SSE bodies, zero cost; the same requests replayed through the raw SDK',
  node: process.version,
  cannedOverheadPerTurn: [],
  overheadPerTurn: [],
};
for (const calls of [0, 1, 8]) {
  figures.cannedOverheadPerTurn.push(
    await timed(`canned${calls}`, () =>
      cannedOverheadPerTurn(calls, { agents: quick ? 1 : 3, turns: quick ? 40 : 100 }),
    ),
  );
}
for (const calls of [0, 1, 8]) {
  figures.overheadPerTurn.push(
    await timed(`overhead${calls}`, () => overheadPerTurn(calls, overheadTurns)),
  );
}
figures.memoryPerAgent = await timed('memory', () =>
  memoryPerAgent(1, memoryTurns, garbageCollector()),
);
figures.cacheSharePerTurn = await timed('cache', () => cacheSharePerTurn(20));
figures.stalledStream = await timed('stall', () => stallDetection(300, quick ? 1 : 3));
figures.midStreamErrorEvery5 = await timed('errors', () => midStreamErrors(quick ? 20 : 50));
figures.truncatedToolCalls = await timed('truncated', () => truncatedToolCalls(20));
figures.secondsByScenario = seconds;
const hashesPerAgent = openedLogs
  .filter((log) => log.records().length > 0)
  .map((log) => new Set(log.records().map((record) => record.toolsSystemHash)).size);
figures.toolsSystemHashesPerAgent = {
  agents: hashesPerAgent.length,
  max: Math.max(...hashesPerAgent),
};
figures.totalSeconds = Number(((performance.now() - started) / 1000).toFixed(1));

if (json) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  console.log(`@muster/query bench — Node ${figures.node}`);
  console.log(`  ${figures.cannedModel}:`);
  for (const row of figures.cannedOverheadPerTurn) {
    console.log(
      `  muster's overhead per turn (canned model), ${row.parallelToolCalls} parallel tool calls: wall p50 ${row.overhead.p50Ms} ms, p99 ${row.overhead.p99Ms} ms; CPU p50 ${row.cpuOverhead.p50Ms} ms, p99 ${row.cpuOverhead.p99Ms} ms; wall without GC pauses p50 ${row.overheadWithoutGc.p50Ms} ms, p99 ${row.overheadWithoutGc.p99Ms} ms (${row.gcPauses} GC pauses; turn p50 ${row.turn.p50Ms}/p99 ${row.turn.p99Ms} ms, raw SDK on the same requests p50 ${row.rawSdk.p50Ms}/p99 ${row.rawSdk.p99Ms} ms; ${row.samples} turns, ${row.agents} agents × ${row.turnsPerAgent})`,
    );
  }
  console.log(`  ${figures.model}:`);
  for (const row of figures.overheadPerTurn) {
    console.log(
      `  turn time minus script time (scripted model, includes its SSE generation), ${row.parallelToolCalls} parallel tool calls: wall p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms; CPU p50 ${row.cpuP50Ms} ms, p99 ${row.cpuP99Ms} ms (${row.turns} turns)`,
    );
  }
  const memory = figures.memoryPerAgent;
  console.log(
    `  heap per agent after ${memory.turnsPerAgent} turns: ${memory.heapPerAgentKiB} KiB (${memory.messagesPerAgent} messages${memory.gcForced ? '' : ', GC not forced'})`,
  );
  const cache = figures.cacheSharePerTurn;
  console.log(
    `  cache share per turn: ${cache.perTurn.join(' ')} (min from turn 3: ${cache.minFromTurn3})`,
  );
  const stall = figures.stalledStream;
  console.log(
    `  stalled stream (idle ${stall.idleMs} ms) detected: p50 ${stall.p50Ms} ms, max ${stall.maxMs} ms (${stall.endedWith})`,
  );
  const errors = figures.midStreamErrorEvery5;
  console.log(
    `  mid-stream error every 5th request: ${errors.completed}/${errors.turns} turns completed, ${errors.retries} retries, ${errors.toolCalls} tool runs for ${errors.toolUses} tool uses`,
  );
  const truncated = figures.truncatedToolCalls;
  console.log(
    `  truncated tool calls executed: ${truncated.truncatedExecuted} (${truncated.truncatedReported} reported over ${truncated.turns} turns)`,
  );
  console.log(
    `  tools+system hashes per agent: max ${figures.toolsSystemHashesPerAgent.max} over ${figures.toolsSystemHashesPerAgent.agents} agents`,
  );
  console.log(`  total ${figures.totalSeconds} s`);
}
clearTimeout(limit);
