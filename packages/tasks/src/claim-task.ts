import type { HeldLock } from '@muster/file-lock';
import type { Task } from '@muster/protocol';
import { isInternalTask, listTasks, readTaskSnapshot } from './list-tasks.js';
import {
  taskFile,
  taskNotFound,
  withTaskLock,
  withTeamLock,
  type TaskContext,
} from './task-context.js';
import { TaskError } from './task-error.js';
import { readTaskFile, writeTaskFile, type TaskFileRead } from './task-file.js';
import {
  assertLeaseMs,
  isLeaseExpired,
  readLeases,
  removeLeases,
  writeLease,
  type TaskLease,
} from './task-leases.js';

/** Why a claim failed, with the names Claude Code uses. */
export type ClaimFailureReason =
  'task_not_found' | 'already_claimed' | 'already_resolved' | 'blocked' | 'agent_busy';

/** Options of a claim. */
export interface ClaimOptions {
  /**
   * Refuse when the agent already owns another unfinished task (`agent_busy`). The check
   * and the claim then run under the team lock `tasks/{team}/.lock`. Default false.
   */
  checkAgentBusy?: boolean;
  /** Give the claim a lease of this many milliseconds; renew it with `renewLease`. */
  leaseMs?: number;
}

/** A successful claim. */
export interface ClaimSuccess {
  success: true;
  /** The task as written: owner set, status `in_progress`. */
  task: Task;
  /** The owner whose lease had expired, when the claim took the task over. */
  previousOwner?: string;
  /** True when the owner changed (send a `task_assignment`, as Claude Code does). */
  ownerChanged: boolean;
  /** The new lease, when `leaseMs` was given. */
  lease?: TaskLease;
}

/** A refused claim; nothing was written. */
export interface ClaimFailure {
  success: false;
  reason: ClaimFailureReason;
  /** The task as read, when it exists. */
  task?: Task;
  /** For `blocked`: the unfinished blockers. */
  blockedByTasks?: string[];
  /** For `agent_busy`: the agent's other unfinished tasks. */
  busyWithTasks?: string[];
}

/** The result of {@link claimTask}. */
export type ClaimResult = ClaimSuccess | ClaimFailure;

/** The result of {@link claimNextAvailable}: a claim, or nothing left to claim. */
export type ClaimNextResult =
  ClaimResult | { success: false; reason: 'no_available_task'; busyWithTasks?: undefined };

/** Checks an agent name given to a claim. */
export function assertAgentName(agent: string, team: string): string {
  if (typeof agent !== 'string' || agent.trim() === '') {
    throw new TaskError({
      code: 'INVALID_INPUT',
      message: `A claim needs the claiming agent's name (a non-empty string) in team ${team}.`,
      details: { agent, team },
    });
  }
  return agent;
}

/**
 * Claims a task for an agent under the task's lock: refused with `task_not_found`,
 * `already_claimed` (another owner whose lease, if any, has not expired),
 * `already_resolved` (completed), `blocked` (unfinished blockers) or, with
 * `checkAgentBusy`, `agent_busy`. On success the owner is set (appended to the file when
 * new) and the status becomes `in_progress`. A claim over an expired lease takes the task.
 */
export async function claimTask(
  context: TaskContext,
  taskId: string,
  agent: string,
  options: ClaimOptions = {},
): Promise<ClaimResult> {
  const result = await attemptClaim(context, taskId, agent, options, false);
  return result as ClaimResult;
}

/**
 * One claim attempt. With `tryOnly` the task lock is tried once; `'contended'` means
 * another process held it at that moment.
 */
async function attemptClaim(
  context: TaskContext,
  taskId: string,
  agent: string,
  options: ClaimOptions,
  tryOnly: boolean,
): Promise<ClaimResult | 'contended'> {
  const file = taskFile(context, taskId);
  assertAgentName(agent, context.team);
  if (options.leaseMs !== undefined) assertLeaseMs(options.leaseMs);
  // Cheap look without the lock: most losers of a race stop here. A file that does not
  // parse goes on to the locked read, which reports it.
  let glance: TaskFileRead | undefined;
  let unreadable = false;
  try {
    glance = await readTaskFile(file, taskId);
  } catch {
    unreadable = true;
  }
  if (glance === undefined && !unreadable) return { success: false, reason: 'task_not_found' };
  if (glance !== undefined && glance.task.owner !== undefined && glance.task.owner !== agent) {
    const leases = await readLeases(context).catch(() => ({}) as Record<string, TaskLease>);
    if (!isLeaseExpired(leases[taskId], glance.task, context.clock())) {
      return { success: false, reason: 'already_claimed', task: glance.task };
    }
  }
  const claim = async (): Promise<ClaimResult | 'contended'> => {
    try {
      return await withTaskLock(
        context,
        taskId,
        (_file, lock) => claimLocked(context, file, lock, taskId, agent, options),
        tryOnly ? { ...context.lockOptions, deadlineMs: 0 } : undefined,
      );
    } catch (error) {
      if (tryOnly && error instanceof TaskError && error.code === 'LOCK_TIMEOUT') {
        return 'contended';
      }
      throw error;
    }
  };
  return options.checkAgentBusy ? withTeamLock(context, claim) : claim();
}

