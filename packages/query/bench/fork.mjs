#!/usr/bin/env node
// Fork benchmark of @muster/query (the built dist/): `node bench/fork.mjs [--json]`, also run by
// `pnpm --filter @muster/query bench`. The model is @muster/scripted-model (a TEST DOUBLE of the
// Messages API) with its prompt-cache simulation, in process, behind the real SDK. For N = 2, 4
// and 8 fork children of one parent it prints the byte identity of each child's request with
// the parent's last request (markers stripped), whether siblings differ only in the directive,
// and the cache share of children 2..N, staggered (startForks) and sent all at once. Also the
// mid-turn delivery latency (input queued in a tool → the next request at the double).
// Prints figures; asserts nothing. Bounded: exits after 60 s.
import { performance } from 'node:perf_hooks';
import { createAgent, createModelClient, startForks } from '../dist/index.js';
import {
  createPromptCache,
  createRequestLog,
  createScriptedFetch,
  text,
} from '@muster/scripted-model';
import { z } from 'zod';

const LIMIT_MS = 60_000;
const json = process.argv.includes('--json');
const limit = setTimeout(() => {
  console.error(`bench/fork: still running after ${LIMIT_MS / 1000} s; stopped`);
  process.exit(1);
}, LIMIT_MS);
limit.unref();

const SYSTEM = `You are the lead of a bench team. ${'Plan the work, then split it. '.repeat(250)}`;
const allow = async () => ({ behavior: 'allow' });
const roots = () => ({ read: ['/tmp'], write: ['/tmp'] });

function tool(name, run) {
  return {
    name,
    description: `Bench tool ${name}.`,
    inputSchema: z.strictObject({ tag: z.string() }),
    isReadOnly: () => true,
    isConcurrencySafe: () => false,
    call: run,
  };
}

function clientFor(script, extra = {}) {
  const log = createRequestLog();
  const scriptedFetch = createScriptedFetch({ script, log, ...extra });
  const client = createModelClient({
    apiKey: 'sk-bench-0123456789abcdef',
    baseURL: 'http://scripted-model.invalid',
    retryBaseMs: 1,
    fetch: scriptedFetch,
  });
  return { client, scriptedFetch, log };
}

async function drain(turn) {
  for await (const _event of turn) {
    // events are not needed here
  }
  return turn.result;
}

/** A parent that reads, then forks (Fork + Read in one message), then ends; returns its source and requests. */
async function forkingParent() {
  const sources = [];
  const tools = [
    tool('Fork', async (_input, context) => {
      sources.push(context.forkSource());
      return { content: 'forked' };
    }),
    tool('Read', async () => ({ content: 'read' })),
  ];
  const model = clientFor((request) => {
    if (request.index === 0)
      return { content: [{ type: 'tool_use', name: 'Read', input: { tag: 'look' } }] };
    if (request.index === 1) {
      return {
        content: [
          { type: 'text', text: 'Splitting the work.' },
          { type: 'tool_use', name: 'Fork', input: { tag: 'split' } },
          { type: 'tool_use', name: 'Read', input: { tag: 'meanwhile' } },
        ],
      };
    }
    return text('Forks running.');
  });
  const agent = createAgent({
    client: model.client,
    model: 'claude-bench-model',
    identity: { name: 'lead', id: 'lead@bench' },
    system: SYSTEM,
    tools,
    cwd: '/tmp',
    roots,
    authorize: allow,
    environment: { PATH: '/usr/bin:/bin' },
  });
  await drain(agent.send('Refactor everything.'));
  await agent.close();
  const bodies = model.scriptedFetch.requests().map((request) => request.body);
  return { source: sources[0], last: bodies[1], next: bodies[2] };
}

const strip = (value) =>
  JSON.stringify(value, (key, inner) => (key === 'cache_control' ? undefined : inner));

function childOn(client, fork, index) {
  return createAgent({
    client,
    identity: { name: `fork-${index + 1}`, id: `fork-${index + 1}@bench` },
    tools: [],
    cwd: '/tmp',
    roots,
    authorize: allow,
    environment: { PATH: '/usr/bin:/bin' },
    fork,
  });
}

