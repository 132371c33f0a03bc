import type { Task } from '@muster/protocol';
import { readTaskSnapshot } from './list-tasks.js';
import { withTaskLock, type TaskContext } from './task-context.js';
import { TaskError } from './task-error.js';
import { compareTaskIds, readTaskFile, writeTaskFile } from './task-file.js';
import { removeLeases } from './task-leases.js';

/** Why an agent's tasks are being released. */
export type UnassignReason = 'shutdown' | 'terminated';

/** Options of {@link unassignAgentTasks}. */
export interface UnassignOptions {
  /** `terminated` (killed) or `shutdown` (exited normally); changes the lead's message. */
  reason: UnassignReason;
  /** The agent's id (`name@team`); tasks owned under either the name or the id are released. */
  agentId?: string;
}

/** What was released, and the text to tell the lead. */
export interface UnassignResult {
  /** The released tasks as Claude Code reports them: id and subject. */
  unassignedTasks: Array<{ id: string; subject: string }>;
  /** The released tasks as now written (no owner, `pending`). */
  tasks: Task[];
  /** The notification for the lead, in Claude Code's words. */
  notificationMessage: string;
}

/**
 * Releases every unfinished task an agent owns (when it shuts down or dies): each is
 * rewritten under its lock with the `owner` key removed and `status: "pending"`, every other
 * field untouched. Returns the tasks and the lead's notification text.
 */
export async function unassignAgentTasks(
  context: TaskContext,
  agent: string,
  options: UnassignOptions,
): Promise<UnassignResult> {
  if (typeof agent !== 'string' || agent.trim() === '') {
    throw new TaskError({
      code: 'INVALID_INPUT',
      message: `Unassigning needs the agent's name (a non-empty string) in team ${context.team}.`,
      details: { agent, team: context.team },
    });
  }
  if (options?.reason !== 'shutdown' && options?.reason !== 'terminated') {
    throw new TaskError({
      code: 'INVALID_INPUT',
      message: `Unassigning ${agent}'s tasks needs reason "shutdown" or "terminated", got ${JSON.stringify(options?.reason)}.`,
      details: { agent, team: context.team },
    });
  }
  const owners = new Set([agent, ...(options.agentId === undefined ? [] : [options.agentId])]);
  const ownedByAgent = (task: Task) =>
    task.status !== 'completed' && task.owner !== undefined && owners.has(task.owner);
  const snapshot = await readTaskSnapshot(context);
  const candidates = [...snapshot.tasks.values()]
    .filter(ownedByAgent)
    .sort((left, right) => compareTaskIds(left.id, right.id));
  const released: Task[] = [];
  for (const candidate of candidates) {
    const task = await withTaskLock(context, candidate.id, async (file, lock) => {
      const read = await readTaskFile(file, candidate.id);
      if (read === undefined || !ownedByAgent(read.task)) return undefined;
      const unassigned: Task = { ...read.task, status: 'pending' };
      delete unassigned.owner;
      await writeTaskFile(file, unassigned, read.text, lock, context.layout.root);
      return unassigned;
    });
    if (task !== undefined) released.push(task);
  }
  await removeLeases(
    context,
    released.map((task) => task.id),
  );
  return {
    unassignedTasks: released.map((task) => ({ id: task.id, subject: task.subject })),
    tasks: released,
    notificationMessage: formatUnassignNotification(agent, options.reason, released),
  };
}

/** The lead's notification when an agent's tasks were released, in Claude Code's wording. */
export function formatUnassignNotification(
  agent: string,
  reason: UnassignReason,
  released: ReadonlyArray<{ id: string; subject: string }>,
): string {
  const what = reason === 'terminated' ? 'was terminated' : 'has shut down';
  if (released.length === 0) return `${agent} ${what}.`;
  const list = released.map((task) => `#${task.id} "${task.subject}"`).join(', ');
  return (
    `${agent} ${what}. ${released.length} task(s) were unassigned: ${list}. ` +
    'Use TaskList to check availability and TaskUpdate with owner to reassign them to idle teammates.'
  );
}
