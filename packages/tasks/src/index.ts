// Public API of @muster/tasks: the shared task engine. Everything exported here is public.
export { createTaskStore } from './task-store.js';
export type { TaskStore } from './task-store.js';
export type { CompletionDecision, TaskHooks, TaskStoreOptions } from './task-context.js';

export { TaskError } from './task-error.js';
export type { TaskErrorCode } from './task-error.js';

export type { InternalTaskInput } from './create-task.js';
export type { TaskChanges } from './task-changes.js';
export type { TaskDeleteResult, TaskUpdateResult, UpdateTaskOptions } from './update-task.js';
export type { ListedTask, ListTasksOptions, TaskListResult, TaskProblem } from './list-tasks.js';
export type { DependencyResult, TaskDependency } from './dependencies.js';
export { removeTaskDependencies } from './remove-dependency.js';
export type { DependencyRemovalResult } from './remove-dependency.js';
export type {
  ClaimFailure,
  ClaimFailureReason,
  ClaimNextResult,
  ClaimOptions,
  ClaimResult,
  ClaimSuccess,
} from './claim-task.js';
export { TaskLeaseSchema } from './task-leases.js';
export type { TaskLease } from './task-leases.js';
export { formatUnassignNotification } from './unassign-tasks.js';
export type { UnassignOptions, UnassignReason, UnassignResult } from './unassign-tasks.js';

export {
  buildTaskAssignment,
  formatTaskCreatedText,
  formatTaskDetailsText,
  formatTaskListText,
  formatTaskNotFoundText,
  formatTaskUpdatedText,
  TASK_COMPLETED_NUDGE,
} from './format-results.js';
export type { TaskUpdatedTextOptions } from './format-results.js';