async function fanOut(parent, count) {
  const directives = Array.from({ length: count }, (_value, index) => `Do part ${index + 1}.`);
  // Staggered: startForks.
  const staggered = clientFor(() => text('part done'), { cache: createPromptCache() });
  const begun = performance.now();
  const forks = await startForks(parent.source, directives, (fork, index) =>
    childOn(staggered.client, fork, index),
  );
  const startedMs = performance.now() - begun;
  await Promise.all(forks.map((fork) => drain(fork.turn)));
  await Promise.all(forks.map((fork) => fork.agent.close()));
  const bodies = staggered.scriptedFetch.requests().map((request) => request.body);
  const k = parent.last.messages.length;
  const identical = bodies.filter(
    (body) =>
      body.model === parent.last.model &&
      strip(body.tools) === strip(parent.last.tools) &&
      strip(body.system) === strip(parent.last.system) &&
      strip(body.messages.slice(0, k)) === strip(parent.last.messages) &&
      strip(body.messages[k]) === strip(parent.next.messages[k]) &&
      strip(body.tool_choice) === strip(parent.last.tool_choice) &&
      strip(body.thinking) === strip(parent.last.thinking),
  ).length;
  const siblingPrefixes = new Set(
    bodies.map((body) => {
      const messages = JSON.parse(strip(body.messages));
      messages.at(-1).content.pop();
      return strip({ ...body, messages });
    }),
  );
  const records = staggered.log.records();
  const first = records[0].usage;
  const shared = first.cache_read_input_tokens + first.cache_creation_input_tokens;
  const shares = records.slice(1).map((record) => record.usage.cache_read_input_tokens / shared);

  // All at once: no child waits for another's message_start (a barrier holds every answer).
  const together = clientFor(
    async (_request, context) => {
      await context.waitFor(() => context.requests.length >= count, {
        timeoutMs: 10_000,
        description: `${count} fork requests`,
      });
      return text('part done');
    },
    { cache: createPromptCache() },
  );
  const agents = directives.map((directive, index) =>
    childOn(together.client, { source: parent.source, directive }, index),
  );
  await Promise.all(agents.map((agent) => drain(agent.send())));
  await Promise.all(agents.map((agent) => agent.close()));
  const atOnce = together.log
    .records()
    .slice(1)
    .map((record) => record.usage.cache_read_input_tokens / shared);
  return {
    children: count,
    byteIdentity: identical / bodies.length,
    siblingsDifferOnlyInDirective: siblingPrefixes.size === 1,
    sharedPrefixTokens: shared,
    cacheShareStaggeredMin: Math.min(...shares),
    cacheShareStaggeredMean: shares.reduce((sum, share) => sum + share, 0) / shares.length,
    cacheShareAllAtOnceMax: Math.max(...atOnce),
    startForksMs: Number(startedMs.toFixed(1)),
  };
}

/** Input queued while a tool runs → the next request at the double, per boundary. */
async function midTurnLatency(boundaries) {
  const waiting = [];
  const queuedAt = [];
  const arrivals = [];
  const model = clientFor((request) => {
    arrivals.push(performance.now());
    return request.index < boundaries
      ? { content: [{ type: 'tool_use', name: 'Step', input: { tag: 'x' } }] }
      : text('done');
  });
  const agent = createAgent({
    client: model.client,
    model: 'claude-bench-model',
    identity: { name: 'worker', id: 'worker@bench' },
    system: 'You are a bench worker.',
    tools: [
      tool('Step', async () => {
        waiting.push({ type: 'text', text: 'A message from the lead.' });
        queuedAt.push(performance.now());
        return { content: 'step done' };
      }),
    ],
    cwd: '/tmp',
    roots,
    authorize: allow,
    environment: { PATH: '/usr/bin:/bin' },
    pendingInput: () => waiting.splice(0),
  });
  await drain(agent.send('Work.'));
  await agent.close();
  const latencies = queuedAt.map((at, index) => arrivals[index + 1] - at).sort((a, b) => a - b);
  const percentile = (p) =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return {
    boundaries: latencies.length,
    p50Ms: Number(percentile(50).toFixed(2)),
    p99Ms: Number(percentile(99).toFixed(2)),
  };
}

const parent = await forkingParent();
const forks = [];
for (const count of [2, 4, 8]) forks.push(await fanOut(parent, count));
const midTurn = await midTurnLatency(100);
const figures = {
  model:
    'scripted model (TEST DOUBLE) with prompt-cache simulation, in process, zero latency, real @anthropic-ai/sdk',
  node: process.version,
  forks,
  midTurnDelivery: midTurn,
};
if (json) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  console.log(`fork bench (${figures.model}, node ${figures.node})`);
  for (const row of forks) {
    console.log(
      `  N=${row.children}: byte identity ${(row.byteIdentity * 100).toFixed(0)} %, siblings differ only in the directive: ${row.siblingsDifferOnlyInDirective ? 'yes' : 'NO'}, shared prefix ${row.sharedPrefixTokens} tokens, cache share of children 2..N staggered min ${row.cacheShareStaggeredMin.toFixed(3)} mean ${row.cacheShareStaggeredMean.toFixed(3)}, all at once max ${row.cacheShareAllAtOnceMax.toFixed(3)}, startForks ${row.startForksMs} ms`,
    );
  }
  console.log(
    `  mid-turn delivery: input queued in a tool → next request at the double, ${midTurn.boundaries} boundaries: p50 ${midTurn.p50Ms} ms, p99 ${midTurn.p99Ms} ms`,
  );
}
