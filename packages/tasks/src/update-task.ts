import type { Task, TaskStatus } from '@muster/protocol';
import {
  addDependencies,
  assertDependenciesAcceptable,
  type TaskDependency,
} from './dependencies.js';
import { raiseHighWatermark } from './high-watermark.js';
import { readTaskSnapshot } from './list-tasks.js';
import { computeTaskChanges, parseTaskChanges, type TaskChanges } from './task-changes.js';
import {
  taskFile,
  taskNotFound,
  withTaskLock,
  withTeamLock,
  type TaskContext,
} from './task-context.js';
import { TaskError } from './task-error.js';
import { readTaskFile, removeTaskFile, writeTaskFile } from './task-file.js';
import { removeLeases } from './task-leases.js';

/** Who is making a change (for the completion hook and the automatic owner). */
export interface UpdateTaskOptions {
  /**
   * The agent calling TaskUpdate. When it moves an unowned task to `in_progress` it becomes
   * the owner (as in Claude Code); it is also what `beforeComplete` receives.
   */
  agent?: string;
}

/** What an update did, enough to write Claude Code's result text and a task_assignment. */
export interface TaskUpdateResult {
  taskId: string;
  /** The task as it is now on disk (`undefined` once deleted). */
  task: Task | undefined;
  /** The task before the update. */
  previous: Task;
  /** Changed fields in Claude Code's order (`owner, status`); `['deleted']` for a delete. */
  updatedFields: string[];
  statusChange?: { from: TaskStatus; to: TaskStatus };
  /**
   * Set when the owner changed. When `to` is set, send a `task_assignment` to that agent
   * (Claude Code does, even on a self-claim); this package sends no messages itself.
   */
  ownerChange?: { from?: string; to?: string };
  /** True when `status: "deleted"` removed the task. */
  deleted: boolean;
}

/** What deleting a task did. */
export interface TaskDeleteResult {
  /** The task as it was before deletion. */
  task: Task;
  /** Ids of tasks whose `blocks` / `blockedBy` no longer mention it. */
  cleanedReferences: string[];
}

/** How often an update starts over when the task changed while the completion hook ran. */
const MAXIMUM_HOOK_ATTEMPTS = 5;

/**
 * Updates a task (Claude Code's TaskUpdate): field changes are merged under the task's lock
 * (`{id}.json.lock`) on a fresh read; `status: "deleted"` deletes it; `addBlocks` /
 * `addBlockedBy` add dependencies in both directions (checked before anything is written).
 * Completing runs the `beforeComplete` hook first, without holding the lock; a veto throws
 * `COMPLETION_VETOED` and leaves the file unchanged.
 */
