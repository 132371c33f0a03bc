// Figures for the pty backend (never asserted): spawn latency to "running" (R17), spawn to
// "ready" over the lead link, and hygiene over spawn/exit cycles (R33: open fds of the lead
// and of the PTY host, zombies). Run after a build: node bench/pty.mjs [--json] [--count N]
/* global performance */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPtyBackend } from '../dist/index.js';

const json = process.argv.includes('--json');
const countIndex = process.argv.indexOf('--count');
const count = countIndex === -1 ? 20 : Number(process.argv[countIndex + 1]);
const memberFixture = fileURLToPath(new URL('../test-fixtures/member.mjs', import.meta.url));

function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

function summary(values) {
  const round = (value) => Math.round(value * 10) / 10;
  return {
    n: values.length,
    p50: round(percentile(values, 0.5)),
    p95: round(percentile(values, 0.95)),
  };
}

function openDescriptors(pid) {
  return readdirSync(`/proc/${pid}/fd`).length;
}

function zombieChildren(parentPid) {
  let zombies = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z' && Number(fields[1]) === parentPid) zombies += 1;
    } catch {
      // Gone while we looked.
    }
  }
  return zombies;
}

const root = mkdtempSync(path.join(tmpdir(), 'muster-pty-bench-'));
mkdirSync(path.join(root, 'teams', 'bench'), { recursive: true });
const backend = createPtyBackend({ logDirectory: path.join(root, 'logs') });
const spec = (index, command, readiness = 'external') => ({
  root,
  teamName: 'bench',
  agentName: `member-${index}`,
  agentId: `member-${index}@bench`,
  cwd: root,
  command,
  readiness,
});

try {
  // Warm-up: starts the PTY host, which later spawns reuse.
  const warm = await backend.spawn(spec('warm', { file: 'true', args: [] }));
  await warm.exited;

  const running = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    const member = await backend.spawn(spec(index, { file: 'sleep', args: ['1000'] }));
    running.push(performance.now() - started);
    await member.kill({ graceful: false });
  }

  const ready = [];
  for (let index = 0; index < Math.min(count, 5); index += 1) {
    const started = performance.now();
    const member = await backend.spawn(
      spec(
        `ready-${index}`,
        { file: process.execPath, args: [memberFixture, 'idle'] },
        'connect-back',
      ),
    );
    await member.ready;
    ready.push(performance.now() - started);
    await member.kill();
  }

  const cycles = 100;
  const probe = await backend.spawn(spec('probe', { file: 'sleep', args: ['1000'] }));
  const hostPid = probe.hostPid;
  await probe.kill({ graceful: false });
  const listenerEvents = ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit', 'uncaughtException'];
  const listeners = () =>
    listenerEvents.reduce((total, event) => total + process.listenerCount(event), 0);
  const before = {
    lead: openDescriptors(process.pid),
    host: openDescriptors(hostPid),
    listeners: listeners(),
  };
  // Half the cycles exit by themselves, half are killed (R33); after each exit, write and
  // resize must be silent no-ops (R25): every throw is counted.
  let throwsAfterExit = 0;
  for (let index = 0; index < cycles; index += 1) {
    const killed = index % 2 === 1;
    const member = await backend.spawn(
      spec(
        `cycle-${index}`,
        killed ? { file: 'sleep', args: ['1000'] } : { file: 'true', args: [] },
      ),
    );
    if (killed) await member.kill({ graceful: false });
    await member.exited;
    try {
      member.write('after exit\r');
      member.resize(100, 30);
    } catch {
      throwsAfterExit += 1;
    }
  }
  const after = {
    lead: openDescriptors(process.pid),
    host: openDescriptors(hostPid),
    listeners: listeners(),
  };
  // Baseline: node-pty's own spawn in this process (what the backend adds is the difference).
  const { spawn: spawnPty } = await import('node-pty');
  const raw = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    const child = spawnPty('sleep', ['1000'], {});
    raw.push(performance.now() - started);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.onExit(resolve));
  }
  const figures = {
    rawNodePtySpawnMs: summary(raw),
    spawnToRunningMs: summary(running),
    spawnToReadyMs: summary(ready),
    hygiene: {
      cycles,
      leadDescriptorGrowth: after.lead - before.lead,
      hostDescriptorGrowth: after.host - before.host,
      zombies: zombieChildren(process.pid) + zombieChildren(hostPid),
      listenerGrowth: after.listeners - before.listeners,
      throwsAfterExit,
    },
  };
  if (json) console.log(JSON.stringify({ backend: 'pty', ...figures }));
  else {
    console.log(
      `pty spawn → running (n=${figures.spawnToRunningMs.n}): p50 ${figures.spawnToRunningMs.p50} ms, p95 ${figures.spawnToRunningMs.p95} ms`,
    );
    console.log(
      `node-pty spawn alone in this process, same moment (n=${figures.rawNodePtySpawnMs.n}): p50 ${figures.rawNodePtySpawnMs.p50} ms, p95 ${figures.rawNodePtySpawnMs.p95} ms`,
    );
    console.log(
      `pty spawn → ready over the lead link (n=${figures.spawnToReadyMs.n}): p50 ${figures.spawnToReadyMs.p50} ms, p95 ${figures.spawnToReadyMs.p95} ms`,
    );
    console.log(
      `pty ${cycles} spawn/exit-or-kill cycles (R33): lead fds ${figures.hygiene.leadDescriptorGrowth >= 0 ? '+' : ''}${figures.hygiene.leadDescriptorGrowth}, host fds ${figures.hygiene.hostDescriptorGrowth >= 0 ? '+' : ''}${figures.hygiene.hostDescriptorGrowth}, zombies ${figures.hygiene.zombies}, process listeners ${figures.hygiene.listenerGrowth >= 0 ? '+' : ''}${figures.hygiene.listenerGrowth}; write/resize after exit threw ${figures.hygiene.throwsAfterExit} times (R25)`,
    );
  }
} finally {
  await backend.close();
  rmSync(root, { recursive: true, force: true });
}
