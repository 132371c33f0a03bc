import {
  TaskUpdateInputSchema,
  type Task,
  type TaskStatus,
  type TaskUpdateInput,
} from '@muster/protocol';
import { TaskError } from './task-error.js';

/** The changes TaskUpdate can make (everything but the id, which never changes). */
export interface TaskChanges {
  /** New short title. */
  subject?: string;
  /** New description. */
  description?: string;
  /** New present-continuous form shown while the task runs. */
  activeForm?: string;
  /** New status; `deleted` removes the task file. */
  status?: TaskStatus | 'deleted';
  /** New owner (agent name); `''` or `null` unassigns (the key is removed). */
  owner?: string | null;
  /** Keys merged into the metadata; a `null` value removes that key. */
  metadata?: Record<string, unknown>;
  /** Ids of tasks this one blocks (written on both tasks). */
  addBlocks?: string[];
  /** Ids of tasks this one waits for (written on both tasks). */
  addBlockedBy?: string[];
}

/** What applying the field changes to one version of a task gives. */
export interface ComputedChanges {
  task: Task;
  /** Field names in the order Claude Code reports them (`owner, status`). */
  updatedFields: string[];
  statusChange?: { from: TaskStatus; to: TaskStatus };
  ownerChange?: { from?: string; to?: string };
}

/**
 * Validates TaskUpdate changes with the protocol's tool schema (strict: an `id` or any
 * unknown key is refused). `owner: null` is read as `''` (unassign).
 */
export function parseTaskChanges(
  taskId: string,
  changes: TaskChanges,
  team: string,
): TaskUpdateInput {
  const candidate =
    changes !== null && typeof changes === 'object' && changes.owner === null
      ? { ...changes, owner: '' }
      : changes;
  const result = TaskUpdateInputSchema.safeParse({ ...candidate, taskId });
  if (!result.success) {
    const problems = result.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`)
      .join('; ');
    throw new TaskError({
      code: 'INVALID_INPUT',
      message: `Cannot update task #${taskId} in team ${team}: ${problems}. The id cannot be changed; see TaskUpdate's fields.`,
      details: { taskId, team, issues: result.error.issues },
    });
  }
  return result.data;
}

/**
 * Applies field changes to a task the way Claude Code's TaskUpdate does: a field counts only
 * when it differs; keys stay where they are and new keys go at the end (`owner` appended
 * when first set, removed when unassigned); metadata is merged with `null` removing a key.
 * When `agent` is given and the task is moved to `in_progress` without an owner, the agent
 * becomes the owner. Pure: it does not touch the disk.
 */
export function computeTaskChanges(
  existing: Task,
  input: TaskUpdateInput,
  agent: string | undefined,
): ComputedChanges {
  const task: Task = { ...existing };
  const updatedFields: string[] = [];
  for (const field of ['subject', 'description', 'activeForm'] as const) {
    const value = input[field];
    if (value !== undefined && value !== existing[field]) {
      task[field] = value;
      updatedFields.push(field);
    }
  }
  let ownerChange: ComputedChanges['ownerChange'];
  const setOwner = (owner: string | undefined) => {
    if (owner === existing.owner) return;
    if (owner === undefined) delete task.owner;
    else task.owner = owner;
    updatedFields.push('owner');
    ownerChange = {
      ...(existing.owner === undefined ? {} : { from: existing.owner }),
      ...(owner === undefined ? {} : { to: owner }),
    };
  };
  if (input.owner !== undefined) setOwner(input.owner === '' ? undefined : input.owner);
  if (input.metadata !== undefined) {
    const merged: Record<string, unknown> = { ...existing.metadata };
    for (const [key, value] of Object.entries(input.metadata)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
    task.metadata = merged;
    updatedFields.push('metadata');
  }
  if (
    agent !== undefined &&
    input.status === 'in_progress' &&
    input.owner === undefined &&
    existing.owner === undefined
  ) {
    setOwner(agent);
  }
  let statusChange: ComputedChanges['statusChange'];
  if (
    input.status !== undefined &&
    input.status !== 'deleted' &&
    input.status !== existing.status
  ) {
    task.status = input.status;
    updatedFields.push('status');
    statusChange = { from: existing.status, to: input.status };
  }
  return {
    task,
    updatedFields,
    ...(statusChange === undefined ? {} : { statusChange }),
    ...(ownerChange === undefined ? {} : { ownerChange }),
  };
}
