// Figures for the tmux backend (never asserted), on a private server `-L muster-bench-<pid>`:
// spawn latency to "running" and to the resolved spawn() (R17), spawn to "ready" over the lead
// link, detection latency of a pane killed from outside (R22), hygiene over spawn/kill cycles
// (R33: lead fds, panes left, zombies, process listeners) and what is left 5 s after the lead
// is SIGKILLed (R31). Run after a build: node bench/tmux.mjs [--json] [--count N] [--cycles N] [--ready N]
/* global performance */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTmuxBackend } from '../dist/index.js';

const json = process.argv.includes('--json');
const option = (name, fallback) => {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
};
const count = option('--count', 20);
// Each tmux client call costs ~100 ms at load average 17 (2 ms idle): 30 cycles by default so
// the bench fits its share of `pnpm bench`; `--cycles 100` for the figure.
const cycles = option('--cycles', 30);
// Node members that connect back cost 1–3 s each on a loaded 2-core machine: fewer by default,
// so the bench fits its 90 s share of `pnpm bench`.
const readyCount = option('--ready', 5);
const fixtures = fileURLToPath(new URL('../test-fixtures/', import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (fraction) =>
    sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
  const round = (value) => Math.round(value * 10) / 10;
  return { n: values.length, p50: round(at(0.5)), p95: round(at(0.95)) };
}

function processState(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}
const runs = (pid) => ![undefined, 'Z', 'X'].includes(processState(pid));

function zombieChildren(parentPid) {
  let zombies = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      if (fields[0] === 'Z' && Number(fields[1]) === parentPid) zombies += 1;
    } catch {
      // Gone while we looked.
    }
  }
  return zombies;
}

function tmux(socketName, args) {
  try {
    return execFileSync('tmux', ['-L', socketName, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return '';
  }
}

const root = mkdtempSync(path.join(tmpdir(), 'muster-tmux-bench-'));
const teamName = 'bench';
mkdirSync(path.join(root, 'teams', teamName), { recursive: true });
const socketName = `muster-bench-${process.pid}`;
const spec = (name, command, extra = {}) => ({
  root,
  teamName,
  agentName: name,
  agentId: `${name}@${teamName}`,
  cwd: root,
  command,
  readiness: 'external',
  ...extra,
});
const results = {
  loadAverage: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
};
const backend = createTmuxBackend({ socketName, pollIntervalMs: 500 });
try {
  // Spawn → running: the member's first instruction writes the time (ns since the epoch).
  const toRunning = [];
  const toResolved = [];
  const members = [];
  for (let index = 0; index < count; index += 1) {
    const marker = path.join(root, `running-${index}`);
    const startedAt = Date.now();
    const before = performance.now();
    const member = await backend.spawn(
      spec(`run${index}`, { file: 'sh', args: ['-c', `date +%s%N > ${marker}; exec sleep 1000`] }),
    );
    toResolved.push(performance.now() - before);
    members.push(member);
    while (!existsSync(marker) || readFileSync(marker, 'utf8').trim() === '') await sleep(2);
    toRunning.push(Number(readFileSync(marker, 'utf8').trim()) / 1e6 - startedAt);
  }
  results.spawnToRunningMs = summary(toRunning);
  results.spawnCallMs = summary(toResolved);
  // The first spawn also starts the private server (and attaches the control-mode client); the
  // others reuse both. With n = 20 the p95 above is the slowest spawn, i.e. usually the first.
  results.firstSpawnToRunningMs = Math.round(toRunning[0] * 10) / 10;
  results.laterSpawnsToRunningMs = summary(toRunning.slice(1));
  await Promise.allSettled(members.map((member) => member.kill({ graceful: false })));

  // Spawn → ready over the lead link (the member fixture: node start, connect, hello, ready).
  const toReady = [];
  const notReady = [];
  for (let index = 0; index < readyCount; index += 1) {
    const before = performance.now();
    const member = await backend.spawn(
      spec(
        `ready${index}`,
        { file: process.execPath, args: [path.join(fixtures, 'member.mjs'), 'idle'] },
        { readiness: 'connect-back', readyTimeoutMs: 30_000 },
      ),
    );
    try {
      await member.ready;
      toReady.push(performance.now() - before);
    } catch (error) {
      notReady.push(error.message);
    }
    await member.kill({ graceful: false });
  }
  results.spawnToReadyMs = { ...summary(toReady), notReady };

  // A pane killed from outside → exited 'vanished' (poll every 500 ms).
  const detection = [];
  for (let index = 0; index < 5; index += 1) {
    const member = await backend.spawn(spec(`victim${index}`, { file: 'sleep', args: ['1000'] }));
    const before = performance.now();
    tmux(socketName, ['kill-pane', '-t', member.identity.paneId]);
    await member.exited;
    detection.push(performance.now() - before);
  }
  results.vanishedDetectionMs = summary(detection);

  // Hygiene over spawn/kill cycles.
  const fdsBefore = readdirSync('/proc/self/fd').length;
  const listenersBefore = ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit'].map((name) =>
    process.listenerCount(name),
  );
  for (let index = 0; index < cycles; index += 1) {
    const member = await backend.spawn(spec(`cycle${index}`, { file: 'sleep', args: ['1000'] }));
    await member.kill({ graceful: false });
  }
  await sleep(1_000);
  results.cycles = {
    cycles,
    leadFdGrowth: readdirSync('/proc/self/fd').length - fdsBefore,
    panesLeft: tmux(socketName, ['list-panes', '-a', '-F', '#{pane_id}'])
      .split('\n')
      .filter(Boolean).length,
    zombies: zombieChildren(process.pid),
    listenerGrowth: ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit'].map(
      (name, index) => process.listenerCount(name) - listenersBefore[index],
    ),
  };
} finally {
  await backend.close();
}

