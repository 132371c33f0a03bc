import type { Task, TaskAssignment } from '@muster/protocol';
import type { ListedTask } from './list-tasks.js';
import type { TaskUpdateResult } from './update-task.js';

/** The nudge Claude Code appends when a teammate completes a task. */
export const TASK_COMPLETED_NUDGE =
  'Task completed. Call TaskList now to find your next available task or see if your work unblocked others.';

/** TaskCreate's result text: `Task #<id> created successfully: <subject>`. */
export function formatTaskCreatedText(task: Pick<Task, 'id' | 'subject'>): string {
  return `Task #${task.id} created successfully: ${task.subject}`;
}

/** Options of {@link formatTaskUpdatedText}. */
export interface TaskUpdatedTextOptions {
  /** Add the "call TaskList" nudge on completion (Claude Code does for teammates). Default true. */
  completionNudge?: boolean;
}

/**
 * TaskUpdate's result text: `Updated task #<id> <fields>` (fields joined by `, `), plus the
 * nudge to call TaskList when the update completed the task.
 */
export function formatTaskUpdatedText(
  result: Pick<TaskUpdateResult, 'taskId' | 'updatedFields' | 'statusChange'>,
  options: TaskUpdatedTextOptions = {},
): string {
  const text = `Updated task #${result.taskId} ${result.updatedFields.join(', ')}`;
  const nudge = options.completionNudge ?? true;
  return nudge && result.statusChange?.to === 'completed'
    ? `${text}\n\n${TASK_COMPLETED_NUDGE}`
    : text;
}

/** The text TaskUpdate and TaskGet show for an unknown id. */
export function formatTaskNotFoundText(taskId: string): string {
  return `Task #${taskId} not found`;
}

/**
 * TaskList's result text: one line per task, `#2 [pending] <subject> (<owner>) [blocked by
 * #1]`, listing only unfinished blockers; internal tasks are left out; `No tasks found` when
 * nothing is left.
 */
export function formatTaskListText(tasks: readonly ListedTask[]): string {
  const lines = tasks
    .filter((entry) => !entry.internal)
    .map(({ task, openBlockers }) => {
      const owner = task.owner === undefined || task.owner === '' ? '' : ` (${task.owner})`;
      const blocked =
        openBlockers.length > 0
          ? ` [blocked by ${openBlockers.map((id) => `#${id}`).join(', ')}]`
          : '';
      return `#${task.id} [${task.status}] ${task.subject}${owner}${blocked}`;
    });
  return lines.length === 0 ? 'No tasks found' : lines.join('\n');
}

/** TaskGet's result text: id and subject, status, description, then the dependencies. */
export function formatTaskDetailsText(task: Task): string {
  const lines = [
    `Task #${task.id}: ${task.subject}`,
    `Status: ${task.status}`,
    `Description: ${task.description}`,
  ];
  if (task.blockedBy.length > 0) {
    lines.push(`Blocked by: ${task.blockedBy.map((id) => `#${id}`).join(', ')}`);
  }
  if (task.blocks.length > 0) lines.push(`Blocks: ${task.blocks.map((id) => `#${id}`).join(', ')}`);
  return lines.join('\n');
}

/**
 * The `task_assignment` payload Claude Code writes to a task's new owner (also on a
 * self-claim). Serialize it with `formatProtocolMessage` into an inbox entry's `text`.
 */
export function buildTaskAssignment(
  task: Pick<Task, 'id' | 'subject' | 'description'>,
  assignedBy: string,
  timestamp: string = new Date().toISOString(),
): TaskAssignment {
  return {
    type: 'task_assignment',
    taskId: task.id,
    subject: task.subject,
    description: task.description,
    assignedBy,
    timestamp,
  };
}
