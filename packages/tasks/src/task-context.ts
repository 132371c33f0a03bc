import { closeSync, constants } from 'node:fs';
import path from 'node:path';
import {
  acquireFileLock,
  makeDirectoryInsideRoot,
  openInsideRoot,
  resolveInsideRoot,
  type HeldLock,
  type LockOptions,
} from '@muster/file-lock';
import {
  assertTaskId,
  createRootLayout,
  MusterError,
  type RootLayout,
  type Task,
} from '@muster/protocol';
import { asTaskError, TaskError } from './task-error.js';
import { createTaskReadCache, type TaskReadCache } from './task-read-cache.js';

/** What the `beforeComplete` hook answers. */
export type CompletionDecision = { allow: true } | { allow: false; reason: string };

/** Hook points of a task store. */
export interface TaskHooks {
  /**
   * Runs before a task is marked `completed` (Claude Code's TaskCompleted hook). Answer
   * `{ allow: false, reason }` to veto: the file stays unchanged and the update fails with
   * `COMPLETION_VETOED`. `agent` is the agent completing it (or the task's owner).
   */
  beforeComplete?: (
    task: Task,
    agent: string | undefined,
  ) => CompletionDecision | Promise<CompletionDecision>;
}

/** Options of {@link createTaskStore}. */
export interface TaskStoreOptions {
  /** The muster root (`~/.muster`, or `~/.claude` to work on Claude Code's own files). */
  root: string;
  /** The team's folder name (already sanitized; `../` and separators are refused). */
  team: string;
  /** Lock waits: `deadlineMs` (default 20 s) and `staleMs` for every lock taken. */
  lock?: LockOptions;
  /** Hook points (the completion veto). */
  hooks?: TaskHooks;
  /** Milliseconds since the epoch; used for leases. Default `Date.now`. */
  clock?: () => number;
}

/** Everything the operations share: paths, lock options, hooks, clock. */
export interface TaskContext {
  team: string;
  layout: RootLayout;
  directory: string;
  teamLockFile: string;
  highWatermarkFile: string;
  leaseFile: string;
  lockOptions: LockOptions;
  hooks: TaskHooks;
  clock: () => number;
  /** Parsed tasks reused by listings while their files are unchanged. */
  readCache: TaskReadCache;
}

/** Validates the options and resolves every path once. */
export function createTaskContext(options: TaskStoreOptions): TaskContext {
  if (typeof options.team !== 'string' || typeof options.root !== 'string') {
    throw new TaskError({
      code: 'INVALID_INPUT',
      message: 'A task store needs a root folder and a team name (both strings).',
    });
  }
  try {
    const layout = createRootLayout(options.root);
    return {
      team: options.team,
      layout,
      directory: layout.tasksDirectory(options.team),
      teamLockFile: layout.tasksLockPath(options.team),
      highWatermarkFile: layout.highWatermarkPath(options.team),
      leaseFile: layout.sidecarPath(options.team, 'task-leases.json'),
      // Every lock and locked write stays inside the root: no link below it is followed.
      lockOptions: { ...options.lock, root: layout.root },
      hooks: options.hooks ?? {},
      clock: options.clock ?? Date.now,
      readCache: createTaskReadCache(),
    };
  } catch (error) {
    if (!MusterError.isInstance(error)) throw error;
    throw new TaskError({
      code: 'INVALID_INPUT',
      message: `Cannot use the team ${JSON.stringify(options.team)} under ${JSON.stringify(options.root)}: ${error.message}`,
      cause: error,
      details: { team: options.team, root: options.root },
    });
  }
}

/**
 * Checks a task id (`"7"`) and returns its file path; `INVALID_TASK_ID` otherwise. A valid id
 * is digits only, so joining it to the (already validated) task folder cannot leave it; the
 * protocol's full path check is skipped here because listings call this thousands of times.
 */
