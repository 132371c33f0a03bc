// One shell command as a process: `/bin/bash -c <command>` in its own process group, stdout
// and stderr on ONE file descriptor (so they interleave in the order they were written),
// a timeout, an abort signal and an output-size limit that end the whole group, and the
// leftovers (`cmd &`, `setsid`, `nohup`) ended when the shell exits.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, ftruncateSync, openSync } from 'node:fs';
import { ToolError } from '@muster/query';
import { endLeftovers, SHELL_MARKER_VARIABLE, signalProcessGroup } from './bash-tool-leftovers.js';

/** Why a shell run ended. */
export type ShellEnd = 'exited' | 'timed-out' | 'aborted' | 'killed' | 'output-limit';

/** How a shell run ended. */
export interface ShellOutcome {
  /** Why it ended. */
  end: ShellEnd;
  /** The shell's exit code (null when a signal ended it). */
  exitCode: number | null;
  /** The signal that ended the shell, if any. */
  signal: NodeJS.Signals | null;
  /** Processes the command left running after its shell exited, ended by muster (0 when none). */
  leftoversEnded: number;
  /** Whether something survived SIGTERM and had to be killed with SIGKILL. */
  forced: boolean;
  /** Milliseconds from start to the end of clean-up. */
  durationMs: number;
}

/** What {@link startShell} needs. */
export interface ShellStartOptions {
  /** The command line, given to `/bin/bash -c`. */
  command: string;
  /** Working directory (absolute). */
  cwd: string;
  /** The complete environment of the command (nothing from `process.env` is added). */
  environment: Readonly<Record<string, string>>;
  /** The file stdout and stderr go to; created here (must not exist), mode 0o600, never through a symbolic link. */
  outputPath: string;
  /** End the group after this many milliseconds (none when undefined). */
  timeoutMs?: number;
  /** End the group when this signal aborts. */
  signal?: AbortSignal;
  /** Milliseconds between SIGTERM and SIGKILL. */
  killGraceMs: number;
  /** The output file's size limit in bytes. */
  maxOutputBytes: number;
  /**
   * What passing `maxOutputBytes` does: `end` the group (foreground calls), or `discard` the
   * output so far and keep running (background shells: a server's log must not end it). The
   * file is opened with O_APPEND, so the command keeps writing at the new end.
   */
  onOutputLimit?: 'end' | 'discard';
}

/** A started shell. */
export interface ShellRun {
  /** The shell's process id, which is also its process group id. */
  readonly processId: number;
  /** The unique value of `MUSTER_SHELL_ID` in the command's environment. */
  readonly marker: string;
  /** Bytes of output discarded so far (`onOutputLimit: 'discard'`). */
  discardedBytes(): number;
  /** Resolves when the shell has exited and its leftovers are gone. Never rejects. */
  readonly outcome: Promise<ShellOutcome>;
  /** Ends the group now (SIGTERM, SIGKILL after the grace period) and resolves with the outcome. */
  stop(): Promise<ShellOutcome>;
}

const OUTPUT_CHECK_INTERVAL_MS = 250;
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** If the host process exits without closing its agents, kill the groups still running (best effort, synchronous). */
function trackGroup(groupId: number): void {
  liveGroups.add(groupId);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const group of liveGroups) signalProcessGroup(group, 'SIGKILL');
  });
}

/** Opens (creates) the output file without following a symbolic link; fails if it exists. */
function createOutputFile(outputPath: string): number {
  try {
    return openSync(
      outputPath,
      constants.O_WRONLY |
        constants.O_CREAT |
        constants.O_EXCL |
        constants.O_APPEND |
        constants.O_NOFOLLOW,
      0o600,
    );
  } catch (error) {
    throw new ToolError(
      `Bash could not create its output file ${outputPath}: ${(error as Error).message}. ` +
        'Check that the temporary directory exists and is writable.',
      'BASH_OUTPUT_FILE',
    );
  }
}

/** Starts `command`; the returned run ends by itself, on timeout, on abort, or through `stop()`. */
export function startShell(options: ShellStartOptions): ShellRun {
  const startedAt = Date.now();
  const marker = randomBytes(12).toString('hex');
  const outputFd = createOutputFile(options.outputPath);
  let child;
  try {
    child = spawn('/bin/bash', ['-c', options.command], {
      cwd: options.cwd,
      env: { ...options.environment, [SHELL_MARKER_VARIABLE]: marker },
      detached: true,
      stdio: ['ignore', outputFd, outputFd],
    });
  } catch (error) {
    closeSync(outputFd);
    throw new ToolError(
      `Bash could not start /bin/bash: ${(error as Error).message}.`,
      'BASH_SPAWN_FAILED',
    );
  }
  const processId = child.pid;
  if (processId === undefined) {
    // The failure is also emitted as 'error'; it is reported here instead.
    child.once('error', () => undefined);
    closeSync(outputFd);
    throw new ToolError(
      'Bash could not start /bin/bash (no process id: is /bin/bash installed and executable?).',
      'BASH_SPAWN_FAILED',
    );
  }
  trackGroup(processId);

  let end: ShellEnd | undefined;
  let stopping: Promise<unknown> | undefined;
  const requestEnd = (reason: ShellEnd) => {
    end ??= reason;
    // An interrupted turn means "stop now": no grace period, SIGKILL right after SIGTERM.
    stopping ??= endLeftovers(processId, marker, reason === 'aborted' ? 0 : options.killGraceMs);
  };

  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => requestEnd('timed-out'), options.timeoutMs);
  let discarded = 0;
  const sizeWatch = setInterval(() => {
    try {
      const size = fstatSync(outputFd).size;
      if (size <= options.maxOutputBytes) return;
      if (options.onOutputLimit !== 'discard') return requestEnd('output-limit');
      ftruncateSync(outputFd, 0);
      discarded += size;
    } catch {
      // The descriptor is closed once the shell exits.
    }
  }, OUTPUT_CHECK_INTERVAL_MS);
  sizeWatch.unref();
  const onAbort = () => requestEnd('aborted');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();

  const outcome = new Promise<ShellOutcome>((resolve) => {
    let settled = false;
    const finish = async (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      clearInterval(sizeWatch);
      options.signal?.removeEventListener('abort', onAbort);
      try {
        closeSync(outputFd);
      } catch {
        // Already closed.
      }
      await stopping;
      // The shell is gone; whatever is still in its group or carries its marker is a leftover.
      const report = await endLeftovers(processId, marker, options.killGraceMs);
      liveGroups.delete(processId);
      resolve({
        end: end ?? 'exited',
        exitCode,
        signal,
        // Without /proc (not Linux) only the group is known: count it as one.
        leftoversEnded: Math.max(report.markedProcesses, report.groupWasAlive ? 1 : 0),
        forced: report.forced,
        durationMs: Date.now() - startedAt,
      });
    };
    child.once('exit', (code, signal) => void finish(code, signal));
    child.once('error', () => void finish(null, null));
  });

  return {
    processId,
    marker,
    outcome,
    discardedBytes: () => discarded,
    stop() {
      requestEnd('killed');
      return outcome;
    },
  };
}
