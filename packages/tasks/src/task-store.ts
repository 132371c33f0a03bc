import type { Task, TaskCreateInput } from '@muster/protocol';
import {
  claimNextAvailable,
  claimTask,
  renewLease,
  type ClaimNextResult,
  type ClaimOptions,
  type ClaimResult,
} from './claim-task.js';
import { createInternalTask, createTask, type InternalTaskInput } from './create-task.js';
import { addDependencies, type DependencyResult } from './dependencies.js';
import { listTasks, type ListTasksOptions, type TaskListResult } from './list-tasks.js';
import type { TaskChanges } from './task-changes.js';
import {
  assertFoldersInsideRoot,
  createTaskContext,
  taskFile,
  taskNotFound,
  type TaskStoreOptions,
} from './task-context.js';
import { readTaskFile } from './task-file.js';
import type { TaskLease } from './task-leases.js';
import { unassignAgentTasks, type UnassignOptions, type UnassignResult } from './unassign-tasks.js';
import {
  deleteTask,
  updateTask,
  type TaskDeleteResult,
  type TaskUpdateResult,
  type UpdateTaskOptions,
} from './update-task.js';

/** One team's task list (`{root}/tasks/{team}/`), shared safely by many processes. */
export interface TaskStore {
  /** The team's folder name. */
  readonly team: string;
  /** `{root}/tasks/{team}`. */
  readonly directory: string;
  /** Creates a task (TaskCreate input) under the team lock; ids are never reused. */
  create(input: TaskCreateInput): Promise<Task>;
  /** Creates a spawned teammate's internal tracking task (hidden from listings). */
  createInternal(input: InternalTaskInput): Promise<Task>;
  /** Reads one task; `TASK_NOT_FOUND` when missing, `CORRUPT_FILE` when it does not parse. */
  get(taskId: string): Promise<Task>;
  /** Reads one task; `undefined` when missing. */
  find(taskId: string): Promise<Task | undefined>;
  /** TaskUpdate: merges changes under the task's lock; see {@link TaskUpdateResult}. */
  update(
    taskId: string,
    changes: TaskChanges,
    options?: UpdateTaskOptions,
  ): Promise<TaskUpdateResult>;
  /** Deletes a task, raises `.highwatermark`, cleans other tasks' references. */
  delete(taskId: string): Promise<TaskDeleteResult>;
  /** Lists tasks in id order with availability and problems (internal hidden unless asked). */
  list(options?: ListTasksOptions): Promise<TaskListResult>;
  /** `blockerId` must complete before `blockedId` starts; written on both tasks. */
  addDependency(blockerId: string, blockedId: string): Promise<DependencyResult>;
  /** Claims one task for an agent (see the failure reasons). */
  claim(taskId: string, agent: string, options?: ClaimOptions): Promise<ClaimResult>;
  /** Claims the lowest-id available task for an agent. */
  claimNextAvailable(agent: string, options?: ClaimOptions): Promise<ClaimNextResult>;
  /** Extends the lease of a task the agent owns. */
  renewLease(taskId: string, agent: string, leaseMs: number): Promise<TaskLease>;
  /** Releases every unfinished task an agent owns; returns the lead's notification text. */
  unassignAgentTasks(agent: string, options: UnassignOptions): Promise<UnassignResult>;
}

/**
 * Opens a team's task list. Validates the root and team name at once (`INVALID_INPUT` for
 * `../` or separators); touches the disk only when an operation runs.
 */
export function createTaskStore(options: TaskStoreOptions): TaskStore {
  const context = createTaskContext(options);
  /** Runs an operation after checking that no link lies on the way to the task folders. */
  const inside = async <T>(operation: () => Promise<T>): Promise<T> => {
    assertFoldersInsideRoot(context);
    return operation();
  };
  return {
    team: context.team,
    directory: context.directory,
    create: (input) => inside(() => createTask(context, input)),
    createInternal: (input) => inside(() => createInternalTask(context, input)),
    get: (taskId) =>
      inside(async () => {
        const read = await readTaskFile(taskFile(context, taskId), taskId);
        if (read === undefined) throw taskNotFound(context, taskId);
        return read.task;
      }),
    find: (taskId) =>
      inside(async () => (await readTaskFile(taskFile(context, taskId), taskId))?.task),
    update: (taskId, changes, updateOptions) =>
      inside(() => updateTask(context, taskId, changes, updateOptions)),
    delete: (taskId) => inside(() => deleteTask(context, taskId)),
    list: (listOptions) => inside(() => listTasks(context, listOptions)),
    addDependency: (blockerId, blockedId) =>
      inside(async () => {
        const [result] = await addDependencies(context, [{ blockerId, blockedId }]);
        return result!;
      }),
    claim: (taskId, agent, claimOptions) =>
      inside(() => claimTask(context, taskId, agent, claimOptions)),
    claimNextAvailable: (agent, claimOptions) =>
      inside(() => claimNextAvailable(context, agent, claimOptions)),
    renewLease: (taskId, agent, leaseMs) =>
      inside(() => renewLease(context, taskId, agent, leaseMs)),
    unassignAgentTasks: (agent, unassignOptions) =>
      inside(() => unassignAgentTasks(context, agent, unassignOptions)),
  };
}
