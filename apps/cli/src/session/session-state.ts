import type { TeamConfig } from '@muster/protocol';
import { readFileSync, readlinkSync } from 'node:fs';

/** Whether a Claude Code 2.1.330 session team's lead is still running, with the reason. */
export interface SessionState {
  state: 'running' | 'ended' | 'unknown';
  reason: string;
}

/**
 * True for a team in the 2.1.330 dialect: a Claude Code session team (it records its lead's
 * process in `leadProcess`) or a muster team marked `protocolVersion: 2`.
 */
export function isSessionTeam(config: TeamConfig): boolean {
  const leadProcess = (config as { leadProcess?: unknown }).leadProcess;
  return typeof leadProcess === 'object' && leadProcess !== null;
}

/** The session state of a team that records `leadProcess`; undefined for other teams. */
export function sessionStateOf(config: TeamConfig): SessionState | undefined {
  if (!isSessionTeam(config)) return undefined;
  return leadProcessState(
    (config as unknown as { leadProcess: Record<string, unknown> }).leadProcess,
  );
}

/** The kernel's start time of a process (field 22 of /proc/<pid>/stat), if it can be read. */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** This machine's pid namespace as `pid:[<inode>]`, if it can be read. */
function ownPidSpace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

/**
 * Decides from `leadProcess {pid, pidSpace, procStart}` whether the lead still runs: ended
 * when no process has that pid, or one with another start time (the pid was reused);
 * unknown when the lead ran in another pid namespace (a container, another machine).
 */
function leadProcessState(leadProcess: Record<string, unknown>): SessionState {
  const { pid, pidSpace, procStart } = leadProcess;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) {
    return { state: 'unknown', reason: 'leadProcess has no usable pid' };
  }
  const space = ownPidSpace();
  if (typeof pidSpace === 'string' && space !== undefined && !pidSpace.endsWith(space)) {
    return {
      state: 'unknown',
      reason: `the lead ran in another pid namespace (${pidSpace}, this one is ${space})`,
    };
  }
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') {
      return { state: 'ended', reason: `its lead process ${pid} is no longer running` };
    }
  }
  const started = processStartTime(pid);
  if (typeof procStart === 'string' && started !== undefined && started !== procStart) {
    return {
      state: 'ended',
      reason: `its lead process ${pid} is gone (that pid now belongs to a process started later)`,
    };
  }
  return { state: 'running', reason: `its lead process ${pid} is running` };
}

const SESSION_FOLDER = /^session-[0-9a-f]{8}$/;
const UUID_FOLDER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * True for a task folder Claude Code 2.1.330 keeps on purpose after its session: a session
 * team's (`session-<8 hex>`, kept at `/exit`) or a `-p` session's (`<session uuid>`).
 */
export function isSessionTaskFolder(name: string): boolean {
  return SESSION_FOLDER.test(name) || UUID_FOLDER.test(name);
}
