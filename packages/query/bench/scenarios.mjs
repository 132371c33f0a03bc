// The scenarios of bench/run.mjs. Each runs agents of the built @muster/query against the
// scripted model (a TEST DOUBLE of the Messages API, in process, zero latency) through the real
// @anthropic-ai/sdk, and returns figures. Nothing is asserted.
import {
  createPromptCache,
  createRequestLog,
  createScriptedFetch,
  fault,
  text,
  toolUse,
} from '@muster/scripted-model';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { createAgent, createModelClient } from '../dist/index.js';
import { cannedOverhead } from './canned-model.mjs';

const BASE_URL = 'http://scripted-model.invalid';

/** The request log of every agent opened so far (for the tools+system hashes per agent). */
export const openedLogs = [];
const SYSTEM = `You are a benchmark agent. ${'Work in small, checked steps. '.repeat(250)}`;

/** A concurrency-safe tool that answers at once and counts its calls. */
export function countingTool(name, { concurrent = true } = {}) {
  const tool = {
    name,
    description: `Benchmark tool ${name}: answers at once.`,
    inputSchema: z.strictObject({ tag: z.string(), content: z.string().optional() }),
    isReadOnly: () => true,
    isConcurrencySafe: () => concurrent,
    calls: 0,
    async call(input) {
      tool.calls += 1;
      return { content: `${name} ok ${input.tag}` };
    },
  };
  return tool;
}

/** Whether the last message of a request holds tool results. */
function answersTools(request) {
  const last = request.body.messages.at(-1);
  return Array.isArray(last.content) && last.content.some((block) => block.type === 'tool_result');
}

/**
 * An agent over a scripted fetch whose script time is measured. `script(request)` gives the reply.
 * Returns the agent, the request log, the counting tool and `scriptMs()` (time spent in the script).
 */
