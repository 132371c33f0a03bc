// The process reaper's sweep: find every process that carries one lead run's marker
// (`MUSTER_LEAD_RUN=<id>` in `/proc/<pid>/environ`) and end it, SIGTERM first, then SIGKILL.
// A marker in the environment is inherited through `&`, `setsid`, `nohup` and double forks,
// which leave the process group or the parent chain; so every process a member's tools started
// is found even after the lead that started them is gone. Linux only (no /proc elsewhere).
import { readFileSync } from 'node:fs';
import { listProcesses, readProcessEntry, type ProcessEntry } from './process-control-proc.js';
import type { ProcessIdentity } from './process-control.js';

/** Options of {@link sweepMarkedProcesses}. */
export interface SweepOptions {
  /** The marker's variable name (`MUSTER_LEAD_RUN`). */
  variable: string;
  /** The marker's value: the lead run id. */
  value: string;
  /** Processes never signalled even when marked (the reaper itself, a lead still alive). */
  exclude?: readonly ProcessIdentity[];
  /** How long SIGTERM gets before SIGKILL (default 1 000 ms; 0 sends SIGKILL at once). */
  graceMs?: number;
  /** How long to keep killing what is still (or newly) marked after SIGKILL (default 2 000 ms). */
  settleMs?: number;
}

/** What {@link sweepMarkedProcesses} found and did. */
export interface SweepReport {
  /** Every marked process found (pid), in the order found. */
  found: number[];
  /** Pids that were still there after the grace period and got SIGKILL. */
  forced: number[];
  /** Marked pids still running when the sweep gave up (normally empty). */
  survivors: number[];
}

const POLL_INTERVAL_MS = 50;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function isRunning(entry: ProcessEntry | undefined): entry is ProcessEntry {
  return entry !== undefined && entry.state !== 'Z' && entry.state !== 'X';
}

/** Whether a NUL-separated environment block holds exactly `needle` (`NAME=value\0`) as one entry. */
export function environmentHoldsEntry(environment: Buffer, needle: Buffer): boolean {
  let from = 0;
  for (;;) {
    const at = environment.indexOf(needle, from);
    if (at < 0) return false;
    // An entry starts the block or follows the NUL that ends the previous one.
    if (at === 0 || environment[at - 1] === 0) return true;
    from = at + 1;
  }
}

/**
 * Every running process (zombies aside) whose environment holds `variable=value`, with its
 * identity. A process counts only when its start time reads the same before and after its
 * environment was read, so a pid recycled meanwhile is never reported. Processes of other users
 * (unreadable environ) and the processes in `exclude` (same pid and start time) are left out. Empty where there is no /proc.
 */
export function findMarkedProcesses(
  variable: string,
  value: string,
  exclude: readonly ProcessIdentity[] = [],
): ProcessIdentity[] {
  const needle = Buffer.from(`${variable}=${value}\0`);
  const found: ProcessIdentity[] = [];
  for (const before of listProcesses()) {
    const excluded = exclude.some(
      (identity) => identity.pid === before.pid && identity.startTime === before.startTime,
    );
    if (excluded || !isRunning(before)) continue;
    let environment: Buffer;
    try {
      environment = readFileSync(`/proc/${before.pid}/environ`);
    } catch {
      continue;
    }
    if (!environmentHoldsEntry(environment, needle)) continue;
    const after = readProcessEntry(before.pid);
    if (!isRunning(after) || after.startTime !== before.startTime) continue;
    const { pid, startTime, pgid, sid } = before;
    found.push({ pid, startTime, pgid, sid });
  }
  return found;
}

/**
 * Sends `signal` to `identity.pid` only if that pid still is the process recorded (same start
 * time, not a zombie), read again right before the signal. False when it was not sent.
 */
export function signalIfSameProcess(identity: ProcessIdentity, signal: NodeJS.Signals): boolean {
  const entry = readProcessEntry(identity.pid);
  if (!isRunning(entry) || entry.startTime !== identity.startTime) return false;
  try {
    process.kill(identity.pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends every process marked with `variable=value`: SIGTERM to each, then, while any is left
 * (or a new one appears: a shell forking as it dies), more SIGTERMs until `graceMs`, then
 * SIGKILL rounds until none is left or `settleMs` has passed. Every signal goes to one pid whose
 * identity was checked right before; a process without the marker is never signalled, even
 * when it shares a marked process's group or session, and neither is an excluded one.
 */
export async function sweepMarkedProcesses(options: SweepOptions): Promise<SweepReport> {
  const graceMs = options.graceMs ?? 1_000;
  const settleMs = options.settleMs ?? 2_000;
  const exclude = [...(options.exclude ?? [])];
  exclude.push(...[readProcessEntry(process.pid)].filter(isRunning));
  const found = new Map<string, ProcessIdentity>();
  const scan = (): ProcessIdentity[] => {
    const marked = findMarkedProcesses(options.variable, options.value, exclude);
    for (const identity of marked) {
      const key = `${identity.pid}:${identity.startTime}`;
      if (!found.has(key)) found.set(key, identity);
    }
    return marked;
  };

  const terminated = new Set<string>();
  if (graceMs > 0) {
    const deadline = Date.now() + graceMs;
    for (;;) {
      const marked = scan();
      if (marked.length === 0) break;
      for (const identity of marked) {
        const key = `${identity.pid}:${identity.startTime}`;
        if (terminated.has(key)) continue;
        terminated.add(key);
        signalIfSameProcess(identity, 'SIGTERM');
      }
      if (Date.now() >= deadline) break;
      await sleep(Math.min(POLL_INTERVAL_MS, Math.max(1, deadline - Date.now())));
    }
  }
  const forced = new Set<number>();
  const settleDeadline = Date.now() + settleMs;
  for (;;) {
    const left = scan();
    if (left.length === 0 || Date.now() >= settleDeadline) {
      return {
        found: [...found.values()].map((identity) => identity.pid),
        forced: [...forced],
        survivors: left.map((identity) => identity.pid),
      };
    }
    for (const identity of left) {
      if (signalIfSameProcess(identity, 'SIGKILL')) forced.add(identity.pid);
    }
    await sleep(20);
  }
}
