import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** Who a process is, precisely enough to notice a recycled pid. */
export interface ProcessIdentity {
  pid: number;
  hostname: string;
  /** Linux boot id; pids and start times only mean something within one boot. */
  bootId?: string;
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22), where available. */
  startTime?: string;
  /** The pid namespace (`/proc/self/ns/pid`), so containers sharing a folder never judge
   * each other's pids. */
  pidNamespace?: string;
}

/** State (field 3) and start time (field 22) of a process, from `/proc/<pid>/stat`. */
export interface ProcessStat {
  /** One letter: R running, S sleeping, T stopped, Z zombie, … */
  state: string;
  /** Start time in clock ticks since boot, as the kernel writes it. */
  startTime: string;
}

/** Reads state and start time from `/proc/<pid>/stat`; undefined where /proc is missing. */
export function readProcessStat(pid: number): ProcessStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) sits in parentheses and may itself contain spaces or ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTime = fields[19];
  if (state === undefined || startTime === undefined) return undefined;
  return { state, startTime };
}

let cachedBootId: string | undefined | null = null;

function readBootId(): string | undefined {
  if (cachedBootId === null) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
    } catch {
      cachedBootId = undefined;
    }
  }
  return cachedBootId;
}

function readPidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

let cachedSelf: ProcessIdentity | undefined;

/** This process's identity (computed once; each call returns a fresh copy). */
export function currentProcessIdentity(): ProcessIdentity {
  if (cachedSelf === undefined || cachedSelf.pid !== process.pid) {
    const identity: ProcessIdentity = { pid: process.pid, hostname: hostname() };
    const bootId = readBootId();
    if (bootId !== undefined) identity.bootId = bootId;
    const startTime = readProcessStat(process.pid)?.startTime;
    if (startTime !== undefined) identity.startTime = startTime;
    const pidNamespace = readPidNamespace();
    if (pidNamespace !== undefined) identity.pidNamespace = pidNamespace;
    cachedSelf = identity;
  }
  return { ...cachedSelf };
}

/**
 * True when a process with this pid exists on this machine and is not a zombie.
 * A process owned by another user counts as alive (`EPERM`).
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const state = readProcessStat(pid)?.state;
  return state !== 'Z' && state !== 'X';
}

/**
 * True when the recorded process runs (or ran) where this process can judge it: same host,
 * boot and pid namespace. Only then can its liveness be checked with `kill(pid, 0)`.
 */
export function isRecordedProcessHere(recorded: ProcessIdentity): boolean {
  const self = currentProcessIdentity();
  return (
    recorded.hostname === self.hostname &&
    recorded.bootId === self.bootId &&
    recorded.pidNamespace === self.pidNamespace
  );
}

/** True when the process is stopped (`T`: SIGSTOP, or `t`: a debugger), from /proc. */
export function isProcessStopped(pid: number): boolean {
  const state = readProcessStat(pid)?.state;
  return state === 'T' || state === 't';
}

/**
 * True only when we can be sure the recorded process is gone: same machine, boot and pid
 * namespace, and the pid is free, a zombie, or now belongs to a process that started at
 * another time. Anything we cannot see (another machine, container or boot) is never
 * judged dead; such locks are left to the mtime stale rule.
 */
export function isRecordedProcessDead(recorded: ProcessIdentity): boolean {
  const self = currentProcessIdentity();
  if (recorded.hostname !== self.hostname) return false;
  if (recorded.bootId !== self.bootId || recorded.pidNamespace !== self.pidNamespace) {
    return false;
  }
  if (!isProcessAlive(recorded.pid)) return true;
  if (recorded.startTime === undefined) return false;
  const current = readProcessStat(recorded.pid)?.startTime;
  return current !== undefined && current !== recorded.startTime;
}