// A lead process with two members (one with HUP/TERM-ignoring grandchildren) SIGKILLed.
{
  const leadSocket = `muster-bench-lead-${process.pid}`;
  const logFile = path.join(root, 'lead-members.log');
  mkdirSync(path.join(root, 'teams', 'doomed'), { recursive: true });
  const lead = spawn(
    process.execPath,
    [path.join(fixtures, 'tmux-lead.mjs'), leadSocket, root, 'doomed', 'grandchild', 'ignore-term'],
    { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, MEMBER_FIXTURE_LOG: logFile } },
  );
  let output = '';
  lead.stdout.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 60_000;
  while (!output.includes('\n') && Date.now() < deadline) await sleep(50);
  if (output.includes('\n')) {
    const report = JSON.parse(output);
    const grandchildren = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.event === 'grandchildren')
      .flatMap((entry) => entry.pids);
    const watched = [
      report.serverPid,
      ...report.members.map((member) => member.panePid),
      ...grandchildren,
    ];
    const killedAt = performance.now();
    lead.kill('SIGKILL');
    let allGoneMs;
    while (performance.now() - killedAt < 5_000) {
      if (allGoneMs === undefined && watched.every((pid) => !runs(pid)))
        allGoneMs = performance.now() - killedAt;
      await sleep(20);
    }
    const survivors = watched.filter((pid) => runs(pid));
    for (const pid of survivors) process.kill(pid, 'SIGKILL');
    results.leadSigkill = {
      watched: watched.length,
      survivorsAfter5s: survivors.length,
      allGoneMs,
    };
  } else {
    lead.kill('SIGKILL');
    results.leadSigkill = { error: 'the lead did not report its members within 60 s' };
  }
  tmux(leadSocket, ['kill-server']);
  rmSync(path.join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid()}`, leadSocket), {
    force: true,
  });
}
rmSync(root, { recursive: true, force: true });

if (json) {
  const summaryEntry = {
    backend: 'tmux',
    ...(results.spawnToRunningMs === undefined
      ? {}
      : { spawnToRunningMs: results.spawnToRunningMs }),
    ...(results.spawnToReadyMs === undefined
      ? {}
      : {
          spawnToReadyMs: {
            n: results.spawnToReadyMs.n,
            p50: results.spawnToReadyMs.p50,
            p95: results.spawnToReadyMs.p95,
          },
        }),
    ...(results.vanishedDetectionMs === undefined
      ? {}
      : { deadDetectionMs: results.vanishedDetectionMs }),
    ...(results.cycles === undefined
      ? {}
      : {
          cycles: {
            cycles: results.cycles.cycles,
            fdGrowth: results.cycles.leadFdGrowth,
            zombies: results.cycles.zombies,
            panesLeft: results.cycles.panesLeft,
            listenerGrowth: Math.max(...results.cycles.listenerGrowth),
          },
        }),
    ...(results.leadSigkill?.watched === undefined
      ? {}
      : {
          orphansAfterLeadKill: {
            watched: results.leadSigkill.watched,
            survivors: results.leadSigkill.survivorsAfter5s,
          },
        }),
  };
  process.stdout.write(
    `${JSON.stringify({ backend: 'tmux', ...results, summary: [summaryEntry] })}\n`,
  );
} else {
  console.log(
    'tmux backend (private server), load average',
    readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
  );
  for (const [name, value] of Object.entries(results))
    console.log(`  ${name}: ${JSON.stringify(value)}`);
}