export async function updateTask(
  context: TaskContext,
  taskId: string,
  changes: TaskChanges,
  options: UpdateTaskOptions = {},
): Promise<TaskUpdateResult> {
  const file = taskFile(context, taskId);
  for (const other of [...(changes?.addBlocks ?? []), ...(changes?.addBlockedBy ?? [])]) {
    if (other === taskId) {
      throw new TaskError({
        code: 'SELF_DEPENDENCY',
        message: `Task #${taskId} cannot depend on itself (team ${context.team}). Remove it from addBlocks / addBlockedBy.`,
        details: { taskId, team: context.team },
      });
    }
    taskFile(context, other);
  }
  const input = parseTaskChanges(taskId, changes, context.team);
  if (input.status === 'deleted') {
    const { task } = await deleteTask(context, taskId);
    return { taskId, task: undefined, previous: task, updatedFields: ['deleted'], deleted: true };
  }
  const dependencies: TaskDependency[] = [
    ...(input.addBlocks ?? []).map((blockedId) => ({ blockerId: taskId, blockedId })),
    ...(input.addBlockedBy ?? []).map((blockerId) => ({ blockerId, blockedId: taskId })),
  ];
  if (dependencies.length > 0) {
    assertDependenciesAcceptable(context, await readTaskSnapshot(context), dependencies);
  }

  for (let attempt = 1; ; attempt += 1) {
    const before = await readTaskFile(file, taskId);
    if (before === undefined) throw taskNotFound(context, taskId);
    const planned = computeTaskChanges(before.task, input, options.agent);
    const completing = planned.statusChange?.to === 'completed';
    if (completing) await runCompletionHook(context, before.task, options.agent);
    const outcome = await withTaskLock(context, taskId, async (_file, lock) => {
      const current = await readTaskFile(file, taskId);
      if (current === undefined) throw taskNotFound(context, taskId);
      const computed = computeTaskChanges(current.task, input, options.agent);
      const needsHook =
        context.hooks.beforeComplete !== undefined && computed.statusChange?.to === 'completed';
      // The hook approved the version read before locking; a changed file is re-checked.
      if (needsHook && (!completing || current.text !== before.text)) return 'retry' as const;
      if (computed.updatedFields.length > 0)
        await writeTaskFile(file, computed.task, current.text, lock, context.layout.root);
      return { previous: current.task, computed };
    });
    if (outcome === 'retry') {
      if (attempt >= MAXIMUM_HOOK_ATTEMPTS) {
        throw new TaskError({
          code: 'LOCK_LOST',
          message: `Task #${taskId} in team ${context.team} kept changing while its completion hook ran (${attempt} attempts). Retry the update.`,
          details: { taskId, team: context.team },
        });
      }
      continue;
    }
    const { previous, computed } = outcome;
    if (computed.ownerChange !== undefined || computed.statusChange?.to === 'completed') {
      await removeLeases(context, [taskId]);
    }
    const updatedFields = [...computed.updatedFields];
    let task: Task | undefined = computed.task;
    if (dependencies.length > 0) {
      const results = await addDependencies(context, dependencies);
      if (results.some((result) => result.changed && result.blockerId === taskId)) {
        updatedFields.push('blocks');
      }
      if (results.some((result) => result.changed && result.blockedId === taskId)) {
        updatedFields.push('blockedBy');
      }
      task = (await readTaskFile(file, taskId))?.task;
    }
    return {
      taskId,
      task,
      previous,
      updatedFields,
      ...(computed.statusChange === undefined ? {} : { statusChange: computed.statusChange }),
      ...(computed.ownerChange === undefined ? {} : { ownerChange: computed.ownerChange }),
      deleted: false,
    };
  }
}

async function runCompletionHook(
  context: TaskContext,
  task: Task,
  agent: string | undefined,
): Promise<void> {
  const hook = context.hooks.beforeComplete;
  if (hook === undefined) return;
  const decision = await hook(task, agent ?? task.owner);
  if (decision.allow) return;
  throw new TaskError({
    code: 'COMPLETION_VETOED',
    message: `Task #${task.id} was not marked completed (team ${context.team}): ${decision.reason}`,
    details: { taskId: task.id, team: context.team, reason: decision.reason },
  });
}

/**
 * Deletes a task: under the team lock and the task's lock, raises `.highwatermark` to its id
 * (so the id is never reused) and removes the file; then removes the id from every other
 * task's `blocks` / `blockedBy`, each under that task's lock, and drops its lease.
 */
export async function deleteTask(context: TaskContext, taskId: string): Promise<TaskDeleteResult> {
  const file = taskFile(context, taskId);
  // Checked before locking too, so an unknown id (or team) creates no lock folders.
  if ((await readTaskFile(file, taskId)) === undefined) throw taskNotFound(context, taskId);
  const result = await withTeamLock(context, async (teamLock) => {
    const deleted = await withTaskLock(context, taskId, async () => {
      const read = await readTaskFile(file, taskId);
      if (read === undefined) throw taskNotFound(context, taskId);
      await raiseHighWatermark(
        context.highWatermarkFile,
        Number(taskId),
        teamLock,
        context.layout.root,
      );
      await removeTaskFile(file);
      return read.task;
    });
    const snapshot = await readTaskSnapshot(context);
    const cleanedReferences: string[] = [];
    for (const other of snapshot.tasks.values()) {
      if (!other.blocks.includes(taskId) && !other.blockedBy.includes(taskId)) continue;
      const cleaned = await withTaskLock(context, other.id, async (otherFile, lock) => {
        const current = await readTaskFile(otherFile, other.id);
        if (current === undefined) return false;
        const { blocks, blockedBy } = current.task;
        if (!blocks.includes(taskId) && !blockedBy.includes(taskId)) return false;
        const task: Task = {
          ...current.task,
          blocks: blocks.filter((id) => id !== taskId),
          blockedBy: blockedBy.filter((id) => id !== taskId),
        };
        await writeTaskFile(otherFile, task, current.text, lock, context.layout.root);
        return true;
      });
      if (cleaned) cleanedReferences.push(other.id);
    }
    return { task: deleted, cleanedReferences };
  });
  await removeLeases(context, [taskId]);
  return result;
}
