import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { WorktreeError } from './worktree-error.js';

/** What a finished child process produced. */
export interface ProcessOutcome {
  /** Exit code; null when the process was ended by a signal (for example on timeout). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** True when the process was killed because it ran past its time limit. */
  timedOut: boolean;
}

/** How to run one child process. */
export interface RunProcessOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Written to the child's standard input, which is then closed. */
  input?: string;
}

/**
 * Runs `executable` with an argument list (never through a shell), collects its output
 * and kills it with SIGKILL when it runs past `timeoutMs`. Resolves for any exit code;
 * rejects only when the process cannot be started: `PATH_NOT_FOUND` when `cwd` is not a
 * folder, and an error with `code: 'ENOENT'` when the executable is not on PATH.
 */
export function runProcess(
  executable: string,
  args: readonly string[],
  options: RunProcessOptions,
): Promise<ProcessOutcome> {
  if (!isDirectory(options.cwd)) {
    return Promise.reject(
      new WorktreeError({
        code: 'PATH_NOT_FOUND',
        message: `Cannot run ${executable} in ${options.cwd}: that folder does not exist. Check the path you passed.`,
        details: { path: options.cwd },
      }),
    );
  }
  return new Promise((resolve, reject) => {
    const child = spawn(executable, [...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      shell: false,
    });
    const stdoutChunks: Buffer[] = [];
    const stderrChunks: Buffer[] = [];
    let timedOut = false;
    let settled = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => stdoutChunks.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderrChunks.push(chunk));
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (exitCode) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        exitCode,
        stdout: Buffer.concat(stdoutChunks).toString('utf8'),
        stderr: Buffer.concat(stderrChunks).toString('utf8'),
        timedOut,
      });
    });
    if (options.input !== undefined && child.stdin) {
      // A child that exits without reading its input makes the write fail with EPIPE;
      // the exit code is what matters, so that error is not the caller's concern.
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }
  });
}

function isDirectory(folder: string): boolean {
  try {
    return statSync(folder).isDirectory();
  } catch {
    return false;
  }
}
