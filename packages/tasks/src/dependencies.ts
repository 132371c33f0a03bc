import type { Task } from '@muster/protocol';
import { readTaskSnapshot, type TaskSnapshot } from './list-tasks.js';
import {
  taskFile,
  taskNotFound,
  withTaskLock,
  withTeamLock,
  type TaskContext,
} from './task-context.js';
import { TaskError } from './task-error.js';
import { readTaskFile, writeTaskFile } from './task-file.js';

/** One dependency: `blockerId` must complete before `blockedId` can start. */
export interface TaskDependency {
  blockerId: string;
  blockedId: string;
}

/** What adding a dependency did. */
export interface DependencyResult extends TaskDependency {
  /** False when both directions were already recorded. */
  changed: boolean;
}

/**
 * Adds dependencies, both directions at once: `blocks` on the blocker, `blockedBy` on the
 * blocked task. Everything is checked first under the team lock — ids valid, no task
 * depending on itself (`SELF_DEPENDENCY`), every task present (`TASK_NOT_FOUND`), no cycle
 * (`DEPENDENCY_CYCLE`, the cycle in the message) — so a refused call writes nothing. Each
 * file is then rewritten under its own lock.
 */
export async function addDependencies(
  context: TaskContext,
  dependencies: readonly TaskDependency[],
): Promise<DependencyResult[]> {
  for (const { blockerId, blockedId } of dependencies) {
    taskFile(context, blockerId);
    taskFile(context, blockedId);
    if (blockerId === blockedId) {
      throw new TaskError({
        code: 'SELF_DEPENDENCY',
        message: `Task #${blockerId} cannot depend on itself (team ${context.team}). Name a different task.`,
        details: { taskId: blockerId, team: context.team },
      });
    }
  }
  if (dependencies.length === 0) return [];
  // Checked before locking too, so an unknown id (or team) creates no lock folders.
  for (const taskId of new Set(
    dependencies.flatMap((entry) => [entry.blockerId, entry.blockedId]),
  )) {
    if ((await readTaskFile(taskFile(context, taskId), taskId)) === undefined) {
      throw taskNotFound(context, taskId);
    }
  }
  return withTeamLock(context, async () => {
    const snapshot = await readTaskSnapshot(context);
    assertDependenciesAcceptable(context, snapshot, dependencies);
    const results: DependencyResult[] = [];
    for (const { blockerId, blockedId } of dependencies) {
      const blocksAdded = await appendReference(context, blockerId, 'blocks', blockedId);
      const blockedByAdded = await appendReference(context, blockedId, 'blockedBy', blockerId);
      results.push({ blockerId, blockedId, changed: blocksAdded || blockedByAdded });
    }
    return results;
  });
}

/** Checks existence and cycles for a batch, treating earlier ones as already added. */
export function assertDependenciesAcceptable(
  context: TaskContext,
  snapshot: TaskSnapshot,
  dependencies: readonly TaskDependency[],
): void {
  for (const { blockerId, blockedId } of dependencies) {
    for (const taskId of [blockerId, blockedId]) {
      if (snapshot.unreadable.has(taskId)) {
        const problem = snapshot.problems.find((entry) => entry.taskId === taskId);
        throw new TaskError({
          code: 'CORRUPT_FILE',
          message: problem?.message ?? `The file of task #${taskId} does not parse.`,
          details: { taskId, team: context.team, file: problem?.file },
        });
      }
      if (!snapshot.tasks.has(taskId)) throw taskNotFound(context, taskId);
    }
  }
  const edges = dependencyEdges(snapshot.tasks.values());
  for (const { blockerId, blockedId } of dependencies) {
    const path = findPath(edges, blockedId, blockerId);
    if (path !== undefined) {
      const cycle = [blockerId, ...path];
      throw new TaskError({
        code: 'DEPENDENCY_CYCLE',
        message:
          `Task #${blockerId} cannot block #${blockedId} in team ${context.team}: #${blockedId} already ` +
          `blocks #${blockerId}, so this would create the cycle ${cycle.join(' → ')}. Remove one ` +
          'of the existing dependencies first, or leave this one out.',
        details: { blockerId, blockedId, cycle, team: context.team },
      });
    }
    addEdge(edges, blockerId, blockedId);
  }
}

/** The "blocks" graph: an edge a → b when a lists b in `blocks` or b lists a in `blockedBy`. */
function dependencyEdges(tasks: Iterable<Task>): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const task of tasks) {
    for (const blockedId of task.blocks) addEdge(edges, task.id, blockedId);
    for (const blockerId of task.blockedBy) addEdge(edges, blockerId, task.id);
  }
  return edges;
}

function addEdge(edges: Map<string, Set<string>>, from: string, to: string): void {
  let targets = edges.get(from);
  if (targets === undefined) {
    targets = new Set();
    edges.set(from, targets);
  }
  targets.add(to);
}

/** A shortest path `from` →…→ `to` along the edges (both ends included), or undefined. */
function findPath(edges: Map<string, Set<string>>, from: string, to: string): string[] | undefined {
  const previous = new Map<string, string | undefined>([[from, undefined]]);
  const queue = [from];
  for (let index = 0; index < queue.length; index += 1) {
    const current = queue[index]!;
    if (current === to) {
      const path: string[] = [];
      for (let step: string | undefined = current; step !== undefined; step = previous.get(step)) {
        path.unshift(step);
      }
      return path;
    }
    for (const next of edges.get(current) ?? []) {
      if (previous.has(next)) continue;
      previous.set(next, current);
      queue.push(next);
    }
  }
  return undefined;
}

/** Appends `value` to one list field of a task under its lock; false when already there. */
async function appendReference(
  context: TaskContext,
  taskId: string,
  field: 'blocks' | 'blockedBy',
  value: string,
): Promise<boolean> {
  return withTaskLock(context, taskId, async (file, lock) => {
    const read = await readTaskFile(file, taskId);
    if (read === undefined) throw taskNotFound(context, taskId);
    if (read.task[field].includes(value)) return false;
    const task: Task = { ...read.task, [field]: [...read.task[field], value] };
    await writeTaskFile(file, task, read.text, lock, context.layout.root);
    return true;
  });
}
