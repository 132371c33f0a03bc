// Mailbox benchmark: real writer processes against one inbox, one reader using watch.
// Prints one JSON line per scenario. Run with `pnpm --filter @muster/mailbox bench`
// (builds first); `--quick` runs smaller scenarios, `--only=<scenario>-<writers>` a subset,
// `--dialect=v2` a team that writes Claude Code 2.1.330 entries.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createMailbox } from '../dist/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const writerScript = path.join(here, 'writer.mjs');
const team = 'bench';
const now = () => performance.timeOrigin + performance.now();
const quick = process.argv.includes('--quick');
// `--dialect=v2`: the team config says `protocolVersion: 2`, so entries carry msg_ids.
const dialect = process.argv.find((argument) => argument.startsWith('--dialect='))?.slice(10);
if (dialect !== undefined && dialect !== 'v1' && dialect !== 'v2') {
  throw new Error(`--dialect=${dialect}: use --dialect=v1 (default) or --dialect=v2.`);
}

function percentile(values, fraction) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((left, right) => left - right);
  const position = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1);
  return Math.round(sorted[Math.max(0, position)] * 100) / 100;
}

function makeRoot(writers) {
  const root = mkdtempSync(path.join(tmpdir(), 'muster-mailbox-bench-'));
  const teamDirectory = path.join(root, 'teams', team);
  mkdirSync(teamDirectory, { recursive: true });
  const member = (name, extra = {}) => ({
    agentId: `${name}@${team}`,
    name,
    agentType: 'general-purpose',
    joinedAt: Date.now(),
    tmuxPaneId: 'in-process',
    cwd: root,
    subscriptions: [],
    ...extra,
  });
  const config = {
    name: team,
    createdAt: Date.now(),
    leadAgentId: `team-lead@${team}`,
    ...(dialect === 'v2' ? { protocolVersion: 2 } : {}),
    members: [
      member('team-lead', { agentType: 'team-lead', tmuxPaneId: '' }),
      member('reader', { color: 'blue' }),
      ...Array.from({ length: writers }, (_, index) => member(`w${index}`, { color: 'green' })),
    ],
  };
  writeFileSync(path.join(teamDirectory, 'config.json'), JSON.stringify(config, null, 2));
  return root;
}

function startWriter(root, writer, mode, amount) {
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  const child = spawn(
    process.execPath,
    [...profile, writerScript, root, team, writer, mode, String(amount)],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  let markReady;
  const ready = new Promise((resolve) => (markReady = resolve));
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    if (stdout.includes('ready\n')) markReady();
  });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  return {
    ready,
    go: () => child.stdin.end('go\n'),
    result: exited.then((code) => {
      if (code !== 0) throw new Error(`writer ${writer} exited with ${code}: ${stderr}`);
      const line = stdout.split('\n').find((text) => text.startsWith('{'));
      return JSON.parse(line);
    }),
  };
}