async function claimLocked(
  context: TaskContext,
  file: string,
  lock: HeldLock,
  taskId: string,
  agent: string,
  options: ClaimOptions,
): Promise<ClaimResult> {
  const read = await readTaskFile(file, taskId);
  if (read === undefined) return { success: false, reason: 'task_not_found' };
  const { task } = read;
  const leases = await readLeases(context);
  const leaseExpired = isLeaseExpired(leases[taskId], task, context.clock());
  if (task.owner !== undefined && task.owner !== agent && !leaseExpired) {
    return { success: false, reason: 'already_claimed', task };
  }
  if (task.status === 'completed') return { success: false, reason: 'already_resolved', task };
  const blockedByTasks = await unfinishedBlockers(context, task);
  if (blockedByTasks.length > 0) return { success: false, reason: 'blocked', task, blockedByTasks };
  if (options.checkAgentBusy) {
    const snapshot = await readTaskSnapshot(context);
    const busyWithTasks = [...snapshot.tasks.values()]
      .filter(
        (other) =>
          other.id !== taskId &&
          other.owner === agent &&
          other.status !== 'completed' &&
          !isInternalTask(other),
      )
      .map((other) => other.id)
      .sort((left, right) => Number(left) - Number(right));
    if (busyWithTasks.length > 0) {
      return { success: false, reason: 'agent_busy', task, busyWithTasks };
    }
  }
  const lease =
    options.leaseMs === undefined
      ? undefined
      : await writeLease(context, taskId, agent, options.leaseMs);
  const claimed: Task = { ...task };
  if (claimed.owner !== agent) claimed.owner = agent;
  if (claimed.status !== 'in_progress') claimed.status = 'in_progress';
  if (claimed.owner !== task.owner || claimed.status !== task.status) {
    await writeTaskFile(file, claimed, read.text, lock, context.layout.root);
  }
  const previousOwner = task.owner !== undefined && task.owner !== agent ? task.owner : undefined;
  if (previousOwner !== undefined && lease === undefined) await removeLeases(context, [taskId]);
  return {
    success: true,
    task: claimed,
    ownerChanged: task.owner !== agent,
    ...(previousOwner === undefined ? {} : { previousOwner }),
    ...(lease === undefined ? {} : { lease }),
  };
}

/** Blockers that exist and are not completed, or whose file does not parse (fail closed). */
async function unfinishedBlockers(context: TaskContext, task: Task): Promise<string[]> {
  const open: string[] = [];
  for (const blockerId of task.blockedBy) {
    let blocker: Task | undefined;
    try {
      blocker = (await readTaskFile(taskFile(context, blockerId), blockerId))?.task;
    } catch {
      open.push(blockerId);
      continue;
    }
    if (blocker !== undefined && blocker.status !== 'completed') open.push(blockerId);
  }
  return open;
}

/** Rounds in which {@link claimNextAvailable} passes over locked candidates before waiting. */
const TRY_ONLY_ROUNDS = 3;

/**
 * Claims the lowest-id available task for an agent (internal tasks never). Tries the
 * available tasks in id order; one whose lock another process holds at that moment is
 * passed over (it is most likely being claimed) and retried in a later round, waiting for
 * the lock from the fourth round on. Stops at `agent_busy`; returns `no_available_task`
 * when nothing is left.
 */
export async function claimNextAvailable(
  context: TaskContext,
  agent: string,
  options: ClaimOptions = {},
): Promise<ClaimNextResult> {
  assertAgentName(agent, context.team);
  if (options.leaseMs !== undefined) assertLeaseMs(options.leaseMs);
  for (let round = 1; ; round += 1) {
    const { tasks } = await listTasks(context);
    let contended = false;
    for (const candidate of tasks) {
      if (!candidate.available) continue;
      const result = await attemptClaim(
        context,
        candidate.task.id,
        agent,
        options,
        round <= TRY_ONLY_ROUNDS,
      );
      if (result === 'contended') {
        contended = true;
        continue;
      }
      if (result.success || result.reason === 'agent_busy') return result;
    }
    if (!contended) return { success: false, reason: 'no_available_task' };
  }
}

/**
 * Extends the lease of a task the agent still owns to `leaseMs` from now. Throws
 * `NOT_OWNER` when another agent has taken it (after the lease ran out) or it is completed.
 */
export async function renewLease(
  context: TaskContext,
  taskId: string,
  agent: string,
  leaseMs: number,
): Promise<TaskLease> {
  assertAgentName(agent, context.team);
  assertLeaseMs(leaseMs);
  const taskPath = taskFile(context, taskId);
  if ((await readTaskFile(taskPath, taskId)) === undefined) throw taskNotFound(context, taskId);
  return withTaskLock(context, taskId, async (file) => {
    const read = await readTaskFile(file, taskId);
    if (read === undefined) throw taskNotFound(context, taskId);
    if (read.task.owner !== agent || read.task.status === 'completed') {
      throw new TaskError({
        code: 'NOT_OWNER',
        message:
          read.task.status === 'completed'
            ? `Task #${taskId} in team ${context.team} is completed; there is no lease left to renew.`
            : `${agent} no longer owns task #${taskId} in team ${context.team} (owner: ${read.task.owner ?? 'none'}). Stop working on it and claim another task.`,
        details: { taskId, agent, owner: read.task.owner, team: context.team },
      });
    }
    return writeLease(context, taskId, agent, leaseMs);
  });
}
