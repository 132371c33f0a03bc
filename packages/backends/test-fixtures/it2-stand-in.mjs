#!/usr/bin/env node
// STAND-IN for iTerm2's it2 CLI, records its arguments. This machine has no iTerm2; the
// iTerm2 backend's tests put this program on the PATH as `it2`. It is NOT iTerm2: it keeps a
// list of fake sessions in a JSON file and, for `session run`, starts the typed line with
// `/bin/sh -c` in a new process group, as a pane's shell would run it.
//
// Environment:
//   IT2_STAND_IN_STATE  JSON state file (required): { "sessions": [{ "id", "pgid"? }],
//                       "apiDown"?: true, "failSplits"?: n, "failRuns"?: n, "dropRuns"?: n }
//   IT2_STAND_IN_LOG    file that gets one JSON line per call: { "argv": [...], "at": ms }
//
// Commands (the subset the backend uses, in the shapes runtime.md §6.1 lists):
//   --version                       always answers (even with the API down, like the real one)
//   session list                    one line per session: "<id>\tstand-in session"
//   session split (-v|-h) [-s id]   "Created new pane: <UUID>"; unknown -s id → exit 1
//   session run -s id <text>        runs <text> with /bin/sh -c, detached; exit 0
//   session close [-f] -s id        SIGKILLs the session's process group, forgets the session
//   session focus id                exit 0
// With "apiDown" every command but --version fails as the real CLI does when iTerm2's Python
// API is disabled. "failSplits"/"failRuns" make that many next splits/runs fail; "dropRuns"
// makes that many next runs succeed but lose the typed line (a shell rc that drains typeahead).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const argv = process.argv.slice(2);
const stateFile = process.env.IT2_STAND_IN_STATE;
if (process.env.IT2_STAND_IN_LOG) {
  appendFileSync(process.env.IT2_STAND_IN_LOG, `${JSON.stringify({ argv, at: Date.now() })}\n`);
}

function fail(message, code = 1) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

if (argv[0] === '--version') {
  process.stdout.write('it2 0.0.0 (muster test STAND-IN, not iTerm2)\n');
  process.exit(0);
}
if (!stateFile) fail('it2 stand-in: set IT2_STAND_IN_STATE to a JSON state file', 2);

const state = JSON.parse(readFileSync(stateFile, 'utf8'));
state.sessions ??= [];
function save() {
  writeFileSync(`${stateFile}.tmp`, JSON.stringify(state, null, 2));
  renameSync(`${stateFile}.tmp`, stateFile);
}
function option(name) {
  const index = argv.indexOf(name);
  return index === -1 ? undefined : argv[index + 1];
}
function find(id) {
  return state.sessions.find((session) => session.id === id);
}

if (state.apiDown) {
  fail(
    'Error: Could not connect to iTerm2 Python API: [Errno 61] Connect call failed (connection refused). Make sure the Python API is enabled in iTerm2 preferences.',
  );
}

const [group, command] = argv;
if (group !== 'session') fail(`Error: No such command '${group}'.`, 2);

switch (command) {
  case 'list': {
    for (const session of state.sessions) process.stdout.write(`${session.id}\tstand-in session\n`);
    break;
  }
  case 'split': {
    const source = option('-s');
    if (source !== undefined && !find(source)) fail(`Error: Session '${source}' not found`);
    if ((state.failSplits ?? 0) > 0) {
      state.failSplits -= 1;
      save();
      fail('Error: split failed (stand-in told to fail)');
    }
    const id = randomUUID().toUpperCase();
    state.sessions.push({
      id,
      splitFrom: source ?? null,
      direction: argv.includes('-h') ? '-h' : '-v',
    });
    save();
    process.stdout.write(`Created new pane: ${id}\n`);
    break;
  }
  case 'run': {
    const id = option('-s');
    const session = find(id);
    if (!session) fail(`Error: Session '${id}' not found`);
    if ((state.failRuns ?? 0) > 0) {
      state.failRuns -= 1;
      save();
      fail('Error: could not send text (stand-in told to fail)');
    }
    if ((state.dropRuns ?? 0) > 0) {
      // As a shell whose rc file drains typeahead: the typed line is accepted, then lost.
      state.dropRuns -= 1;
      save();
      break;
    }
    const text = argv[argv.length - 1];
    const shell = spawn('/bin/sh', ['-c', text], { detached: true, stdio: 'ignore' });
    session.pgid = shell.pid;
    shell.unref();
    save();
    break;
  }
  case 'close': {
    const id = option('-s');
    const session = find(id);
    if (!session) fail(`Error: Session '${id}' not found`);
    if (session.pgid) {
      try {
        process.kill(-session.pgid, 'SIGKILL');
      } catch {
        // the pane's processes are already gone
      }
    }
    state.sessions = state.sessions.filter((other) => other.id !== id);
    save();
    break;
  }
  case 'focus':
    break;
  default:
    fail(`Error: No such command 'session ${command}'.`, 2);
}
