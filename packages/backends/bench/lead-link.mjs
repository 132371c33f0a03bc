#!/usr/bin/env node
// Lifecycle figures of @muster/backends (the built dist/): `node bench/lead-link.mjs [--json] [--rounds N]`.
// - ready: spawn of a member process (test-fixtures/member.mjs) to its ready over the lead link;
// - lead gone (R31): a lead process with 3 members is SIGKILLed; time until each member noticed,
//   and until every member and grandchild was gone;
// - tree kill (R24): killProcessTree on a member with TERM-ignoring grandchildren (grace 200 ms).
// Prints figures; asserts nothing. Bounded: exits after 120 s. Kills everything it starts.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  createLeadLink,
  isSameProcess,
  killProcessTree,
  readProcessIdentity,
} from '../dist/index.js';

const json = process.argv.includes('--json');
const roundsIndex = process.argv.indexOf('--rounds');
const rounds = roundsIndex === -1 ? 5 : Number(process.argv[roundsIndex + 1]);
const distUrl = new URL('../dist/index.js', import.meta.url).href;
const memberFixture = fileURLToPath(new URL('../test-fixtures/member.mjs', import.meta.url));
const started = new Set();
const limit = setTimeout(() => {
  console.error('bench/lead-link.mjs: still running after 120 s; stopping');
  cleanUp();
  process.exit(1);
}, 120_000);

function cleanUp() {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone.
    }
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values, share) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
};
const summary = (values) => ({
  n: values.length,
  p50: Number(percentile(values, 0.5).toFixed(1)),
  p95: Number(percentile(values, 0.95).toFixed(1)),
  max: Number(Math.max(...values).toFixed(1)),
});
const events = (file) => {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch {
    return [];
  }
};

const leadScript = `
import { spawn } from 'node:child_process';
import { createLeadLink } from ${JSON.stringify(distUrl)};
const [teamFolder, logFolder, ...modes] = process.argv.slice(2);
const link = await createLeadLink({ teamFolder });
const pids = [];
for (const [index, mode] of modes.entries()) {
  const agentId = 'member' + index + '@bench';
  const child = spawn(process.execPath, [${JSON.stringify(memberFixture)}, mode], {
    detached: true, stdio: 'ignore',
    env: { ...process.env, ...link.memberEnvironment(agentId), MEMBER_FIXTURE_LOG: logFolder + '/' + agentId + '.log' },
  });
  child.unref();
  pids.push(child.pid);
  await link.waitForReady(agentId, { timeoutMs: 15000 });
}
setInterval(() => {}, 60000);
process.stdout.write(JSON.stringify({ pids }) + '\\n');
`;

async function measureReady(folder) {
  const link = await createLeadLink({ teamFolder: folder });
  const times = [];
  try {
    for (let round = 0; round < rounds; round += 1) {
      const agentId = `ready${round}@bench`;
      const begin = performance.now();
      const child = spawn(process.execPath, [memberFixture, 'idle'], {
        detached: true,
        stdio: 'ignore',
        env: {
          ...process.env,
          ...link.memberEnvironment(agentId),
        },
      });
      started.add(child.pid);
      await link.waitForReady(agentId, { timeoutMs: 15_000 });
      times.push(performance.now() - begin);
      const identity = readProcessIdentity(child.pid);
      if (identity) await killProcessTree(identity, { graceMs: 1_000 });
    }
  } finally {
    await link.close();
  }
  return times;
}

