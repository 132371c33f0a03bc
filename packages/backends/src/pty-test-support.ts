// Helpers for the pty tests (not exported by the package): read processes and their file
// descriptors from /proc, and poll a condition up to a generous bound (never a timing assertion).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

function readStat(
  pid: number,
): { command: string; state: string; ppid: number; pgid: number; sid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return {
      command: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')),
      state: fields[0] ?? '',
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
      sid: Number(fields[3]),
    };
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a running process (a zombie counts as gone). */
export function isProcessAlive(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

/** `pid` as a failing test should show it: command, state, parent, group and session. */
export function describeProcess(pid: number): string {
  const stat = readStat(pid);
  if (stat === undefined) return `${pid} (gone)`;
  return `${pid} ${stat.command} state ${stat.state} parent ${stat.ppid} group ${stat.pgid} session ${stat.sid}`;
}

/** The process group of `pid` (undefined once it is gone). */
export function processGroupOf(pid: number): number | undefined {
  return readStat(pid)?.pgid;
}

/** Every live process whose parent is `parentPid`. */
export function childrenOf(parentPid: number): number[] {
  return livePids().filter((pid) => readStat(pid)?.ppid === parentPid);
}

function livePids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => isProcessAlive(pid));
}

/** Every live process whose session id is `sessionId`. */
export function sessionMembers(sessionId: number): number[] {
  const result: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = readStat(pid);
    if (stat !== undefined && stat.sid === sessionId && stat.state !== 'Z') result.push(pid);
  }
  return result;
}

/** How many of `pid`'s open file descriptors are `/dev/ptmx` (PTY masters). */
export function ptyMasterDescriptors(pid: number): number {
  let count = 0;
  for (const descriptor of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${descriptor}`) === '/dev/ptmx') count += 1;
    } catch {
      // Closed while we looked.
    }
  }
  return count;
}

/** Polls `condition` every 25 ms until it holds; throws after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
