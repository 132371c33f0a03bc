#!/usr/bin/env node
// Benchmark of the member monitor (the built dist/): `node bench/member-monitor.mjs [--json]`.
// Prints figures; asserts nothing. Bounded: exits after 90 s.
// n = 20 real child processes (plain `node` members, each owning one open task) are watched
// with the default settings (isAlive every 500 ms), then SIGKILLed from outside:
//   exit path:     the handle's `exited` reports the death (a backend that saw it)
//   vanished path: only `isAlive()` turns false (a pane killed behind the backend's back)
// For each: SIGKILL → monitor noticed, and SIGKILL → member marked inactive and task released
// (p50 / p95 / max, ms). Goal: ≤ 2 000 ms.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTaskStore } from '@muster/tasks';
import { addMember, createTeam } from '@muster/teams';
import { createMemberMonitor } from '../dist/index.js';

const LIMIT_MS = 90_000;
const COUNT = 20;
const json = process.argv.includes('--json');
const limit = setTimeout(() => {
  console.error(`bench: still running after ${LIMIT_MS / 1000} s; stopped`);
  process.exit(1);
}, LIMIT_MS);
limit.unref();
// The monitor's timers do not hold the process open (a lead has its own reasons to live).
const keepAlive = setInterval(() => {}, 1_000);

function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** A plain process member (a bench double of a backend's handle). */
function processMember(spec, reportExit) {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    detached: true,
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => {
    if (!reportExit) return;
    child.on('exit', (code, signal) =>
      resolve({ reason: 'crashed', code, signal, message: 'killed', at: Date.now() }),
    );
  });
  return {
    spec,
    backend: 'pty',
    ready: Promise.resolve(),
    exited,
    markReady() {},
    isAlive: () => alive(child.pid),
    kill: async () => process.kill(-child.pid, 'SIGKILL'),
    describe: () => ({ backend: 'pty', pid: child.pid }),
    pid: child.pid,
  };
}

async function measure(path) {
  const root = mkdtempSync(join(tmpdir(), 'muster-monitor-bench-'));
  try {
    const { teamName } = await createTeam({ root, name: 'bench-team', cwd: root });
    const tasks = createTaskStore({ root, team: teamName });
    const monitor = createMemberMonitor({ root, teamName });
    const members = [];
    for (let index = 0; index < COUNT; index += 1) {
      const member = await addMember(root, teamName, {
        name: `worker-${index}`,
        agentType: 'general-purpose',
        model: 'claude-sonnet-4-6',
        prompt: 'work',
        planModeRequired: false,
        cwd: root,
        backendType: 'pty',
        tmuxPaneId: '',
      });
      const task = await tasks.create({ subject: `task ${index}`, description: 'x' });
      await tasks.update(task.id, { owner: member.name, status: 'in_progress' });
      const spec = { root, teamName, agentName: member.name, agentId: member.agentId, cwd: root };
      const handle = processMember(spec, path === 'exit');
      const watched = await monitor.watch(handle);
      members.push({ handle, watched });
    }
    const noticed = [];
    const handled = [];
    for (const { handle, watched } of members) {
      const killedAt = Date.now();
      process.kill(-handle.pid, 'SIGKILL');
      const gone = await watched.gone;
      noticed.push(gone.detectedAt - killedAt);
      handled.push(Date.now() - killedAt);
      if (gone.unassigned?.unassignedTasks.length !== 1) throw new Error('task not released');
    }
    await monitor.close();
    const figures = (values) => ({
      p50: percentile(values, 0.5),
      p95: percentile(values, 0.95),
      max: Math.max(...values),
    });
    return { n: COUNT, noticedMs: figures(noticed), handledMs: figures(handled) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const result = { exitPath: await measure('exit'), vanishedPath: await measure('vanished') };
// For bench/run.mjs's table: SIGKILL → member marked gone and its task released.
const detection = (path) => ({ n: path.n, p50: path.handledMs.p50, p95: path.handledMs.p95 });
const summary = [
  { backend: 'monitor: exit reported', deadDetectionMs: detection(result.exitPath) },
  { backend: 'monitor: isAlive() only', deadDetectionMs: detection(result.vanishedPath) },
];
if (json) {
  process.stdout.write(`${JSON.stringify({ ...result, summary })}\n`);
} else {
  for (const [name, figures] of Object.entries(result)) {
    console.log(
      `member monitor, ${name} (n = ${figures.n}, default 500 ms poll): noticed p50 ${figures.noticedMs.p50} / p95 ${figures.noticedMs.p95} / max ${figures.noticedMs.max} ms; marked + task released p50 ${figures.handledMs.p50} / p95 ${figures.handledMs.p95} / max ${figures.handledMs.max} ms (goal ≤ 2 000 ms)`,
    );
  }
}
clearInterval(keepAlive);
process.exit(0);
