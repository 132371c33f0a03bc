import { spawn, type ChildProcess } from 'node:child_process';

export interface ProcessResult {
  /** Exit code, or null when the process was ended by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface StartedProcess {
  child: ChildProcess;
  /** Resolves when the process exits (never rejects). */
  exited: Promise<ProcessResult>;
  /** Resolves with the first stdout line that satisfies the predicate. */
  waitForLine: (predicate: (line: string) => boolean, timeoutMs?: number) => Promise<string>;
}

export interface StartNodeOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Extra arguments for node itself, e.g. ['--import', 'tsx']. */
  nodeArguments?: string[];
}

/** Starts `node script ...args` as a real child process and collects its output. */
export function startNodeProcess(
  script: string,
  args: string[] = [],
  options: StartNodeOptions = {},
): StartedProcess {
  const child = spawn(process.execPath, [...(options.nodeArguments ?? []), script, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const lineListeners = new Set<(line: string) => void>();
  let partial = '';
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    stdout += chunk;
    partial += chunk;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) for (const listener of lineListeners) listener(line);
  });
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<ProcessResult>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.on('error', (error) =>
      resolve({ code: -1, signal: null, stdout, stderr: stderr + String(error) }),
    );
  });
  const waitForLine = (predicate: (line: string) => boolean, timeoutMs = 30_000) =>
    new Promise<string>((resolve, reject) => {
      for (const line of stdout.split('\n')) {
        if (predicate(line)) return resolve(line);
      }
      const timer = setTimeout(() => {
        lineListeners.delete(listener);
        reject(new Error(`no matching line within ${timeoutMs} ms; stderr: ${stderr}`));
      }, timeoutMs);
      const listener = (line: string) => {
        if (!predicate(line)) return;
        clearTimeout(timer);
        lineListeners.delete(listener);
        resolve(line);
      };
      lineListeners.add(listener);
      void exited.then(() => {
        clearTimeout(timer);
        if (lineListeners.delete(listener)) {
          reject(new Error(`process exited before the line appeared; stderr: ${stderr}`));
        }
      });
    });
  return { child, exited, waitForLine };
}

/**
 * Runs `count` copies of a script at once (argument lists from `argumentsFor(index)`) and
 * resolves with every result, in index order. Throws if any exits non-zero, with its stderr.
 */
export async function runNodeProcesses(
  script: string,
  count: number,
  argumentsFor: (index: number) => string[],
  options: StartNodeOptions = {},
): Promise<ProcessResult[]> {
  const started = Array.from({ length: count }, (_, index) =>
    startNodeProcess(script, argumentsFor(index), options),
  );
  const results = await Promise.all(started.map((process) => process.exited));
  const failed = results.findIndex((result) => result.code !== 0);
  if (failed !== -1) {
    const result = results[failed]!;
    throw new Error(
      `process ${failed} of ${count} exited with ${result.code ?? result.signal}: ${result.stderr}`,
    );
  }
  return results;
}
