import type { Task } from '@muster/protocol';
import type { TaskDependency } from './dependencies.js';
import {
  createTaskContext,
  taskFile,
  taskNotFound,
  withTaskLock,
  withTeamLock,
  type TaskContext,
  type TaskStoreOptions,
} from './task-context.js';
import { readTaskFile, writeTaskFile } from './task-file.js';

/** What removing one dependency did. */
export interface DependencyRemovalResult extends TaskDependency {
  /** True when the blocker's `blocks` listed the blocked task (and no longer does). */
  removedFromBlocks: boolean;
  /** True when the blocked task's `blockedBy` listed the blocker (and no longer does). */
  removedFromBlockedBy: boolean;
  /** False when neither task recorded the dependency: nothing was written. */
  changed: boolean;
  /** False when the blocker's file no longer exists (only the blocked task was cleaned). */
  blockerExists: boolean;
}

/**
 * Removes dependencies, both directions at once: `blockedId` from the blocker's `blocks` and
 * `blockerId` from the blocked task's `blockedBy` — the opposite of `addDependency`. Runs
 * under the team lock (so it never interleaves with an `addDependency` on the same tasks),
 * and rewrites each file under its own lock from a fresh read, keeping every other field.
 *
 * The blocked task must exist (`TASK_NOT_FOUND` otherwise, nothing written); a blocker whose
 * file is gone is fine (its stale id is still removed from `blockedBy`). A dependency that is
 * not recorded is reported with `changed: false`. Ids are checked first (`INVALID_TASK_ID`).
 */
export async function removeTaskDependencies(
  options: TaskStoreOptions,
  dependencies: readonly TaskDependency[],
): Promise<DependencyRemovalResult[]> {
  const context = createTaskContext(options);
  for (const { blockerId, blockedId } of dependencies) {
    taskFile(context, blockerId);
    taskFile(context, blockedId);
  }
  if (dependencies.length === 0) return [];
  // Checked before locking too, so an unknown id (or team) creates no lock folders.
  for (const blockedId of new Set(dependencies.map((entry) => entry.blockedId))) {
    if ((await readTaskFile(taskFile(context, blockedId), blockedId)) === undefined) {
      throw taskNotFound(context, blockedId);
    }
  }
  return withTeamLock(context, async () => {
    const results: DependencyRemovalResult[] = [];
    for (const { blockerId, blockedId } of dependencies) {
      const removedFromBlockedBy = await removeReference(
        context,
        blockedId,
        'blockedBy',
        blockerId,
      );
      if (removedFromBlockedBy === 'missing') throw taskNotFound(context, blockedId);
      const removedFromBlocks = await removeReference(context, blockerId, 'blocks', blockedId);
      results.push({
        blockerId,
        blockedId,
        removedFromBlocks: removedFromBlocks === true,
        removedFromBlockedBy,
        changed: removedFromBlocks === true || removedFromBlockedBy,
        blockerExists: removedFromBlocks !== 'missing',
      });
    }
    return results;
  });
}

/**
 * Drops `value` from one list field of a task under its lock: true when it was there,
 * false when not, `'missing'` when the task file does not exist.
 */
async function removeReference(
  context: TaskContext,
  taskId: string,
  field: 'blocks' | 'blockedBy',
  value: string,
): Promise<boolean | 'missing'> {
  // A missing file is left alone: locking it would create a lock folder for nothing.
  if ((await readTaskFile(taskFile(context, taskId), taskId)) === undefined) return 'missing';
  return withTaskLock(context, taskId, async (file, lock) => {
    const read = await readTaskFile(file, taskId);
    if (read === undefined) return 'missing';
    if (!read.task[field].includes(value)) return false;
    const task: Task = { ...read.task, [field]: read.task[field].filter((id) => id !== value) };
    await writeTaskFile(file, task, read.text, lock, context.layout.root);
    return true;
  });
}
