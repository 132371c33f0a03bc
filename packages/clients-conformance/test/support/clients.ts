// Paths and process helpers for driving the Python and Go clients from vitest.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeCodeReferenceDirectory } from '@muster/test-utils';

/** The repository root. */
export const repositoryRoot = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../..',
);
/** `clients/python` (run `python3 -m muster_client` here). */
export const pythonClientDirectory = path.join(repositoryRoot, 'clients/python');
/** `clients/go` (the Go module). */
export const goClientDirectory = path.join(repositoryRoot, 'clients/go');
/** This package's `.mjs` child-process scripts. */
export const fixturesDirectory = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fixtures',
);

/** The Claude Code 2.1.45 reference files kept in the repository (`fixtures/…`). */
export function referenceDirectory(): string {
  return claudeCodeReferenceDirectory();
}

/** What a finished process left behind. */
export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running child process with its output so far. */
export interface Running {
  child: ChildProcess;
  exited: Promise<Finished>;
  /** Resolves with the first stdout line that satisfies the predicate. */
  waitForLine: (predicate: (line: string) => boolean, timeoutMs?: number) => Promise<string>;
}

/** Starts a child process and collects its output. */
export function startProcess(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): Running {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const listener of listeners) listener();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<Finished>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.on('error', (error) =>
      resolve({ code: -1, signal: null, stdout, stderr: `${stderr}${String(error)}` }),
    );
  });
  const waitForLine = (predicate: (line: string) => boolean, timeoutMs = 30_000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const line = stdout.split('\n').find((candidate) => predicate(candidate));
        if (line === undefined) return false;
        cleanup();
        resolve(line);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(`no matching line from ${command} within ${timeoutMs} ms; stderr: ${stderr}`),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        listeners.delete(listener);
      };
      const listener = () => void check();
      if (check()) return;
      listeners.add(listener);
      void exited.then(() => {
        if (listeners.has(listener) && !check()) {
          cleanup();
          reject(new Error(`${command} exited before the line appeared; stderr: ${stderr}`));
        }
      });
    });
  return { child, exited, waitForLine };
}

/** Runs a process to the end; throws (with its stderr) when it exits non-zero. */
export async function runProcess(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): Promise<Finished> {
  const finished = await startProcess(command, args, options).exited;
  if (finished.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${finished.code ?? finished.signal}:\n` +
        `${finished.stderr}\n${finished.stdout}`,
    );
  }
  return finished;
}

/** Starts `python3 -m muster_client <args>`. */
export function startPython(args: string[], options: { input?: string } = {}): Running {
  return startProcess('python3', ['-m', 'muster_client', ...args], {
    cwd: pythonClientDirectory,
    ...options,
  });
}

/**
 * Go's environment for the tests: a build cache that survives between runs (so only the
 * first run compiles), no module downloads (the client uses the standard library only).
 */
export function goEnvironment(): NodeJS.ProcessEnv {
  const cache = process.env.GOCACHE || path.join(tmpdir(), 'muster-go-build-cache');
  mkdirSync(cache, { recursive: true });
  return { GOCACHE: cache, GOFLAGS: '', GOPROXY: 'off', GO111MODULE: 'on', CGO_ENABLED: '0' };
}

/** Builds `cmd/muster-client` into `directory` and returns the binary's path. */
export async function buildGoClient(directory: string): Promise<string> {
  const binary = path.join(directory, 'muster-client');
  await runProcess('go', ['build', '-o', binary, './cmd/muster-client'], {
    cwd: goClientDirectory,
    env: goEnvironment(),
  });
  return binary;
}
