// Who a member's pane is, precisely enough that muster never touches a pane or a process it
// did not start (R16): pane ids restart at `%0` on every new server and pids are reused, so a
// pane is named by (socket path, server pid, pane id, pane pid, pane process start time) and
// all of them are checked again before any signal or `kill-pane`.
import { readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { BackendError } from './backend-error.js';
import { isSameProcess, killProcessTree } from './process-control.js';
import { readProcessEntry } from './process-control-proc.js';
import { recoverLostExitStatus } from './tmux-exit-status.js';
import { TmuxCommandError, TmuxRunner } from './tmux-runner.js';
import { delay, type TmuxServerIdentity } from './tmux-server.js';

/** What muster records about a member's pane (persist it; every kill re-verifies it). */
export interface TmuxPaneIdentity extends TmuxServerIdentity {
  /** `%N`, meaningful only together with `socketPath` and `serverPid`. */
  paneId: string;
  /** The pane's process (session and process-group leader of everything the member starts). */
  panePid: number;
  /** Start time of `panePid` in clock ticks since boot (`/proc/<pid>/stat` field 22), where known. */
  paneStartTime?: string;
}

/** What a pane check found. */
export type TmuxPaneCheck =
  /** The recorded pane runs the recorded process. */
  | { state: 'running' }
  /** The recorded pane is still there, its process ended (`remain-on-exit`). */
  | { state: 'dead'; code: number | null; signal: string | null }
  /** The pane or its whole server no longer exists. */
  | { state: 'gone'; reason: string }
  /** Something else now answers to the recorded names: never touch it. */
  | { state: 'changed'; reason: string };

const PANE_FORMAT =
  '#{pid}\t#{socket_path}\t#{pane_id}\t#{pane_pid}\t#{pane_dead}\t#{pane_dead_status}\t#{pane_dead_signal}';

/** Checks a recorded pane against its server and `/proc`, touching nothing. */
export async function checkTmuxPane(
  identity: TmuxPaneIdentity,
  options: { tmuxPath?: string } = {},
): Promise<TmuxPaneCheck> {
  const runner = new TmuxRunner(options.tmuxPath ?? 'tmux', { socketPath: identity.socketPath });
  let output: string;
  try {
    output = await runner.run(['display-message', '-p', '-t', identity.paneId, PANE_FORMAT]);
  } catch (error) {
    if (error instanceof TmuxCommandError && error.serverMissing) {
      return { state: 'gone', reason: `its tmux server (${identity.socketPath}) no longer runs` };
    }
    if (error instanceof TmuxCommandError && error.targetMissing) {
      return { state: 'gone', reason: `pane ${identity.paneId} no longer exists` };
    }
    throw error;
  }
  const [serverPid, socketPath, paneId, panePid, dead, status, signal] = output
    .replace(/\n$/, '')
    .split('\t');
  if (Number(serverPid) !== identity.serverPid || socketPath !== identity.socketPath) {
    return {
      state: 'changed',
      reason:
        `the tmux server on ${identity.socketPath} is now pid ${String(serverPid)} (was ` +
        `${identity.serverPid}): ${identity.paneId} there is another server's pane`,
    };
  }
  if (paneId !== identity.paneId || Number(panePid) !== identity.panePid) {
    return {
      state: 'changed',
      reason: `pane ${identity.paneId} now runs pid ${String(panePid)}, not the member's ${identity.panePid}`,
    };
  }
  if (dead === '1') {
    return { state: 'dead', code: parseCode(status), signal: signalName(signal) };
  }
  if (!isPaneProcessRunning(identity)) {
    return {
      state: 'changed',
      reason: `pid ${identity.panePid} is no longer the process that started in ${identity.paneId}`,
    };
  }
  return { state: 'running' };
}

/**
 * True while the recorded pane process runs: the lifecycle part's `isSameProcess` (same pid and
 * start time, not a zombie) where the start time is known, else the pid alone (not a zombie).
 */
export function isPaneProcessRunning(
  identity: Pick<TmuxPaneIdentity, 'panePid' | 'paneStartTime'>,
): boolean {
  const pid = identity.panePid;
  if (identity.paneStartTime !== undefined) {
    return isSameProcess({ pid, startTime: identity.paneStartTime, pgid: pid, sid: pid });
  }
  const state = readProcessEntry(pid)?.state;
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/**
 * `kill-pane` that tmux itself runs only while the pane still belongs to the recorded server
 * (and process, when given): no gap between the check and the kill for a restarted server to
 * slip through (R16).
 */
export function guardedKillPane(
  identity: Pick<TmuxPaneIdentity, 'serverPid' | 'paneId'> & { panePid?: number },
): string[] {
  const condition =
    identity.panePid === undefined
      ? `#{==:#{pid},${identity.serverPid}}`
      : `#{==:#{pid}/#{pane_pid},${identity.serverPid}/${identity.panePid}}`;
  return ['if-shell', '-F', '-t', identity.paneId, condition, `kill-pane -t ${identity.paneId}`];
}

/** How a pane kill ended. */
export type TmuxPaneKillResult =
  | { state: 'gone'; reason: string }
  | {
      state: 'ended';
      code: number | null;
      signal: string | null;
      sent: 'SIGTERM' | 'SIGKILL' | null;
    };

/**
 * Ends a recorded pane: SIGTERM to its process group, up to `deadlineMs` for it to end, then
 * SIGKILL to the group and every process of its session, then `kill-pane`. Each step
 * re-verifies the identity first; a pane or process that is no longer the member's is never
 * touched (`BackendError('IDENTITY_CHANGED')`).
 */
export async function killTmuxPane(
  identity: TmuxPaneIdentity,
  options: { graceful?: boolean; deadlineMs?: number; tmuxPath?: string } = {},
): Promise<TmuxPaneKillResult> {
  const tmuxPath = options.tmuxPath ?? 'tmux';
  const first = await checkTmuxPane(identity, { tmuxPath });
  if (first.state === 'changed') throw identityChanged(identity, first.reason);
  if (first.state === 'gone') return first;
  let sent: 'SIGTERM' | 'SIGKILL' | null = null;
  if (first.state === 'running') sent = await endPaneProcesses(identity, options);
  let last: TmuxPaneCheck = first;
  const deadline = Date.now() + 2_000;
  while (last.state === 'running' && Date.now() < deadline) {
    await delay(20);
    last = await checkTmuxPane(identity, { tmuxPath });
  }
  // A dead pane with no status: tmux may have missed the process's SIGCHLD (tmux-exit-status.ts).
  for (
    let round = 0;
    isStatusless(last) && round < 10 && recoverLostExitStatus(identity);
    round++
  ) {
    await delay(20);
    last = await checkTmuxPane(identity, { tmuxPath });
  }
  if (last.state === 'changed') throw identityChanged(identity, last.reason);
  if (last.state === 'gone') return { state: 'ended', code: null, signal: sent, sent };
  const runner = new TmuxRunner(tmuxPath, { socketPath: identity.socketPath });
  await runner.run(guardedKillPane(identity)).catch(() => undefined);
  if (last.state === 'dead') return { state: 'ended', code: last.code, signal: last.signal, sent };
  return { state: 'ended', code: null, signal: sent, sent };
}

/**
 * Ends the pane's process tree: the lifecycle part's `killProcessTree` (group, session and
 * descendants, each re-verified by start time) where the start time is known, else a plain
 * group SIGTERM / SIGKILL.
 */
async function endPaneProcesses(
  identity: TmuxPaneIdentity,
  options: { graceful?: boolean; deadlineMs?: number },
): Promise<'SIGTERM' | 'SIGKILL' | null> {
  const graceMs = (options.graceful ?? true) ? (options.deadlineMs ?? 5_000) : 0;
  if (identity.paneStartTime !== undefined) {
    const result = await killProcessTree(
      {
        pid: identity.panePid,
        startTime: identity.paneStartTime,
        pgid: identity.panePid,
        sid: identity.panePid,
      },
      { graceMs },
    );
    if (result.signalled.length === 0) return null;
    return graceMs === 0 || result.forced.length > 0 ? 'SIGKILL' : 'SIGTERM';
  }
  let sent: 'SIGTERM' | 'SIGKILL' | null = null;
  if (graceMs > 0 && signalGroup(identity, 'SIGTERM')) {
    sent = 'SIGTERM';
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && isPaneProcessRunning(identity)) await delay(25);
  }
  if (signalGroup(identity, 'SIGKILL')) sent = 'SIGKILL';
  return sent;
}

function isStatusless(check: TmuxPaneCheck): boolean {
  return check.state === 'dead' && check.code === null && check.signal === null;
}

function identityChanged(identity: TmuxPaneIdentity, reason: string): BackendError {
  return new BackendError({
    code: 'IDENTITY_CHANGED',
    message: `Left pane ${identity.paneId} alone: ${reason}. Nothing was signalled or closed.`,
    details: { ...identity },
  });
}

/** Signals the pane's process group after checking the leader is still the recorded process. */
function signalGroup(identity: TmuxPaneIdentity, signal: 'SIGTERM' | 'SIGKILL'): boolean {
  if (!isPaneProcessRunning(identity)) return false;
  return sendSignal(-identity.panePid, signal);
}

function sendSignal(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Live processes of the pane's session (the pane process is the session leader, so every
 * process it started shares its session id unless it called `setsid`). A session id cannot be
 * reused while any process still belongs to it, so this never finds a stranger.
 */
export function sessionMembers(sessionId: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = readStatFields(Number(entry));
    if (fields === undefined) continue;
    const [state, , , session] = fields;
    if (Number(session) === sessionId && state !== 'Z' && state !== 'X')
      members.push(Number(entry));
  }
  return members;
}

function readStatFields(pid: number): string[] | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) sits in parentheses and may itself hold spaces or ')'.
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

function parseCode(text: string | undefined): number | null {
  return text === undefined || text === '' ? null : Number(text);
}

/** `15` → `SIGTERM`; empty → null. */
export function signalName(text: string | undefined): string | null {
  if (text === undefined || text === '') return null;
  const number = Number(text);
  const entry = Object.entries(constants.signals).find(([, value]) => value === number);
  return entry === undefined ? `signal ${text}` : entry[0];
}