/** Counts how often each text is stored (inbox + archive): >1 is a duplicate. */
function storedCounts(root) {
  const inboxes = path.join(root, 'teams', team, 'inboxes');
  const counts = new Map();
  const add = (entry) => counts.set(entry.text, (counts.get(entry.text) ?? 0) + 1);
  JSON.parse(readFileSync(path.join(inboxes, 'reader.json'), 'utf8')).forEach(add);
  try {
    for (const line of readFileSync(path.join(inboxes, 'reader.archive.jsonl'), 'utf8').split(
      '\n',
    )) {
      if (line) add(JSON.parse(line));
    }
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  return counts;
}

async function runScenario({ scenario, writers, mode, amount, prepare, claim = true }) {
  const root = makeRoot(writers);
  const mailbox = createMailbox({ root, team });
  if (claim) await mailbox.claimInbox('reader');
  const extra = prepare ? await prepare(root, mailbox) : {};
  const children = Array.from({ length: writers }, (_, index) =>
    startWriter(root, `w${index}`, mode, amount),
  );
  await Promise.all(children.map((child) => child.ready));

  const delivered = new Map();
  const latencies = [];
  let lastDeliveryAt = 0;
  let writersDone = false;
  let expected = Infinity;
  const controller = new AbortController();
  const reading = (async () => {
    for await (const item of mailbox.watch('reader', {
      signal: controller.signal,
      markRead: true,
    })) {
      const at = now();
      const text = item.message.text;
      if (!text.startsWith('w')) continue;
      delivered.set(text, (delivered.get(text) ?? 0) + 1);
      latencies.push(at - Number(text.slice(text.indexOf('@') + 1)));
      lastDeliveryAt = at;
      if (writersDone && delivered.size >= expected) break;
    }
  })();

  const startedAt = now();
  const readerCpuAtStart = process.cpuUsage();
  for (const child of children) child.go();
  const results = await Promise.all(children.map((child) => child.result));
  writersDone = true;
  const sent = results.reduce((sum, result) => sum + result.sent, 0);
  expected = sent;
  const drainUntil = Date.now() + 15_000;
  while (delivered.size < sent && Date.now() < drainUntil) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  controller.abort();
  await reading.catch((error) => {
    if (error?.name !== 'AbortError') throw error;
  });
  const readerCpu = process.cpuUsage(readerCpuAtStart);
  const cpuMs =
    results.reduce((sum, result) => sum + result.cpuMs, 0) +
    (readerCpu.user + readerCpu.system) / 1000;

  const stored = storedCounts(root);
  const acknowledged = results.flatMap((result) =>
    Array.from({ length: result.sent }, (_, index) => `${result.writer}#${index}@`),
  );
  const storedTexts = [...stored.keys()];
  const lostInStorage = acknowledged.filter(
    (prefix) => !storedTexts.some((text) => text.startsWith(prefix)),
  ).length;
  const duplicates =
    [...delivered.values()].filter((count) => count > 1).length +
    [...stored.values()].filter((count) => count > 1).length;
  const sendMs = results.flatMap((result) => result.sendMs);
  const elapsedMs = lastDeliveryAt - startedAt;
  const line = {
    scenario,
    writers,
    messagesPerWriter: mode === 'burst' ? amount : null,
    sent,
    delivered: delivered.size,
    lost: Math.max(sent - delivered.size, lostInStorage),
    duplicates,
    throughputPerSecond: Math.round((delivered.size / elapsedMs) * 1000),
    latencyMs: {
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      // Where the tail sits: the first quarter of deliveries (all writers starting at once,
      // cold code) and the rest.
      p99FirstQuarter: percentile(latencies.slice(0, Math.floor(latencies.length / 4)), 0.99),
      p99Rest: percentile(latencies.slice(Math.floor(latencies.length / 4)), 0.99),
    },
    sendMs: { p50: percentile(sendMs, 0.5), p99: percentile(sendMs, 0.99) },
    cpuMsPerMessage: Math.round((cpuMs / Math.max(1, delivered.size)) * 100) / 100,
    // Where the CPU goes: the writer processes (sending, and committing for each other)
    // and the reader; and how many inbox rewrites the writers needed for the messages.
    writerCpuMsPerMessage:
      Math.round(
        (results.reduce((sum, result) => sum + result.cpuMs, 0) / Math.max(1, sent)) * 100,
      ) / 100,
    readerCpuMs: Math.round((readerCpu.user + readerCpu.system) / 1000),
    writerCommits: results.reduce((sum, result) => sum + result.commits, 0),
    loadAverage: Math.round(loadavg()[0] * 10) / 10,
    ...extra,
  };
  console.log(JSON.stringify(line));
  rmSync(root, { recursive: true, force: true });
  return line;
}

/** Fills the reader's inbox with `count` read messages of history. */
function historyOf(count, compact) {
  return async (root, mailbox) => {
    const inbox = path.join(root, 'teams', team, 'inboxes', 'reader.json');
    mkdirSync(path.dirname(inbox), { recursive: true });
    const base = Date.now() - count;
    const entries = Array.from({ length: count }, (_, index) => ({
      from: 'team-lead',
      text: `history message ${index}: ${'x'.repeat(120)}`,
      timestamp: new Date(base + index).toISOString(),
      read: true,
    }));
    writeFileSync(inbox, JSON.stringify(entries, null, 2));
    let archived = 0;
    if (compact) archived = (await mailbox.compact('reader')).archived;
    return { history: count, compacted: compact, archivedBeforeRun: archived };
  };
}

const burstCount = quick ? 10 : 50;
const scenarios = [
  { scenario: 'burst', writers: 1, mode: 'burst', amount: quick ? 100 : 500 },
  { scenario: 'burst', writers: 16, mode: 'burst', amount: burstCount },
  { scenario: 'burst', writers: 64, mode: 'burst', amount: burstCount },
  { scenario: 'paced', writers: 64, mode: 'paced', amount: quick ? 5_000 : 20_000 },
  ...[0, 10_000, 50_000].map((history) => ({
    scenario: `write-cost-history-${history}`,
    writers: 1,
    mode: 'burst',
    amount: quick ? 50 : 300,
    prepare: historyOf(history, true),
  })),
  {
    scenario: 'write-cost-history-50000-unclaimed',
    writers: 1,
    mode: 'burst',
    amount: quick ? 20 : 100,
    claim: false,
    prepare: historyOf(50_000, false),
  },
];
// `--only=burst-64` (scenario-writers prefix) runs a subset.
const only = process.argv.find((argument) => argument.startsWith('--only='))?.slice(7);
for (const scenario of scenarios) {
  if (only && !`${scenario.scenario}-${scenario.writers}`.startsWith(only)) continue;
  await runScenario(scenario);
}
