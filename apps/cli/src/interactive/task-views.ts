// The team's task list as the interactive app shows it: the tasks of a `tasks` event, and each
// teammate's current task (the lowest-id one it owns that is in progress, as the runtime reports).
import type { TeamEvent } from '@muster/agents';
import type { SessionModel, TaskView } from './session-model.js';

/** The tasks of a `tasks` event as the panel shows them. */
export function taskViews(tasks: Extract<TeamEvent, { type: 'tasks' }>['tasks']): TaskView[] {
  return tasks.map(({ task }) => ({
    id: task.id,
    subject: task.subject,
    status: task.status,
    ...(typeof task.owner === 'string' && task.owner !== '' ? { owner: task.owner } : {}),
    ...(typeof task.activeForm === 'string' && task.activeForm !== ''
      ? { activeForm: task.activeForm }
      : {}),
  }));
}

/** The model with each member's current task: the lowest-id task it owns that is in progress. */
export function withCurrentTasks(model: SessionModel): SessionModel {
  return {
    ...model,
    members: model.members.map((member) => {
      const owned = model.tasks.find(
        (task) => task.owner === member.name && task.status === 'in_progress',
      );
      const { task: _previous, ...rest } = member;
      return owned === undefined
        ? rest
        : {
            ...rest,
            task: {
              id: owned.id,
              subject: owned.subject,
              ...(owned.activeForm === undefined ? {} : { activeForm: owned.activeForm }),
            },
          };
    }),
  };
}
