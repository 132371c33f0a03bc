// Ending what a shell command leaves behind: its process group, and (on Linux) every
// process that still carries the command's marker variable in its environment — which
// catches `setsid`, `nohup … &`, double forks and `disown`, all of which leave the group or
// the parent chain but keep the environment they were started with.
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';

/** The environment variable every Bash command (and what it starts) carries; its value is unique per command. */
export const SHELL_MARKER_VARIABLE = 'MUSTER_SHELL_ID';

const POLL_INTERVAL_MS = 50;

/** Whether any process is still in process group `groupId` (a zombie still counts until reaped). */
export function isProcessGroupAlive(groupId: number): boolean {
  try {
    process.kill(-groupId, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Sends `signal` to every process of group `groupId`; false when the group is already gone. */
export function signalProcessGroup(groupId: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch {
    return false;
  }
}

let scanBuffer = Buffer.alloc(64 * 1024);

/** The whole content of a /proc file (their size reads as 0, so read until the end), or undefined. */
function readProcFile(filePath: string): Buffer | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(filePath, 'r');
  } catch {
    return undefined;
  }
  try {
    let length = 0;
    for (;;) {
      if (length === scanBuffer.length) {
        const bigger = Buffer.alloc(scanBuffer.length * 2);
        scanBuffer.copy(bigger);
        scanBuffer = bigger;
      }
      const read = readSync(descriptor, scanBuffer, length, scanBuffer.length - length, null);
      if (read === 0) return scanBuffer.subarray(0, length);
      length += read;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(descriptor);
  }
}

/**
 * The processes (other than this one) whose environment holds `MUSTER_SHELL_ID=<marker>`.
 * Linux only (reads `/proc/<pid>/environ`, readable for processes of the same user); an empty
 * list elsewhere. A process that cleared its environment (`env -i`) is not found. Synchronous
 * on purpose: one pass over /proc with one reused buffer is several times faster than async
 * reads, and takes a few milliseconds.
 */
export function findMarkedProcesses(marker: string): number[] {
  if (process.platform !== 'linux') return [];
  const needle = Buffer.from(`${SHELL_MARKER_VARIABLE}=${marker}\0`);
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const processId = Number(entry);
    if (processId === process.pid) continue;
    const environment = readProcFile(`/proc/${entry}/environ`);
    if (!environment) continue;
    const at = environment.indexOf(needle);
    // The variable starts the environment or follows the NUL ending the previous one.
    if (at === 0 || (at > 0 && environment[at - 1] === 0)) found.push(processId);
  }
  return found;
}

function signalProcesses(processIds: readonly number[], signal: NodeJS.Signals): void {
  for (const processId of processIds) {
    try {
      process.kill(processId, signal);
    } catch {
      // Already gone.
    }
  }
}

const sleep = (milliseconds: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

/** What {@link endLeftovers} found and did. */
export interface LeftoverReport {
  /** Processes found outside the group through the marker (their count, before signalling). */
  markedProcesses: number;
  /** Whether the process group still had members when cleaning started. */
  groupWasAlive: boolean;
  /** Whether SIGKILL was needed (something survived SIGTERM for the whole grace period). */
  forced: boolean;
}

/**
 * Ends process group `groupId` and every process carrying `marker`: SIGTERM, then SIGKILL
 * to whatever is left after `graceMs`. Resolves once nothing is left (or right after the
 * SIGKILL, which cannot be refused).
 */
export async function endLeftovers(
  groupId: number,
  marker: string,
  graceMs: number,
): Promise<LeftoverReport> {
  const groupWasAlive = signalProcessGroup(groupId, 'SIGTERM');
  const firstMarked = findMarkedProcesses(marker);
  signalProcesses(firstMarked, 'SIGTERM');
  const report: LeftoverReport = {
    markedProcesses: firstMarked.length,
    groupWasAlive,
    forced: false,
  };
  if (!groupWasAlive && firstMarked.length === 0) return report;
  const deadline = Date.now() + graceMs;
  for (;;) {
    const marked = findMarkedProcesses(marker);
    const groupAlive = isProcessGroupAlive(groupId);
    if (!groupAlive && marked.length === 0) return report;
    if (Date.now() >= deadline) {
      report.forced = true;
      signalProcessGroup(groupId, 'SIGKILL');
      signalProcesses(marked, 'SIGKILL');
      // A process may have forked between the scan and the kill: one more pass.
      await sleep(POLL_INTERVAL_MS);
      signalProcessGroup(groupId, 'SIGKILL');
      signalProcesses(findMarkedProcesses(marker), 'SIGKILL');
      return report;
    }
    // New processes forked meanwhile get the TERM too.
    signalProcesses(marked, 'SIGTERM');
    await sleep(POLL_INTERVAL_MS);
  }
}
