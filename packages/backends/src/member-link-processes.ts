// The processes a member is responsible for, and ending them: its descendants, plus its process
// group and its session when it leads them (a pane's or PTY's process leads both). Every pid is
// re-checked by start time before a signal, so a recycled pid is never touched.
import { execFileSync } from 'node:child_process';
import {
  descendantsOf,
  listProcesses,
  readProcessEntry,
  type ProcessEntry,
} from './process-control-proc.js';

/** The processes this process is responsible for (never itself). */
export function ownedProcesses(): ProcessEntry[] {
  const self = readProcessEntry(process.pid);
  const processes = listProcesses();
  const descendants = new Set(descendantsOf(process.pid, processes));
  return processes.filter(
    (entry) =>
      entry.pid !== process.pid &&
      entry.state !== 'Z' &&
      (descendants.has(entry.pid) ||
        (self?.pgid === process.pid && entry.pgid === process.pid) ||
        (self?.sid === process.pid && entry.sid === process.pid)),
  );
}

function stillThere(entry: ProcessEntry): boolean {
  const current = readProcessEntry(entry.pid);
  return current !== undefined && current.state !== 'Z' && current.startTime === entry.startTime;
}

function signalAll(entries: readonly ProcessEntry[], signal: NodeJS.Signals): void {
  for (const entry of entries) {
    if (!stillThere(entry)) continue;
    try {
      process.kill(entry.pid, signal);
    } catch {
      // Gone in between.
    }
  }
}

/** SIGKILL to every owned process, at once (sync: usable in 'exit'). */
export function killOwnedProcessesNow(): void {
  signalAll(ownedProcesses(), 'SIGKILL');
}

/** SIGTERM to every owned process, up to `graceMs` for them to end, then SIGKILL to what is left. */
export async function endOwnedProcesses(graceMs: number): Promise<void> {
  const owned = ownedProcesses();
  if (owned.length === 0) return;
  signalAll(owned, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && owned.some(stillThere)) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  signalAll(owned, 'SIGKILL');
  killOwnedProcessesNow();
}

/**
 * When this process is the process of a tmux pane (`TMUX_PANE` names a pane whose `pane_pid`
 * is this pid, checked first: a pane id merely inherited from a lead that runs inside tmux is
 * never touched), closes that pane, so a pane kept on exit does not keep a private tmux server
 * alive after its lead is gone. Returns whether it closed it.
 */
export function closeOwnTmuxPane(): boolean {
  const pane = process.env.TMUX_PANE;
  const socket = process.env.TMUX?.split(',')[0];
  if (pane === undefined || socket === undefined || !/^%\d+$/.test(pane) || socket.length === 0)
    return false;
  const run = (args: string[]): string | undefined => {
    try {
      return execFileSync('tmux', ['-S', socket, ...args], {
        encoding: 'utf8',
        timeout: 2_000,
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    } catch {
      return undefined;
    }
  };
  if (run(['display-message', '-p', '-t', pane, '#{pane_pid}']) !== String(process.pid))
    return false;
  return run(['kill-pane', '-t', pane]) !== undefined;
}
