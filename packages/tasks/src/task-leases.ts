import { skipWrite, updateFile } from '@muster/file-lock';
import { formatJsonFile, parseJsonFile, type Task } from '@muster/protocol';
import { z } from 'zod';
import { asTaskError, TaskError } from './task-error.js';
import type { TaskContext } from './task-context.js';
import { readTextOrUndefined } from './task-file.js';

/** One claim that expires unless its owner renews it. */
export const TaskLeaseSchema = z.looseObject({
  /** The agent holding the claim; the lease counts only while it is still the task's owner. */
  owner: z.string().min(1),
  /** Epoch milliseconds after which the task may be claimed by someone else. */
  expiresAt: z.number().int(),
  /** Epoch milliseconds of the claim or the last renewal. */
  renewedAt: z.number().int(),
});
/** One claim that expires unless its owner renews it. */
export type TaskLease = z.infer<typeof TaskLeaseSchema>;

/** `teams/{team}/.muster/task-leases.json`: muster's leases, kept out of the task files. */
const TaskLeaseFileSchema = z.looseObject({
  leases: z.record(z.string(), TaskLeaseSchema),
});
type TaskLeaseFile = z.infer<typeof TaskLeaseFileSchema>;

function parseLeaseFile(text: string, file: string): TaskLeaseFile {
  return parseJsonFile(text, TaskLeaseFileSchema, file);
}

/** Every lease by task id; empty when the lease file does not exist. */
export async function readLeases(context: TaskContext): Promise<Record<string, TaskLease>> {
  const text = await readTextOrUndefined(context.leaseFile);
  if (text === undefined) return {};
  try {
    return parseLeaseFile(text, context.leaseFile).leases;
  } catch (error) {
    throw new TaskError({
      code: 'CORRUPT_FILE',
      message: `The lease file ${context.leaseFile} does not parse: ${(error as Error).message}`,
      cause: error,
      details: { file: context.leaseFile },
    });
  }
}

/** True when the task's current owner holds a lease and it has run out. */
export function isLeaseExpired(lease: TaskLease | undefined, task: Task, now: number): boolean {
  return (
    lease !== undefined &&
    task.owner !== undefined &&
    lease.owner === task.owner &&
    task.status !== 'completed' &&
    now >= lease.expiresAt
  );
}

/** The lease that applies to a task: the one held by its current owner, if any. */
export function activeLeaseOf(lease: TaskLease | undefined, task: Task): TaskLease | undefined {
  return lease !== undefined && task.owner !== undefined && lease.owner === task.owner
    ? lease
    : undefined;
}

/** Records (or replaces) the lease of one task, under the lease file's own lock. */
export async function writeLease(
  context: TaskContext,
  taskId: string,
  owner: string,
  leaseMs: number,
): Promise<TaskLease> {
  const now = context.clock();
  const lease: TaskLease = { owner, expiresAt: now + leaseMs, renewedAt: now };
  try {
    await updateFile<TaskLeaseFile>(context.leaseFile, {
      ...context.lockOptions,
      parse: parseLeaseFile,
      serialize: (value) => formatJsonFile(value),
      update: (current) => ({ ...current, leases: { ...current?.leases, [taskId]: lease } }),
    });
  } catch (error) {
    throw asTaskError(error, `record the lease on task #${taskId} in ${context.leaseFile}`);
  }
  return lease;
}

/** Drops the leases of the given tasks; writes nothing when there is nothing to drop. */
export async function removeLeases(
  context: TaskContext,
  taskIds: readonly string[],
): Promise<void> {
  if (taskIds.length === 0) return;
  if ((await readTextOrUndefined(context.leaseFile)) === undefined) return;
  try {
    await updateFile<TaskLeaseFile>(context.leaseFile, {
      ...context.lockOptions,
      createIfMissing: false,
      parse: parseLeaseFile,
      serialize: (value) => formatJsonFile(value),
      update: (current) => {
        if (current === undefined) return skipWrite;
        if (!taskIds.some((taskId) => taskId in current.leases)) return skipWrite;
        const leases = { ...current.leases };
        for (const taskId of taskIds) delete leases[taskId];
        return { ...current, leases };
      },
    });
  } catch (error) {
    throw asTaskError(error, `remove leases from ${context.leaseFile}`);
  }
}

/** Checks a lease length: a whole number of milliseconds, at least 1. */
export function assertLeaseMs(leaseMs: number): number {
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 1) {
    throw new TaskError({
      code: 'INVALID_INPUT',
      message: `A lease must last a whole number of milliseconds ≥ 1, got ${String(leaseMs)}.`,
      details: { leaseMs },
    });
  }
  return leaseMs;
}
