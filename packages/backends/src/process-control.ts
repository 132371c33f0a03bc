// Ending a member process and everything it started, without ever signalling a process that
// is not the member's (R16, R24). Identity = pid + start time (+ group and session), read from
// /proc; every signal is sent only after the identity was checked again.
import { execFileSync } from 'node:child_process';
import { BackendError } from './backend-error.js';
import {
  descendantsOf,
  listProcesses,
  readProcessEntry,
  type ProcessEntry,
  type ProcessIdentity,
} from './process-control-proc.js';

export type { ProcessIdentity } from './process-control-proc.js';

/** Options of {@link killProcessTree}. */
export interface KillProcessTreeOptions {
  /** How long SIGTERM gets before SIGKILL (default 5 000 ms; 0 sends SIGKILL at once). */
  graceMs?: number;
  /** How long to wait for the SIGKILLed processes to disappear (default 2 000 ms). */
  settleMs?: number;
}

/** What {@link killProcessTree} did. */
export interface KillProcessTreeResult {
  /** Every pid that received a signal. */
  signalled: number[];
  /** Pids that were still there after the grace period and got SIGKILL. */
  forced: number[];
  /** Pids still present (not zombies) after everything (normally empty). */
  survivors: number[];
}

/** Reads `pid`'s identity from `/proc/<pid>/stat`; undefined when the pid is free or /proc is missing. */
export function readProcessIdentity(pid: number): ProcessIdentity | undefined {
  const entry = readProcessEntry(pid);
  if (entry === undefined) return undefined;
  return { pid: entry.pid, startTime: entry.startTime, pgid: entry.pgid, sid: entry.sid };
}

function isGone(entry: ProcessEntry | undefined): boolean {
  return entry === undefined || entry.state === 'Z' || entry.state === 'X';
}

/** True while the process recorded in `identity` still runs: same pid, same start time, not a zombie. */
export function isSameProcess(identity: ProcessIdentity): boolean {
  const entry = readProcessEntry(identity.pid);
  return !isGone(entry) && entry?.startTime === identity.startTime;
}

function send(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Ends a member process tree (R24): SIGTERM to its process group (and its descendants outside
 * it), up to `graceMs` for them to end, then SIGKILL to the group, every process of its session
 * and every descendant found in /proc, each re-verified by start time first. Refuses with
 * `BackendError('IDENTITY_CHANGED')`, signalling nothing, when the pid now belongs to another
 * process (R16). A group or session this process itself belongs to is never signalled as a whole.
 */
export async function killProcessTree(
  identity: ProcessIdentity,
  options: KillProcessTreeOptions = {},
): Promise<KillProcessTreeResult> {
  const graceMs = options.graceMs ?? 5_000;
  const settleMs = options.settleMs ?? 2_000;
  const leader = readProcessEntry(identity.pid);
  if (leader !== undefined && leader.startTime !== identity.startTime) {
    throw new BackendError({
      code: 'IDENTITY_CHANGED',
      message: `Pid ${identity.pid} now belongs to another process (started at tick ${leader.startTime}, the member at ${identity.startTime}); nothing was signalled. The member ended earlier; its record is stale.`,
      details: {
        pid: identity.pid,
        recordedStartTime: identity.startTime,
        currentStartTime: leader.startTime,
      },
    });
  }
  const self = readProcessEntry(process.pid);
  // A group or session id stays allocated while any member uses it, so they cannot be reused.
  const groupIsOurs = identity.pgid === identity.pid && identity.pgid !== self?.pgid;
  const sessionIsOurs = identity.sid === identity.pid && identity.sid !== self?.sid;

  const tracked = new Map<number, string>();
  const collect = (): void => {
    const processes = listProcesses();
    const treeRoots = isGone(readProcessEntry(identity.pid)) ? [] : [identity.pid];
    const descendants = new Set(
      treeRoots.flatMap((root) => [root, ...descendantsOf(root, processes)]),
    );
    for (const entry of processes) {
      if (entry.pid === process.pid || isGone(entry)) continue;
      const belongs =
        descendants.has(entry.pid) ||
        (groupIsOurs && entry.pgid === identity.pgid) ||
        (sessionIsOurs && entry.sid === identity.sid);
      if (belongs) tracked.set(entry.pid, entry.startTime);
    }
  };
  const stillTracked = (): number[] =>
    [...tracked]
      .filter(([pid, startTime]) => {
        const entry = readProcessEntry(pid);
        return !isGone(entry) && entry?.startTime === startTime;
      })
      .map(([pid]) => pid);

  collect();
  const signalled = new Set<number>();
  const terminate = (signal: NodeJS.Signals): void => {
    if (groupIsOurs && send(-identity.pgid, signal)) signalled.add(identity.pid);
    for (const pid of stillTracked()) {
      if (signal === 'SIGTERM' && groupIsOurs && readProcessEntry(pid)?.pgid === identity.pgid) {
        signalled.add(pid);
        continue;
      }
      if (send(pid, signal)) signalled.add(pid);
    }
  };

  if (graceMs > 0) {
    terminate('SIGTERM');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && stillTracked().length > 0) {
      await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
      if (!isGone(readProcessEntry(identity.pid))) collect();
    }
  }
  collect();
  const forced = stillTracked();
  if (forced.length > 0 || graceMs === 0) terminate('SIGKILL');
  const settleDeadline = Date.now() + settleMs;
  while (Date.now() < settleDeadline && stillTracked().length > 0) await sleep(20);
  return { signalled: [...signalled].sort((a, b) => a - b), forced, survivors: stillTracked() };
}

let cachedPrefix: string[] | undefined;

/**
 * The argv prefix that makes the kernel SIGKILL a child when its parent dies:
 * `['setpriv', '--pdeathsig', 'KILL', '--']` when util-linux `setpriv` here supports it
 * (Linux), otherwise `[]`. Use it only where the lead itself is the parent (R31).
 */
export function deathSignalPrefix(): string[] {
  if (cachedPrefix !== undefined) return [...cachedPrefix];
  cachedPrefix = [];
  if (process.platform === 'linux') {
    try {
      const help = execFileSync('setpriv', ['--help'], {
        encoding: 'utf8',
        timeout: 5_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      if (help.includes('--pdeathsig')) cachedPrefix = ['setpriv', '--pdeathsig', 'KILL', '--'];
    } catch {
      cachedPrefix = [];
    }
  }
  return [...cachedPrefix];
}
