// A stand-in team member for tests of every process backend (pty, tmux, iTerm2, child process).
// It connects back to the lead link (MUSTER_LEAD_SOCKET, MUSTER_AGENT_ID), says ready, then
// behaves as told by its first argument:
//   idle          stay alive until killed or the lead is gone
//   exit <code>   exit with <code> right after saying ready
//   grandchild    start two `sleep 1000` that ignore SIGHUP and SIGTERM: one in this member's
//                 process group, one in a new session (`setsid`); then idle
//   ignore-term   ignore SIGTERM (only SIGKILL or a lost lead ends it); then idle
//   never-ready   connect and say hello, never ready; then idle
// MEMBER_FIXTURE_NO_CLEANUP=1: the member does not end its own processes when it is signalled.
// When MEMBER_FIXTURE_LOG names a file, one JSON line per event is appended to it:
//   {"event":"started","pid","pgid","sid","agentId","at"}, {"event":"grandchildren","pids":[…]},
//   {"event":"ready","at"}, {"event":"lead-gone","reason","at"}, {"event":"term-ignored","at"}.
// It also prints `member <agentId> <event>` lines on stdout (for screen tests).
// Built code only: run `pnpm --filter @muster/backends build` first.
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { connectToLead, endMemberBecauseLeadIsGone } from '../dist/index.js';

const [mode = 'idle', argument] = process.argv.slice(2);
const modes = ['idle', 'exit', 'grandchild', 'ignore-term', 'never-ready'];
if (!modes.includes(mode)) {
  process.stderr.write(`member.mjs: unknown mode ${mode}; use one of ${modes.join(', ')}\n`);
  process.exit(2);
}
const agentId = process.env.MUSTER_AGENT_ID ?? 'unknown';

function record(event, fields = {}) {
  process.stdout.write(`member ${agentId} ${event}\n`);
  const logFile = process.env.MEMBER_FIXTURE_LOG;
  if (logFile)
    appendFileSync(logFile, `${JSON.stringify({ event, agentId, ...fields, at: Date.now() })}\n`);
}

function groupAndSession(pid = 'self') {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { pgid: Number(fields[2]), sid: Number(fields[3]) };
}

function startGrandchildren() {
  return new Promise((resolve, reject) => {
    const script = "trap '' HUP TERM; sleep 1000 & echo $!; setsid sleep 1000 & echo $!; wait";
    const shell = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    shell.stdout.on('data', (chunk) => {
      output += chunk.toString();
      const pids = output.split('\n').filter(Boolean).map(Number);
      if (pids.length < 2) return;
      // Report only once the second sleep really is in its own session.
      const inNewSession = () => {
        try {
          return groupAndSession(pids[1]).sid === pids[1];
        } catch {
          return false;
        }
      };
      const poll = setInterval(() => {
        if (!inNewSession()) return;
        clearInterval(poll);
        resolve([shell.pid, ...pids]);
      }, 10);
    });
    shell.once('error', reject);
  });
}

// Keeps the process alive in every mode that stays (the link itself does not).
const keepAlive = setInterval(() => {}, 60_000);

if (mode === 'ignore-term') {
  process.on('SIGTERM', () => record('term-ignored'));
}

record('started', { pid: process.pid, ...groupAndSession() });
const link = await connectToLead({
  // ignore-term must keep ignoring SIGTERM: no cleanup handlers that would end it on SIGTERM.
  // MEMBER_FIXTURE_NO_CLEANUP=1 leaves its processes to the lead's kill (to test that alone).
  endOwnProcesses: mode !== 'ignore-term' && process.env.MEMBER_FIXTURE_NO_CLEANUP !== '1',
  onLeadGone(reason) {
    record('lead-gone', { reason });
    endMemberBecauseLeadIsGone(reason);
  },
});

if (mode === 'grandchild') {
  const pids = await startGrandchildren();
  record('grandchildren', { pids });
}

if (mode !== 'never-ready') {
  await link.ready();
  record('ready');
}

if (mode === 'exit') {
  const code = Number(argument ?? '0');
  clearInterval(keepAlive);
  link.close();
  process.exitCode = Number.isInteger(code) ? code : 1;
}
