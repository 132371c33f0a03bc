import { setTimeout as sleep } from 'node:timers/promises';
import { runProcess, type ProcessOutcome } from './run-process.js';
import { WorktreeError } from './worktree-error.js';

/** Options every operation accepts for the git (and hook) processes it starts. */
export interface GitOptions {
  /**
   * Environment for git and for the create hook (default `process.env`). Variables that
   * would point git at another repository (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`,
   * …) are removed, and `GIT_TERMINAL_PROMPT=0` is always set so git never waits for input.
   */
  env?: NodeJS.ProcessEnv;
  /** Time limit for each git command, in milliseconds (default 120 000). */
  gitTimeoutMs?: number;
}

/** Default time limit for one git command. */
export const DEFAULT_GIT_TIMEOUT_MS = 120_000;

const repositoryLocationVariables = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_PREFIX',
  'GIT_NAMESPACE',
];

// git's own lock files: `index.lock`, `config.lock`, `refs/heads/x.lock`, `packed-refs.lock`.
const lockContentionPattern =
  /(?:Unable to create '[^']*\.lock'|could not lock config file [^\n]*): File exists/;
// Another process is half-way through `git worktree add`: its `.git/worktrees/<name>/`
// folder exists but `commondir` / `gitdir` are not written yet, and git, listing the
// worktrees to check that a branch is not checked out twice, fails before changing anything.
const siblingWorktreeRacePattern = /failed to read [^\n]*worktrees\/[^\n/]+\/(?:commondir|gitdir)/;
const maximumLockAttempts = 10;

/** The environment git runs with: the caller's, minus repository redirects, no prompts. */
export function gitEnvironment(options: GitOptions = {}): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
  for (const name of repositoryLocationVariables) delete environment[name];
  environment.GIT_TERMINAL_PROMPT = '0';
  return environment;
}

/** Extra settings for one git call. */
export interface RunGitOptions extends GitOptions {
  /** Written to git's standard input. */
  input?: string;
  /** Extra environment variables for this call only. */
  extraEnv?: NodeJS.ProcessEnv;
}

/**
 * Runs `git args…` in `cwd` and returns its standard output. When git reports that one of
 * its lock files is held by another git process, or trips over a worktree another process
 * is still creating, waits with jittered backoff and tries again (at most 10 attempts,
 * about 7 seconds). Throws `GIT_MISSING` when git cannot be
 * started, `GIT_TIMEOUT` when it runs too long and `GIT_FAILED` for any other failure.
 */
export async function runGit(
  cwd: string,
  args: readonly string[],
  options: RunGitOptions = {},
): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await startGit(cwd, args, options);
    if (outcome.timedOut) {
      throw new WorktreeError({
        code: 'GIT_TIMEOUT',
        message: `git ${describeArguments(args)} in ${cwd} did not finish within ${timeoutOf(options)} ms and was stopped. Check for a hung git process or a slow file system, or raise gitTimeoutMs.`,
        details: { cwd, args: [...args], stderr: outcome.stderr },
      });
    }
    if (outcome.exitCode === 0) return outcome.stdout;
    const contended =
      lockContentionPattern.test(outcome.stderr) || siblingWorktreeRacePattern.test(outcome.stderr);
    if (contended && attempt < maximumLockAttempts) {
      const backoff = Math.min(2_000, 25 * 2 ** attempt);
      await sleep(backoff * (0.5 + Math.random()));
      continue;
    }
    throw new WorktreeError({
      code: 'GIT_FAILED',
      message: `git ${describeArguments(args)} failed in ${cwd} (exit code ${outcome.exitCode}): ${firstLines(outcome.stderr)}`,
      details: {
        cwd,
        args: [...args],
        exitCode: outcome.exitCode,
        stderr: outcome.stderr,
        attempts: attempt,
      },
    });
  }
}

async function startGit(
  cwd: string,
  args: readonly string[],
  options: RunGitOptions,
): Promise<ProcessOutcome> {
  try {
    return await runProcess('git', args, {
      cwd,
      env: { ...gitEnvironment(options), ...options.extraEnv },
      timeoutMs: timeoutOf(options),
      ...(options.input === undefined ? {} : { input: options.input }),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new WorktreeError({
        code: 'GIT_MISSING',
        message: `git could not be started (it is not on PATH for this process). Install git or fix PATH, then try again.`,
        cause: error,
        details: { cwd, args: [...args] },
      });
    }
    throw error;
  }
}

function timeoutOf(options: GitOptions): number {
  return options.gitTimeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
}

function describeArguments(args: readonly string[]): string {
  return args.slice(0, 3).join(' ');
}

function firstLines(text: string): string {
  const lines = text.trim().split('\n').slice(0, 3).join(' | ');
  return lines === '' ? 'git printed no error message.' : lines;
}
