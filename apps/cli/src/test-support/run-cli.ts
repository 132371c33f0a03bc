import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { builtCli } from './reference.js';

/** What a run of the built CLI printed and how it ended. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node apps/cli/dist/cli.js …args` as a real process, without a terminal, with a
 * clean environment (no MUSTER_HOME / MUSTER_TEAM unless given, HOME pointed at `home`).
 */
export function runMuster(
  args: readonly string[],
  options: {
    env?: Record<string, string>;
    home?: string;
    cwd?: string;
    input?: string;
    /** Kill the run after this long (default 30 s). */
    timeoutMs?: number;
    /** Environment variables to remove (after `env` is applied). */
    unset?: string[];
  } = {},
): Promise<CliRun> {
  const environment: NodeJS.ProcessEnv = { ...process.env };
  delete environment.MUSTER_HOME;
  delete environment.MUSTER_TEAM;
  delete environment.FORCE_COLOR;
  delete environment.NO_COLOR;
  if (options.home) environment.HOME = options.home;
  Object.assign(environment, options.env);
  for (const name of options.unset ?? []) delete environment[name];
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [builtCli, ...args],
      {
        env: environment,
        cwd: options.cwd,
        encoding: 'utf8',
        timeout: options.timeoutMs ?? 30_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

/** Parses a run's stdout as JSON, failing with the output when it is not JSON. */
export function jsonOf<T = Record<string, unknown>>(run: CliRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(
      `stdout is not JSON (exit ${run.code}):\n${run.stdout}\nstderr:\n${run.stderr}`,
    );
  }
}

/**
 * Every file and folder under `root` with a hash of each file's content and its
 * modification time: equal snapshots mean nothing on disk changed.
 */
export async function snapshotTree(root: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const walk = async (directory: string) => {
    let entries;
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const file = path.join(directory, entry.name);
      const relative = path.relative(root, file);
      if (entry.isDirectory()) {
        result[`${relative}/`] = 'directory';
        await walk(file);
      } else {
        const [content, info] = await Promise.all([readFile(file), stat(file)]);
        result[relative] = `${createHash('sha256').update(content).digest('hex')} ${info.mtimeMs}`;
      }
    }
  };
  await walk(root);
  return result;
}

/** True when the text holds an ANSI escape sequence (colors, cursor moves). */
export function hasAnsi(text: string): boolean {
  return text.includes('\u001b[');
}

/** True when the text holds any character outside ASCII. */
export function hasNonAscii(text: string): boolean {
  return [...text].some((character) => character.charCodeAt(0) > 0x7f);
}
