import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { isProcessAlive } from '@muster/file-lock';

/** Enough about a process to notice later that its pid now belongs to another process. */
export interface ProcessStartIdentity {
  hostname: string;
  /** Linux boot id: pids and start times only mean something within one boot. */
  bootId?: string;
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22), where available. */
  processStartTime?: string;
}

/** Start time of `pid` from `/proc/<pid>/stat`; undefined where /proc is missing. */
export function readProcessStartTime(pid: number): string | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself contain spaces or ')'.
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[19];
}

/** This machine's boot id, where Linux provides one. */
export function readBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The identity of a running process on this machine. */
export function processStartIdentity(pid: number): ProcessStartIdentity {
  const identity: ProcessStartIdentity = { hostname: hostname() };
  const bootId = readBootId();
  if (bootId !== undefined) identity.bootId = bootId;
  const processStartTime = readProcessStartTime(pid);
  if (processStartTime !== undefined) identity.processStartTime = processStartTime;
  return identity;
}

/**
 * True only when the recorded process is certainly gone: recorded on this machine and
 * either in an earlier boot, or its pid is free, or the pid now belongs to a process that
 * started at another time. A process on another machine is never judged gone.
 */
export function isRecordedProcessGone(pid: number, recorded: ProcessStartIdentity): boolean {
  if (recorded.hostname !== hostname()) return false;
  const bootId = readBootId();
  if (recorded.bootId !== undefined && bootId !== undefined && recorded.bootId !== bootId) {
    return true;
  }
  if (!isProcessAlive(pid)) return true;
  if (recorded.processStartTime === undefined) return false;
  const current = readProcessStartTime(pid);
  return current !== undefined && current !== recorded.processStartTime;
}
