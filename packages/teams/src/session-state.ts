import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { z } from 'zod';
import { readProcessStat } from '@muster/file-lock';

/** Whether the Claude Code session that owns a session team still runs. */
export type TeamSessionStateName = 'running' | 'ended' | 'unknown';

/** What {@link teamSessionState} concluded, and why, in a sentence a user can read. */
export interface TeamSessionState {
  /**
   * `running`: the recorded lead process is alive here and started when the record says.
   * `ended`: it certainly is not (its pid is free, belongs to a later process, is a zombie,
   * or the team was claimed before this system booted). `unknown`: this process cannot tell
   * (no `leadProcess`, a malformed one, another pid namespace, or an unreadable /proc).
   */
  state: TeamSessionStateName;
  /** Why, naming the pid, namespace or field involved. */
  reason: string;
  /** The recorded lead pid, when the record has a usable one. */
  pid?: number;
}

/** Claude Code 2.1.330's `leadProcess` record, as far as this check relies on it. */
const LeadProcessRecordSchema = z.looseObject({
  pid: z
    .number()
    .int()
    .positive()
    .max(2 ** 22),
  pidSpace: z.string().min(1),
  claimedAt: z.number().int().nonnegative(),
  procStart: z.string().regex(/^[0-9]+$/),
});

/** Session team folders: `session-` and the first 8 hex digits of the session id. */
const SESSION_TEAM_NAME = /^session-[0-9a-f]{8}$/;

/** How far before the boot time a claim must lie to prove an earlier boot (clock slack). */
const BOOT_SLACK_MS = 60_000;

/**
 * True for the name Claude Code 2.1.330 gives the one team of an interactive session,
 * `session-<8 lowercase hex digits>` (e.g. `session-c29861cf`).
 */
export function isSessionTeamName(name: string): boolean {
  return typeof name === 'string' && SESSION_TEAM_NAME.test(name);
}

/**
 * This process's pid namespace written the way Claude Code 2.1.330 writes `pidSpace`:
 * `<hostname>#<link text of /proc/self/ns/pid>` (e.g. `vm#pid:[4026531836]`). `undefined`
 * where /proc is not available. The initial pid namespace has the same number on every
 * Linux system, so only the hostname tells two such machines apart.
 */
export function currentPidSpace(): string | undefined {
  try {
    return `${hostname()}#${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return undefined;
  }
}

/**
 * Decides from a team config's `leadProcess {pid, pidSpace, claimedAt, procStart}` whether
 * the Claude Code session that owns the team still runs. `running` needs all of: the record
 * is from our pid namespace (same `pidSpace`), the pid is alive, and its start time in
 * `/proc/<pid>/stat` (field 22) equals `procStart`. `ended` needs proof (free pid, another
 * start time, a zombie, or a claim older than this boot). Anything else is `unknown` with the
 * reason: this never guesses. Reads /proc only; never writes.
 */
export function teamSessionState(config: unknown): TeamSessionState {
  const record =
    config !== null && typeof config === 'object'
      ? (config as { leadProcess?: unknown }).leadProcess
      : undefined;
  if (record === undefined) {
    return {
      state: 'unknown',
      reason:
        'The config records no leadProcess: only Claude Code 2.1.330 session teams name the ' +
        'process that owns them (muster teams and 2.1.45 teams do not).',
    };
  }
  const parsed = LeadProcessRecordSchema.safeParse(record);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(the record)'}: ${issue.message}`)
      .join('; ');
    return {
      state: 'unknown',
      reason: `The config's leadProcess is malformed (${problems}), so its process cannot be checked.`,
    };
  }
  const { pid, pidSpace, claimedAt, procStart } = parsed.data;
  const ours = currentPidSpace();
  if (ours === undefined) {
    return {
      state: 'unknown',
      pid,
      reason: `Cannot read /proc/self/ns/pid here, so pid ${pid} (recorded in ${pidSpace}) cannot be checked.`,
    };
  }
  if (pidSpace !== ours) {
    return {
      state: 'unknown',
      pid,
      reason:
        `The lead process was recorded in pid namespace ${pidSpace}, and this process runs in ` +
        `${ours}: pid ${pid} cannot be checked from here (another machine or container).`,
    };
  }
  const bootedAt = readBootTime();
  if (bootedAt !== undefined && claimedAt < bootedAt - BOOT_SLACK_MS) {
    return {
      state: 'ended',
      pid,
      reason:
        `The lead (pid ${pid}) claimed the team at ${new Date(claimedAt).toISOString()}, before ` +
        `this system booted at ${new Date(bootedAt).toISOString()}: that process is gone.`,
    };
  }
  return judgeLiveProcess(pid, procStart);
}

function judgeLiveProcess(pid: number, procStart: string): TeamSessionState {
  const presence = processPresence(pid);
  if (presence === 'absent') {
    return { state: 'ended', pid, reason: `No process with pid ${pid} runs: the lead has exited.` };
  }
  if (presence !== 'present') {
    return {
      state: 'unknown',
      pid,
      reason: `Cannot tell whether pid ${pid} runs: signalling it failed with ${presence}.`,
    };
  }
  const stat = readProcessStat(pid);
  if (stat === undefined) {
    // It may have exited between the two looks; only a second "absent" proves it.
    if (processPresence(pid) === 'absent') {
      return {
        state: 'ended',
        pid,
        reason: `No process with pid ${pid} runs: the lead has exited.`,
      };
    }
    return {
      state: 'unknown',
      pid,
      reason: `Pid ${pid} exists but /proc/${pid}/stat cannot be read (hidden /proc?), so its start time cannot be compared.`,
    };
  }
  if (stat.startTime !== procStart) {
    return {
      state: 'ended',
      pid,
      reason:
        `Pid ${pid} now belongs to another process (started at tick ${stat.startTime}; the ` +
        `lead started at tick ${procStart}): the lead has exited.`,
    };
  }
  if (stat.state === 'Z' || stat.state === 'X') {
    return {
      state: 'ended',
      pid,
      reason: `The lead (pid ${pid}) has exited and is waiting to be reaped by its parent.`,
    };
  }
  return {
    state: 'running',
    pid,
    reason: `The lead process (pid ${pid}, started at tick ${procStart}) is running.`,
  };
}

/** `present`, `absent`, or the error code that left it open. */
function processPresence(pid: number): 'present' | 'absent' | string {
  try {
    process.kill(pid, 0);
    return 'present';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    if (code === 'ESRCH') return 'absent';
    // EPERM: the process exists and belongs to someone else.
    return code === 'EPERM' ? 'present' : code;
  }
}

/** When this system booted (epoch ms, from `btime` in /proc/stat); undefined without /proc. */
function readBootTime(): number | undefined {
  try {
    const match = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    return match === null ? undefined : Number(match[1]) * 1000;
  } catch {
    return undefined;
  }
}
