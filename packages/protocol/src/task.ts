import { z } from 'zod';

/** Lifecycle of a task. (`deleted` exists only as a TaskUpdate input: it removes the file.) */
export const TASK_STATUSES = ['pending', 'in_progress', 'completed'] as const;

/** Where a task is in its lifecycle. */
export const TaskStatusSchema = z.enum(TASK_STATUSES).meta({
  id: 'TaskStatus',
  description:
    'Where a task is in its lifecycle. ("deleted" exists only as a TaskUpdate input: it removes the file.)',
});
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** A task id: the decimal number of its file, as a string (`"7"`). */
export const TaskIdSchema = z
  .string()
  .regex(/^[1-9][0-9]*$/, { message: 'a task id is a positive whole number such as "7"' });

/** Free-form task metadata; `_internal: true` marks muster's/Claude Code's tracking tasks. */
export const TaskMetadataSchema = z.looseObject({
  /** Marks an internal tracking task (one per spawned teammate), hidden from listings. */
  _internal: z
    .boolean()
    .optional()
    .describe('Marks an internal tracking task (one per spawned teammate), hidden from listings.'),
});

/** `tasks/{team}/{id}.json`: one unit of work on the shared task list. */
export const TaskSchema = z
  .looseObject({
    /** The task's id; equals the file name without `.json`. Never changes. */
    id: TaskIdSchema.describe("The task's id; equals the file name without .json. Never changes."),
    /** Short imperative title. */
    subject: z.string().describe('Short imperative title.'),
    /** What needs doing. */
    description: z.string().describe('What needs doing.'),
    /** Present-continuous form shown while in progress, e.g. `Running tests`. */
    activeForm: z
      .string()
      .optional()
      .describe('Present-continuous form shown while in progress, e.g. "Running tests".'),
    /** Where the task is in its lifecycle. */
    status: TaskStatusSchema.describe('Where the task is in its lifecycle.'),
    /** Ids of tasks that cannot start until this one completes. */
    blocks: z
      .array(z.string())
      .describe('Ids of tasks that cannot start until this one completes.'),
    /** Ids of tasks this one waits for. Never cleared when blockers finish. */
    blockedBy: z
      .array(z.string())
      .describe('Ids of tasks this one waits for. Never cleared when blockers complete.'),
    /** Free-form data; `_internal` marks tracking tasks. */
    metadata: TaskMetadataSchema.optional().describe(
      'Free-form data; "_internal": true marks a tracking task hidden from listings.',
    ),
    /** Agent name of the member working on it; removed when unassigned. */
    owner: z
      .string()
      .optional()
      .describe('Agent name of the member working on it; the key is removed when unassigned.'),
  })
  .meta({
    id: 'Task',
    description:
      'tasks/{team}/{id}.json: one task on the shared list. Keys are written in the order id, subject, description, activeForm, status, blocks, blockedBy, metadata; an owner set later is appended. Unknown fields are allowed and must be kept, in place and in order, when the file is rewritten.',
  });
export type Task = z.infer<typeof TaskSchema>;
