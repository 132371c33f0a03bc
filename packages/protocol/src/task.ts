import { z } from 'zod';

/** Lifecycle of a task. (`deleted` exists only as a TaskUpdate input: it removes the file.) */
export const TASK_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export const TaskStatusSchema = z.enum(TASK_STATUSES).meta({ id: 'TaskStatus' });
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** A task id: the decimal number of its file, as a string (`"7"`). */
export const TaskIdSchema = z
  .string()
  .regex(/^[1-9][0-9]*$/, { message: 'a task id is a positive whole number such as "7"' });

/** Free-form task metadata; `_internal: true` marks muster's/Claude Code's tracking tasks. */
export const TaskMetadataSchema = z.looseObject({
  /** Marks an internal tracking task (one per spawned teammate), hidden from listings. */
  _internal: z.boolean().optional(),
});

/** `tasks/{team}/{id}.json`: one unit of work on the shared task list. */
export const TaskSchema = z
  .looseObject({
    /** The task's id; equals the file name without `.json`. Never changes. */
    id: TaskIdSchema,
    /** Short imperative title. */
    subject: z.string(),
    /** What needs doing. */
    description: z.string(),
    /** Present-continuous form shown while in progress, e.g. `Running tests`. */
    activeForm: z.string().optional(),
    /** Where the task is in its lifecycle. */
    status: TaskStatusSchema,
    /** Ids of tasks that cannot start until this one completes. */
    blocks: z.array(z.string()),
    /** Ids of tasks this one waits for. Never cleared when blockers finish. */
    blockedBy: z.array(z.string()),
    /** Free-form data; `_internal` marks tracking tasks. */
    metadata: TaskMetadataSchema.optional(),
    /** Agent name of the member working on it; removed when unassigned. */
    owner: z.string().optional(),
  })
  .meta({ id: 'Task', description: 'tasks/{team}/{id}.json: one task on the shared list.' });
export type Task = z.infer<typeof TaskSchema>;