async function measureLeadGone(root, round) {
  const teamFolder = path.join(root, `gone-${round}`, 'teams', 'bench');
  mkdirSync(teamFolder, { recursive: true });
  const logFolder = path.dirname(path.dirname(teamFolder));
  const script = path.join(logFolder, 'lead.mjs');
  writeFileSync(script, leadScript);
  const modes = ['idle', 'grandchild', 'ignore-term'];
  const lead = spawn(process.execPath, [script, teamFolder, logFolder, ...modes], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started.add(lead.pid);
  const { pids } = await new Promise((resolve, reject) => {
    let output = '';
    lead.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('\n')) resolve(JSON.parse(output.split('\n')[0]));
    });
    lead.once('exit', () => reject(new Error('the lead ended before its members were ready')));
  });
  const logs = modes.map((_, index) => path.join(logFolder, `member${index}@bench.log`));
  const grandchildren = logs.flatMap(
    (file) => events(file).find((entry) => entry.event === 'grandchildren')?.pids ?? [],
  );
  for (const pid of [...pids, ...grandchildren]) started.add(pid);
  const processes = [...pids, ...grandchildren]
    .map((pid) => readProcessIdentity(pid))
    .filter(Boolean);
  const killedAt = Date.now();
  lead.kill('SIGKILL');
  let goneAfter = Number.NaN;
  for (let waited = 0; waited < 10_000; waited += 10) {
    if (processes.every((entry) => !isSameProcess(entry))) {
      goneAfter = Date.now() - killedAt;
      break;
    }
    await sleep(10);
  }
  const survivors = processes.filter((entry) => isSameProcess(entry)).length;
  const noticed = logs.map(
    (file) => events(file).find((entry) => entry.event === 'lead-gone')?.at - killedAt,
  );
  return { noticed, goneAfter, survivors };
}

async function measureTreeKill(folder) {
  const link = await createLeadLink({ teamFolder: folder });
  const times = [];
  let survivors = 0;
  try {
    for (let round = 0; round < rounds; round += 1) {
      const agentId = `tree${round}@bench`;
      const logFile = path.join(folder, `${agentId}.log`);
      const child = spawn(process.execPath, [memberFixture, 'grandchild'], {
        detached: true,
        stdio: 'ignore',
        env: {
          ...process.env,
          ...link.memberEnvironment(agentId),
          MEMBER_FIXTURE_LOG: logFile,
        },
      });
      started.add(child.pid);
      await link.waitForReady(agentId, { timeoutMs: 15_000 });
      for (const pid of events(logFile).find((entry) => entry.event === 'grandchildren')?.pids ??
        [])
        started.add(pid);
      const begin = performance.now();
      const result = await killProcessTree(readProcessIdentity(child.pid), { graceMs: 200 });
      times.push(performance.now() - begin);
      survivors += result.survivors.length;
    }
  } finally {
    await link.close();
  }
  return { times, survivors };
}

const root = mkdtempSync(path.join(tmpdir(), 'muster-bench-'));
try {
  const readyFolder = path.join(root, 'ready', 'teams', 'bench');
  const treeFolder = path.join(root, 'tree', 'teams', 'bench');
  mkdirSync(readyFolder, { recursive: true });
  mkdirSync(treeFolder, { recursive: true });
  const ready = await measureReady(readyFolder);
  const gone = [];
  for (let round = 0; round < rounds; round += 1) gone.push(await measureLeadGone(root, round));
  const tree = await measureTreeKill(treeFolder);
  const figures = {
    rounds,
    spawnToReadyMs: summary(ready),
    leadGoneNoticedMs: summary(gone.flatMap((round) => round.noticed)),
    leadGoneAllProcessesGoneMs: summary(gone.map((round) => round.goneAfter)),
    leadGoneSurvivors: gone.reduce((total, round) => total + round.survivors, 0),
    treeKillMs: summary(tree.times),
    treeKillSurvivors: tree.survivors,
  };
  if (json) {
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } else {
    const line = (label, value) =>
      console.log(
        `${label.padEnd(50)} ${typeof value === 'object' ? `p50 ${value.p50} ms, p95 ${value.p95} ms, max ${value.max} ms (n=${value.n})` : value}`,
      );
    console.log('@muster/backends lifecycle (member fixture, real processes)');
    line('spawn → ready over the lead link', figures.spawnToReadyMs);
    line('lead SIGKILL → member noticed (R31)', figures.leadGoneNoticedMs);
    line('lead SIGKILL → all members + grandchildren gone', figures.leadGoneAllProcessesGoneMs);
    line('survivors after lead SIGKILL', figures.leadGoneSurvivors);
    line('killProcessTree, TERM-ignoring tree, grace 200 ms', figures.treeKillMs);
    line('survivors after killProcessTree', figures.treeKillSurvivors);
  }
} finally {
  cleanUp();
  clearTimeout(limit);
  rmSync(root, { recursive: true, force: true });
}