export function taskFile(context: TaskContext, taskId: string): string {
  try {
    if (typeof taskId !== 'string') throw new TypeError('not a string');
    assertTaskId(taskId);
  } catch (error) {
    throw new TaskError({
      code: 'INVALID_TASK_ID',
      message: `${JSON.stringify(taskId)} is not a task id: task ids are positive whole numbers such as "7" (team ${context.team}).`,
      cause: error,
      details: { taskId, team: context.team },
    });
  }
  return `${context.directory}/${taskId}.json`;
}

/**
 * Creates the task folder and its empty `.lock` file when missing (as a team creation does),
 * never through a link, each new folder flushed into its parent.
 */
export async function ensureTaskFolder(context: TaskContext): Promise<void> {
  try {
    makeDirectoryInsideRoot(context.layout.root, context.directory);
    // O_APPEND | O_CREAT creates the file when missing and never truncates one that exists.
    closeSync(
      openInsideRoot(
        context.layout.root,
        context.teamLockFile,
        constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND,
        0o644,
      ),
    );
  } catch (error) {
    throw asTaskError(error, `prepare the task folder ${context.directory}`);
  }
}

/**
 * Checks that the task folder and the sidecar folder lie inside the root without a link on
 * the way (`UNSAFE_PATH` naming it otherwise). Every store operation runs it first; file
 * opens then refuse a link in the last component themselves (`O_NOFOLLOW`).
 */
export function assertFoldersInsideRoot(context: TaskContext): void {
  try {
    resolveInsideRoot(context.layout.root, context.directory);
    resolveInsideRoot(context.layout.root, path.dirname(context.leaseFile));
  } catch (error) {
    throw asTaskError(error, `use the task list of team ${context.team}`);
  }
}

/**
 * Runs `action` holding the lock on `file` (proper-lockfile's `<file>.lock` directory).
 * Lock failures become `TaskError`s; a lock lost while held is reported, never ignored.
 */
export async function withLock<T>(
  context: TaskContext,
  file: string,
  what: string,
  action: (lock: HeldLock) => Promise<T>,
  lockOptions: LockOptions = context.lockOptions,
): Promise<T> {
  let lock: HeldLock;
  try {
    lock = await acquireFileLock(file, lockOptions);
  } catch (error) {
    throw asTaskError(error, `lock ${what}`);
  }
  let result: T;
  try {
    result = await action(lock);
  } catch (error) {
    await lock.release().catch(() => undefined);
    throw error;
  }
  try {
    await lock.release();
  } catch (error) {
    throw asTaskError(error, `release the lock on ${what} (the change may have raced; re-read it)`);
  }
  return result;
}

/**
 * Runs `action` under the team lock `tasks/{team}/.lock` (lock directory `.lock.lock`). Pass
 * the lock to {@link writeTaskFile} so a write never lands after the lock was lost.
 */
export function withTeamLock<T>(
  context: TaskContext,
  action: (lock: HeldLock) => Promise<T>,
): Promise<T> {
  return withLock(context, context.teamLockFile, `the task list of team ${context.team}`, action);
}

/**
 * Runs `action` under the lock of one task file (`{id}.json.lock`). `lockOptions` overrides
 * the store's (`deadlineMs: 0` tries once and fails with `LOCK_TIMEOUT` if it is held).
 * Pass the lock to {@link writeTaskFile}: the write is refused if the lock was lost.
 */
export function withTaskLock<T>(
  context: TaskContext,
  taskId: string,
  action: (file: string, lock: HeldLock) => Promise<T>,
  lockOptions?: LockOptions,
): Promise<T> {
  const file = taskFile(context, taskId);
  return withLock(
    context,
    file,
    `task #${taskId} of team ${context.team}`,
    (lock) => action(file, lock),
    lockOptions,
  );
}

/** The error for a task id with no file. */
export function taskNotFound(context: TaskContext, taskId: string): TaskError {
  return new TaskError({
    code: 'TASK_NOT_FOUND',
    message: `Task #${taskId} does not exist in team ${context.team} (${context.directory}). List the tasks to see which ids exist.`,
    details: { taskId, team: context.team },
  });
}
