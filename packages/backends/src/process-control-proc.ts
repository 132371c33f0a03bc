// Reading processes from /proc (Linux): who a pid is (start time, group, session, parent),
// and which processes belong to a group, a session or a process's descendants.
import { readdirSync, readFileSync } from 'node:fs';

/** Who a process is: enough to notice a recycled pid (R16) and to find its group and session. */
export interface ProcessIdentity {
  pid: number;
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22). */
  startTime: string;
  /** Process group id (field 5). */
  pgid: number;
  /** Session id (field 6). */
  sid: number;
}

/** One row of the process table, as read from `/proc/<pid>/stat`. */
export interface ProcessEntry extends ProcessIdentity {
  /** Parent pid (field 4). */
  ppid: number;
  /** One letter: R running, S sleeping, Z zombie, … */
  state: string;
}

/** Parses the text of `/proc/<pid>/stat`; undefined when it is not one. */
export function parseProcessStat(pid: number, text: string): ProcessEntry | undefined {
  // Field 2 (the command) sits in parentheses and may itself hold spaces or ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const ppid = Number(fields[1]);
  const pgid = Number(fields[2]);
  const sid = Number(fields[3]);
  const startTime = fields[19];
  if (
    state === undefined ||
    startTime === undefined ||
    !Number.isInteger(pgid) ||
    !Number.isInteger(sid)
  ) {
    return undefined;
  }
  return { pid, ppid, pgid, sid, startTime, state };
}

/** Reads one process's row; undefined when the pid is free (or /proc is missing). */
export function readProcessEntry(pid: number): ProcessEntry | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return parseProcessStat(pid, text);
}

/** Every process visible in /proc (empty where there is no /proc). Zombies included. */
export function listProcesses(): ProcessEntry[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const entries: ProcessEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readProcessEntry(Number(name));
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}

/** The pids of every descendant of `pid` (children, their children, …) in `processes`. */
export function descendantsOf(pid: number, processes: readonly ProcessEntry[]): number[] {
  const children = new Map<number, number[]>();
  for (const entry of processes) {
    const list = children.get(entry.ppid) ?? [];
    list.push(entry.pid);
    children.set(entry.ppid, list);
  }
  const found: number[] = [];
  const queue = [...(children.get(pid) ?? [])];
  const seen = new Set<number>();
  while (queue.length > 0) {
    const next = queue.shift() as number;
    if (seen.has(next)) continue;
    seen.add(next);
    found.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}
