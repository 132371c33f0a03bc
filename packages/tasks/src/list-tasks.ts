import type { Task } from '@muster/protocol';
import type { TaskContext } from './task-context.js';
import { TaskError, type TaskErrorCode } from './task-error.js';
import { compareTaskIds, readTaskFolder, taskIdFromFileName } from './task-file.js';
import { pruneTaskReadCache, readTaskThroughCache } from './task-read-cache.js';
import { activeLeaseOf, isLeaseExpired, readLeases, type TaskLease } from './task-leases.js';

/** A file in the task folder that could not be used, reported instead of dropped. */
export interface TaskProblem {
  /** The file's path. */
  file: string;
  /** The task id its name stands for, when it has one. */
  taskId?: string;
  /** `CORRUPT_FILE` (does not parse or validate), `INVALID_TASK_ID` (a `.json` name that is not an id), or `IO_ERROR`. */
  code: TaskErrorCode;
  /** What is wrong and what to do. */
  message: string;
}

/** One task in a listing, with what muster computed about it. */
export interface ListedTask {
  /** The task exactly as stored (frozen: it may be shared with later listings). */
  task: Task;
  /** True for an internal tracking task (`metadata._internal`). */
  internal: boolean;
  /** Ids in `blockedBy` whose task still exists and is not completed (in file order). */
  openBlockers: string[];
  /** Claimable now: not internal, not completed, no open blockers, and no owner or an expired lease. */
  available: boolean;
  /** The owner's lease, when the claim carries one. */
  lease?: TaskLease;
  /** True when the owner's lease has run out (the task may be claimed again). */
  leaseExpired: boolean;
}

/** The result of a listing: tasks in id order, and every file that could not be used. */
export interface TaskListResult {
  tasks: ListedTask[];
  problems: TaskProblem[];
}

/** Options of a listing. */
export interface ListTasksOptions {
  /** Include internal tracking tasks (hidden by default, as in Claude Code). */
  includeInternal?: boolean;
}

/** All tasks on disk by id, plus the problems met while reading them. */
export interface TaskSnapshot {
  tasks: Map<string, Task>;
  /** Ids whose `{id}.json` exists but does not parse: their status is unknown. */
  unreadable: Set<string>;
  problems: TaskProblem[];
}

/** How many task files are read before the event loop gets a turn. */
const FILES_PER_TURN = 250;

/** True for an internal tracking task. */
export function isInternalTask(task: Task): boolean {
  return task.metadata?._internal === true;
}

/**
 * Reads every `{id}.json` in the task folder without locks (files are replaced atomically
 * by muster; a half-written one from Claude Code is re-read once), reusing the store's parsed
 * copy of files that have not changed since the last listing. Non-`.json` entries —
 * `.lock`, `.highwatermark`, lock directories, temp and quarantine files — are skipped.
 */
export async function readTaskSnapshot(context: TaskContext): Promise<TaskSnapshot> {
  const names = await readTaskFolder(context.directory);
  const tasks = new Map<string, Task>();
  const unreadable = new Set<string>();
  const problems: TaskProblem[] = [];
  const candidates: string[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const taskId = taskIdFromFileName(name);
    if (taskId === undefined) {
      problems.push({
        file: `${context.directory}/${name}`,
        code: 'INVALID_TASK_ID',
        message: `${name} in ${context.directory} is not named like a task file ({id}.json with a positive whole number); it is ignored. Rename or remove it.`,
      });
      continue;
    }
    candidates.push(taskId);
  }
  for (const [index, taskId] of candidates.entries()) {
    if (index > 0 && index % FILES_PER_TURN === 0) await yieldToEventLoop();
    const file = `${context.directory}/${taskId}.json`;
    try {
      const task = await readTaskThroughCache(context.readCache, file, taskId);
      if (task !== undefined) tasks.set(taskId, task);
    } catch (error) {
      unreadable.add(taskId);
      const code = error instanceof TaskError ? error.code : 'IO_ERROR';
      const message = error instanceof Error ? error.message : String(error);
      problems.push({ file, taskId, code, message });
    }
  }
  pruneTaskReadCache(context.readCache, new Set(tasks.keys()));
  problems.sort((left, right) => left.file.localeCompare(right.file));
  return { tasks, unreadable, problems };
}

/** Ids in `blockedBy` that still block: the blocker exists unfinished, or cannot be read. */
export function openBlockersOf(task: Task, snapshot: TaskSnapshot): string[] {
  return task.blockedBy.filter((blockerId) => {
    if (snapshot.unreadable.has(blockerId)) return true;
    const blocker = snapshot.tasks.get(blockerId);
    return blocker !== undefined && blocker.status !== 'completed';
  });
}

/**
 * Lists the team's tasks in id order. Availability is computed now, from the blockers'
 * current status (the files' `blockedBy` never change when blockers finish). Files that do
 * not parse are reported in `problems`, never silently dropped.
 */
export async function listTasks(
  context: TaskContext,
  options: ListTasksOptions = {},
): Promise<TaskListResult> {
  const snapshot = await readTaskSnapshot(context);
  const problems = [...snapshot.problems];
  let leases: Record<string, TaskLease> = {};
  try {
    leases = await readLeases(context);
  } catch (error) {
    if (!(error instanceof TaskError)) throw error;
    problems.push({ file: context.leaseFile, code: error.code, message: error.message });
  }
  const now = context.clock();
  const listed: ListedTask[] = [];
  for (const task of snapshot.tasks.values()) {
    const internal = isInternalTask(task);
    if (internal && !options.includeInternal) continue;
    const openBlockers = openBlockersOf(task, snapshot);
    const lease = activeLeaseOf(leases[task.id], task);
    const leaseExpired = isLeaseExpired(lease, task, now);
    const available =
      !internal &&
      task.status !== 'completed' &&
      openBlockers.length === 0 &&
      (task.owner === undefined || leaseExpired);
    listed.push({
      task,
      internal,
      openBlockers,
      available,
      ...(lease === undefined ? {} : { lease }),
      leaseExpired,
    });
  }
  listed.sort((left, right) => compareTaskIds(left.task.id, right.task.id));
  return { tasks: listed, problems };
}

/** Lets other work on the event loop run between batches of synchronous reads. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
