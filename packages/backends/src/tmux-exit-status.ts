// Why a dead pane can show no exit status, and how muster gets it back.
//
// tmux before 3.5, built with libutempter (Debian's and Ubuntu's are), can lose the SIGCHLD of a
// pane's process: when the pane's terminal closes, tmux removes its utmp record through
// libutempter, which runs a helper under a SIGCHLD handler of its own; a pane process that exits
// during that window has its SIGCHLD taken by that handler. tmux then has closed the pane
// (`#{pane_dead}` 1) but never calls waitpid for it, so `#{pane_dead_status}` and
// `#{pane_dead_signal}` stay empty for good and the process stays a zombie child of the server.
// Measured here with plain tmux 3.3a commands: 7 of 30 panes (placeholder + respawn-pane) and 8 of
// 30 (split with the command directly, `remain-on-exit` set globally first) — the launch protocol
// does not matter. A SIGCHLD sent to the server makes it run its waitpid loop again: it reaps the
// zombie and records the real status (30 of 30 recovered).
import { readProcessEntry } from './process-control-proc.js';

/** The parts of a pane identity needed to recognise its unreaped process. */
export interface PaneProcessRecord {
  /** The tmux server's pid (the pane process's parent). */
  serverPid: number;
  /** The pane's process. */
  panePid: number;
  /** Its start time (clock ticks since boot), where known. */
  paneStartTime?: string;
}

/**
 * True when the pane's process has ended but its tmux server has not reaped it: a zombie whose
 * parent is the recorded server and whose start time is the recorded one.
 */
export function isUnreapedPaneProcess(record: PaneProcessRecord): boolean {
  const entry = readProcessEntry(record.panePid);
  if (entry === undefined || entry.state !== 'Z') return false;
  if (entry.ppid !== record.serverPid) return false;
  return record.paneStartTime === undefined || entry.startTime === record.paneStartTime;
}

/**
 * When tmux lost the SIGCHLD of the pane's process (see the top of this file), sends the server
 * a SIGCHLD so that it reaps the process and records its exit status. Sends nothing otherwise.
 * SIGCHLD only makes tmux collect its ended children; it ends nothing. Returns true when sent.
 */
export function recoverLostExitStatus(record: PaneProcessRecord): boolean {
  if (!isUnreapedPaneProcess(record)) return false;
  try {
    process.kill(record.serverPid, 'SIGCHLD');
    return true;
  } catch {
    return false;
  }
}
