// Running one hook command: `/bin/sh -c <command>` in its own process group, the JSON payload
// on stdin, stdout and stderr collected, and the whole group killed on timeout, on abort, and
// once the shell itself has exited (nothing a hook starts outlives it). A process that left
// the group (`setsid`) may still hold the output pipes: the run settles a short grace after
// the exit, timeout or abort anyway, and stops reading them.
import { spawn } from 'node:child_process';
import type { HookCommand } from './hooks-settings.js';

/** The most of each output stream kept (1 MiB); the rest is dropped and marked. */
export const MAXIMUM_HOOK_OUTPUT_BYTES = 1024 * 1024;

/**
 * How long (ms) the output pipes are still read after the shell exited, timed out or was
 * aborted; past it they are destroyed and the run settles, even when a process that left the
 * hook's group (`setsid`) still holds them open.
 */
export const HOOK_OUTPUT_GRACE_MILLISECONDS = 250;

/** Options of {@link runHookCommand}. */
export interface RunHookCommandOptions {
  /** The directory the command starts in. */
  cwd: string;
  /** Its environment (already without credentials). */
  environment: Record<string, string>;
  /** Ends the command (its whole process group) when aborted. */
  signal?: AbortSignal;
}

/** What one hook command did. */
export interface HookCommandResult {
  /** The command. */
  command: string;
  /** The settings file it came from. */
  source: string;
  /** `continue` (exit 0), `block` (exit 2) or `error` (anything else, a timeout, an abort). */
  outcome: 'continue' | 'block' | 'error';
  /** The exit code, or null when it ended by a signal or did not start. */
  exitCode: number | null;
  /** True when it ran past its timeout and its process group was killed. */
  timedOut: boolean;
  /** True when the caller's signal ended it. */
  aborted: boolean;
  /** Its standard output. */
  stdout: string;
  /** Its standard error (or why it could not start). */
  stderr: string;
}

/** Runs `hook` with `input` (JSON) on its standard input. Never rejects. */
export function runHookCommand(
  hook: HookCommand,
  input: string,
  options: RunHookCommandOptions,
): Promise<HookCommandResult> {
  return new Promise((resolve) => {
    const result: HookCommandResult = {
      command: hook.command,
      source: hook.source,
      outcome: 'error',
      exitCode: null,
      timedOut: false,
      aborted: false,
      stdout: '',
      stderr: '',
    };
    if (options.signal?.aborted === true) {
      resolve({ ...result, aborted: true, stderr: 'not started: the run was aborted' });
      return;
    }
    const child = spawn('/bin/sh', ['-c', hook.command], {
      cwd: options.cwd,
      env: options.environment,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout = collect(child.stdout);
    const stderr = collect(child.stderr);
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    let grace: NodeJS.Timeout | undefined;
    // Exit, timeout and abort each end the wait for the pipes after the grace.
    const settleSoon = () => {
      grace ??= setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        settle();
      }, HOOK_OUTPUT_GRACE_MILLISECONDS);
    };
    const timer = setTimeout(() => {
      result.timedOut = true;
      killGroup();
      settleSoon();
    }, hook.timeoutSeconds * 1000);
    const onAbort = () => {
      result.aborted = true;
      killGroup();
      settleSoon();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdin.on('error', () => {
      // EPIPE: the command did not read its input; that is its choice.
    });
    child.stdin.end(input);
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    child.on('error', (error) => {
      result.stderr = `could not start /bin/sh for the hook in ${options.cwd}: ${error.message}`;
      if (child.pid === undefined) finish();
    });
    child.on('exit', (code) => {
      result.exitCode = code;
      // Anything the hook left running in its group ends with it, so its pipes close.
      killGroup();
      settleSoon();
    });
    const settle = () => {
      if (settled) return;
      result.stdout = stdout.text();
      result.stderr = result.stderr === '' ? stderr.text() : result.stderr;
      if (!result.timedOut && !result.aborted) {
        result.outcome =
          result.exitCode === 0 ? 'continue' : result.exitCode === 2 ? 'block' : 'error';
      }
      finish();
    };
    child.on('close', settle);
  });
}

function collect(stream: NodeJS.ReadableStream): { text(): string } {
  const chunks: Buffer[] = [];
  let length = 0;
  let dropped = 0;
  stream.on('data', (chunk: Buffer) => {
    const room = MAXIMUM_HOOK_OUTPUT_BYTES - length;
    if (room <= 0) {
      dropped += chunk.length;
      return;
    }
    const kept = chunk.subarray(0, room);
    chunks.push(kept);
    length += kept.length;
    dropped += chunk.length - kept.length;
  });
  return {
    text: () =>
      Buffer.concat(chunks).toString('utf8') +
      (dropped > 0 ? `\n[${dropped} more bytes dropped]` : ''),
  };
}
