import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { gitEnvironment, type GitOptions } from './run-git.js';
import { runProcess } from './run-process.js';
import { worktreePathFor } from './repository.js';
import type { HookAgentWorktree, WorktreeCreateHook } from './types.js';
import { WorktreeError } from './worktree-error.js';

const defaultHookTimeoutMs = 300_000;

/** Checks the hook option's shape without running anything; throws `INVALID_OPTIONS`. */
export function checkCreateHook(hook: unknown): WorktreeCreateHook {
  const candidate = hook as WorktreeCreateHook;
  const valid =
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.command === 'string' &&
    candidate.command !== '' &&
    (candidate.args === undefined ||
      (Array.isArray(candidate.args) && candidate.args.every((arg) => typeof arg === 'string'))) &&
    (candidate.timeoutMs === undefined ||
      (Number.isFinite(candidate.timeoutMs) && candidate.timeoutMs > 0));
  if (!valid) {
    throw new WorktreeError({
      code: 'INVALID_OPTIONS',
      message: `createHook must be { command: string, args?: string[], timeoutMs?: number }. Fix the option and try again.`,
      details: { option: 'createHook' },
    });
  }
  return candidate;
}

/**
 * Runs the create hook in `folder` instead of git and returns the worktree it made.
 * Throws `HOOK_FAILED` when the hook cannot start, fails, times out or prints a path
 * that is not an existing folder.
 */
export async function runCreateHook(
  hook: WorktreeCreateHook,
  folder: string,
  slug: string,
  options: GitOptions,
): Promise<HookAgentWorktree> {
  const suggestedPath = worktreePathFor(folder, slug);
  const facts = { slug, repositoryRoot: folder, suggestedPath };
  const describe = [hook.command, ...(hook.args ?? [])].join(' ');
  const fail = (problem: string, extra: Record<string, unknown> = {}, cause?: unknown) =>
    new WorktreeError({
      code: 'HOOK_FAILED',
      message: `The worktree create hook (${describe}) for slug "${slug}" ${problem}. Fix the hook, or remove createHook to let git create the worktree.`,
      details: { command: hook.command, args: hook.args ?? [], slug, ...extra },
      ...(cause === undefined ? {} : { cause }),
    });
  let outcome;
  try {
    outcome = await runProcess(hook.command, hook.args ?? [], {
      cwd: folder,
      env: {
        ...gitEnvironment(options),
        MUSTER_WORKTREE_SLUG: slug,
        MUSTER_REPOSITORY_ROOT: folder,
        MUSTER_WORKTREE_PATH: suggestedPath,
      },
      timeoutMs: hook.timeoutMs ?? defaultHookTimeoutMs,
      input: `${JSON.stringify(facts)}\n`,
    });
  } catch (error) {
    throw fail('could not be started', {}, error);
  }
  if (outcome.timedOut)
    throw fail(`did not finish within ${hook.timeoutMs ?? defaultHookTimeoutMs} ms`);
  if (outcome.exitCode !== 0) {
    throw fail(`exited with ${outcome.exitCode}: ${outcome.stderr.trim().slice(0, 500)}`, {
      exitCode: outcome.exitCode,
      stderr: outcome.stderr,
    });
  }
  const printed = outcome.stdout.trim().split('\n').at(-1)?.trim() ?? '';
  if (printed === '') throw fail('printed no worktree path on its standard output');
  const worktreePath = path.resolve(folder, printed);
  try {
    if (!(await stat(worktreePath)).isDirectory()) throw new Error('not a folder');
  } catch (error) {
    throw fail(`printed ${JSON.stringify(printed)}, which is not an existing folder`, {}, error);
  }
  return {
    managedBy: 'hook',
    slug,
    path: await realpath(worktreePath),
    repositoryRoot: folder,
    createdAt: new Date().toISOString(),
  };
}
