// Team events for the interactive app's tests, shaped as @muster/agents emits them.
import type { TeamEvent } from '@muster/agents';
import type { ListedTask } from '@muster/tasks';

/** A task as a `tasks` event lists it. */
export interface TestTask {
  id: string;
  subject: string;
  status: 'pending' | 'in_progress' | 'completed';
  owner?: string;
  activeForm?: string;
}

/** The `tasks` event of a list holding `tasks`. */
export function tasksEvent(teamName: string, tasks: readonly TestTask[]): TeamEvent {
  const listed: ListedTask[] = tasks.map((task) => ({
    task: {
      id: task.id,
      subject: task.subject,
      description: `${task.subject}.`,
      ...(task.activeForm === undefined ? {} : { activeForm: task.activeForm }),
      status: task.status,
      blocks: [],
      blockedBy: [],
      ...(task.owner === undefined ? {} : { owner: task.owner }),
    },
    internal: false,
    openBlockers: [],
    available: task.status === 'pending' && task.owner === undefined,
    leaseExpired: false,
  }));
  return { type: 'tasks', teamName, tasks: listed, problems: [], at: 1 };
}
