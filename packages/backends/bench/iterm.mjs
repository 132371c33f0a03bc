#!/usr/bin/env node
// Benchmark of the iTerm2 backend (the built dist/) against the it2 STAND-IN
// (test-fixtures/it2-stand-in.mjs), NOT iTerm2: `node bench/iterm.mjs [--json]`. This machine has
// no iTerm2, so the figures say what muster's side costs (two `it2` calls, the launch script,
// a node member connecting back), with a stand-in `it2` that is itself a node program.
// Prints figures; asserts nothing. Bounded: exits after 120 s.
//   n = 20: spawn() call → spawn resolved (pane made, line typed) → member running (its pid
//   recorded) → ready (connected back); then kill. Lead fds and stand-in sessions before/after.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createITermBackend } from '../dist/index.js';

const LIMIT_MS = 120_000;
const COUNT = 20;
const json = process.argv.includes('--json');
const limit = setTimeout(() => {
  console.error(`bench: still running after ${LIMIT_MS / 1000} s; stopped`);
  process.exit(1);
}, LIMIT_MS);
limit.unref();

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'test-fixtures');
const folder = mkdtempSync(path.join(tmpdir(), 'muster-iterm-bench-'));
const bin = path.join(folder, 'bin');
mkdirSync(bin);
symlinkSync(path.join(fixtures, 'it2-stand-in.mjs'), path.join(bin, 'it2'));
const stateFile = path.join(folder, 'state.json');
const leadSession = 'LEAD0000-0000-4000-8000-000000000000';
writeFileSync(stateFile, JSON.stringify({ sessions: [{ id: leadSession }] }));
const root = path.join(folder, 'root');
const teamName = 'bench-team';
mkdirSync(path.join(root, 'teams', teamName), { recursive: true });
const environment = {
  ...process.env,
  PATH: `${bin}${path.delimiter}${process.env.PATH}`,
  TERM_PROGRAM: 'iTerm.app',
  ITERM_SESSION_ID: `w0t0p0:${leadSession}`,
  IT2_STAND_IN_STATE: stateFile,
};

function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}
const figures = (values) => ({
  p50: Math.round(percentile(values, 0.5)),
  p95: Math.round(percentile(values, 0.95)),
});
const openFds = () => readdirSync('/proc/self/fd').length;
const sessions = () => JSON.parse(readFileSync(stateFile, 'utf8')).sessions.length;

const backend = createITermBackend({ environment });
const resolved = [];
const running = [];
const ready = [];
let fdsAfter;
let fdsBefore;
try {
  for (let index = 0; index < COUNT; index += 1) {
    const name = `member-${index}`;
    const start = performance.now();
    const handle = await backend.spawn({
      root,
      teamName,
      agentName: name,
      agentId: `${name}@${teamName}`,
      cwd: root,
      command: { file: process.execPath, args: [path.join(fixtures, 'member.mjs'), 'idle'] },
      readyTimeoutMs: 30_000,
    });
    resolved.push(performance.now() - start);
    while (handle.describe().pid === undefined)
      await new Promise((resolve) => setTimeout(resolve, 2));
    running.push(performance.now() - start);
    await handle.ready;
    ready.push(performance.now() - start);
    await handle.kill({ deadlineMs: 2_000 });
    // After the first cycle (the lead link and lazily opened handles exist by then).
    if (index === 0) fdsBefore = openFds();
  }
  fdsAfter = openFds();
} finally {
  await backend.close();
}
const result = {
  standIn: true,
  n: COUNT,
  spawnResolvedMs: figures(resolved),
  runningMs: figures(running),
  readyMs: figures(ready),
  /** Lead fds after the last kill minus after the first, with the backend still open. */
  leadFdsGrowth: fdsAfter - fdsBefore,
  sessionsLeft: sessions() - 1,
};
rmSync(folder, { recursive: true, force: true });
if (json) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  console.log(
    `iTerm2 backend against the it2 STAND-IN (not iTerm2), n = ${COUNT}: spawn resolved p50 ${result.spawnResolvedMs.p50} / p95 ${result.spawnResolvedMs.p95} ms; running p50 ${result.runningMs.p50} / p95 ${result.runningMs.p95} ms; ready p50 ${result.readyMs.p50} / p95 ${result.readyMs.p95} ms; lead fds over cycles 2-20 ${result.leadFdsGrowth >= 0 ? '+' : ''}${result.leadFdsGrowth}; panes left ${result.sessionsLeft}`,
  );
}
process.exit(0);