export function openAgent(
  script,
  { tools = [], clientOptions = {}, cache = true, name = 'bench' } = {},
) {
  const log = createRequestLog();
  openedLogs.push(log);
  let scriptNanoseconds = 0n;
  const timedScript = (request, context) => {
    const started = process.hrtime.bigint();
    try {
      return script(request, context);
    } finally {
      scriptNanoseconds += process.hrtime.bigint() - started;
    }
  };
  const scriptedFetch = createScriptedFetch({
    script: timedScript,
    log,
    ...(cache ? { cache: createPromptCache() } : {}),
  });
  const client = createModelClient({
    apiKey: 'sk-bench-0123456789',
    baseURL: BASE_URL,
    fetch: scriptedFetch,
    retryBaseMs: 1,
    ...clientOptions,
  });
  const agent = createAgent({
    client,
    model: 'claude-bench-model',
    identity: { name, id: `${name}@bench`, teamName: 'bench' },
    system: SYSTEM,
    tools,
    cwd: '/tmp',
    roots: () => ({ read: ['/tmp'], write: ['/tmp'] }),
    authorize: async () => ({ behavior: 'allow' }),
    environment: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  return {
    agent,
    log,
    scriptedFetch,
    scriptMs: () => Number(scriptNanoseconds) / 1e6,
  };
}

/** Runs one turn, reading its events as a UI would; returns the result and the events. */
export async function runTurn(agent, prompt) {
  const turn = agent.send(prompt);
  const events = [];
  for await (const event of turn) events.push(event);
  return { result: await turn.result, events };
}

/** The p-th percentile (0–100) of numbers. */
export function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round = (value, digits = 3) => (value === null ? null : Number(value.toFixed(digits)));

/** Runtime overhead per turn (wall time minus time in the script) with `calls` parallel tool calls. */
export async function overheadPerTurn(calls, turns) {
  const tool = countingTool('Noop');
  const { agent, scriptMs } = openAgent(
    (request) => {
      if (calls === 0 || answersTools(request)) return text('Done.');
      return {
        content: Array.from({ length: calls }, (_unused, call) => ({
          type: 'tool_use',
          name: 'Noop',
          input: { tag: `call-${request.index}-${call}` },
        })),
      };
    },
    { tools: [tool], cache: false },
  );
  const overheads = [];
  const cpu = [];
  try {
    for (let turn = 0; turn < turns; turn += 1) {
      const scriptBefore = scriptMs();
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const { result } = await runTurn(agent, `Turn ${turn}.`);
      if (result.reason !== 'completed') throw new Error(`turn ${turn} ended ${result.reason}`);
      const script = scriptMs() - scriptBefore;
      overheads.push(performance.now() - started - script);
      const used = process.cpuUsage(cpuBefore);
      cpu.push((used.user + used.system) / 1000 - script);
    }
  } finally {
    await agent.close();
  }
  const skip = Math.min(10, Math.floor(turns / 10)); // warm-up turns
  const warm = overheads.slice(skip);
  const warmCpu = cpu.slice(skip);
  return {
    parallelToolCalls: calls,
    turns,
    toolCalls: tool.calls,
    p50Ms: round(percentile(warm, 50)),
    p99Ms: round(percentile(warm, 99)),
    cpuP50Ms: round(percentile(warmCpu, 50)),
    cpuP99Ms: round(percentile(warmCpu, 99)),
  };
}

/**
 * Muster's own cost per turn over the canned model (bench/canned-model.mjs: pre-encoded bodies,
 * zero cost): the turn's wall time, the raw SDK's time for the same requests on the same bodies,
 * and their difference per turn, with `calls` parallel tool calls of a tool that does nothing.
 */
export async function cannedOverheadPerTurn(calls, { agents, turns, warmUp = 5 }) {
  const tool = countingTool('Noop');
  const figures = await cannedOverhead({ calls, agents, turns, warmUp, tool, system: SYSTEM });
  const summary = (values) => ({
    p50Ms: round(percentile(values, 50)),
    p99Ms: round(percentile(values, 99)),
  });
  return {
    parallelToolCalls: calls,
    agents,
    turnsPerAgent: turns,
    samples: figures.overheadMs.length,
    requests: figures.requests,
    messagesPerAgent: figures.messagesPerAgent,
    toolCalls: tool.calls,
    turn: summary(figures.turnMs),
    rawSdk: summary(figures.sdkMs),
    overhead: summary(figures.overheadMs),
    cpuOverhead: summary(figures.cpuOverheadMs),
    overheadWithoutGc: summary(figures.overheadWithoutGcMs),
    gcPauses: figures.gcPauses,
  };
}

/**
 * Heap held by each agent after `turns` turns of one tool call each: the heap with the agents
 * alive minus the heap once they are closed and dropped, the test doubles (which keep every
 * request they received) staying alive throughout. Forced GC when available.
 */
export async function memoryPerAgent(agents, turns, collectGarbage) {
  const kept = [];
  const doubles = [];
  for (let index = 0; index < agents; index += 1) {
    const tool = countingTool('Noop');
    const opened = openAgent(
      (request) =>
        answersTools(request) ? text('Done.') : toolUse('Noop', { tag: `t${request.index}` }),
      { tools: [tool], name: `memory-${index}`, cache: false },
    );
    for (let turn = 0; turn < turns; turn += 1) await runTurn(opened.agent, `Turn ${turn}.`);
    kept.push(opened.agent);
    doubles.push(opened.scriptedFetch, opened.log);
  }
  const messages = kept[0].messages().length;
  collectGarbage?.();
  const withAgents = process.memoryUsage().heapUsed;
  for (const agent of kept) await agent.close();
  kept.length = 0;
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage?.();
  const withoutAgents = process.memoryUsage().heapUsed;
  return {
    agents,
    turnsPerAgent: turns,
    messagesPerAgent: messages,
    heapPerAgentKiB: round((withAgents - withoutAgents) / agents / 1024, 1),
    gcForced: Boolean(collectGarbage),
    doublesKept: doubles.length,
  };
}

/** Cache share (read / whole prompt) of each turn's requests, summed per turn. */
export async function cacheSharePerTurn(turns) {
  const tool = countingTool('Noop');
  const { agent, log } = openAgent(
    (request) =>
      answersTools(request) ? text('Done.') : toolUse('Noop', { tag: `t${request.index}` }),
    { tools: [tool] },
  );
  const shares = [];
  try {
    for (let turn = 0; turn < turns; turn += 1) {
      const before = log.records().length;
      await runTurn(agent, `Turn ${turn}.`);
      let read = 0;
      let prompt = 0;
      for (const { usage } of log.records().slice(before)) {
        read += usage.cache_read_input_tokens;
        prompt +=
          usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
      }
      shares.push(round(read / prompt));
    }
  } finally {
    await agent.close();
  }
  return {
    turns,
    perTurn: shares,
    minFromTurn3: round(Math.min(...shares.slice(2))),
    toolsSystemHashes: new Set(log.records().map((record) => record.toolsSystemHash)).size,
  };
}

/** Time from sending to the turn's failure when the stream stalls after its headers. */
export async function stallDetection(idleMs, runs) {
  const times = [];
  let code;
  for (let run = 0; run < runs; run += 1) {
    const { agent } = openAgent(() => fault('silence-after-headers', {}), {
      clientOptions: { streamIdleMs: idleMs, streamRetries: 0, maxRetries: 0 },
      cache: false,
    });
    try {
      const started = performance.now();
      const { result } = await runTurn(agent, 'Go.');
      times.push(performance.now() - started);
      code = result.error?.code ?? result.reason;
    } finally {
      await agent.close();
    }
  }
  return {
    idleMs,
    runs,
    endedWith: code,
    p50Ms: round(percentile(times, 50), 1),
    maxMs: round(Math.max(...times), 1),
  };
}

/** Turns that complete when every 5th request breaks mid-stream (`event: error` overloaded). */
export async function midStreamErrors(turns) {
  const tool = countingTool('Noop');
  const { agent } = openAgent(
    (request) => {
      const reply = answersTools(request)
        ? text('Done.')
        : toolUse('Noop', { tag: `t${request.index}` });
      return request.index % 5 === 4
        ? fault('stream-error', { afterEvents: 3, errorType: 'overloaded_error' }, reply)
        : reply;
    },
    { tools: [tool] },
  );
  let completed = 0;
  let retries = 0;
  try {
    for (let turn = 0; turn < turns; turn += 1) {
      const { result, events } = await runTurn(agent, `Turn ${turn}.`);
      if (result.reason === 'completed') completed += 1;
      retries += events.filter((event) => event.type === 'retry').length;
    }
  } finally {
    await agent.close();
  }
  return {
    turns,
    completed,
    successRate: round(completed / turns),
    retries,
    toolCalls: tool.calls,
    toolUses: turns,
  };
}

/** Tool calls cut off by max_tokens that were run anyway (must be 0). */
export async function truncatedToolCalls(turns) {
  const write = countingTool('Write', { concurrent: false });
  const { agent } = openAgent(
    () =>
      fault(
        'max-tokens-in-tool-use',
        { keepInputBytes: 20 },
        toolUse('Write', { tag: 'cut', content: 'x'.repeat(200) }),
      ),
    { tools: [write], cache: false },
  );
  let reported = 0;
  try {
    for (let turn = 0; turn < turns; turn += 1) {
      const { events } = await runTurn(agent, `Turn ${turn}.`);
      reported += events.filter((event) => event.type === 'truncated_tool_call').length;
    }
  } finally {
    await agent.close();
  }
  return { turns, truncatedReported: reported, truncatedExecuted: write.calls };
}
