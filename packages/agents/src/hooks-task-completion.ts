// The TaskCompleted hook as a task store's completion veto: give the result to
// `createTeamTools({ taskHooks })` or `createTaskStore({ hooks })`, and a hook that exits 2
// refuses the completion with its stderr as the reason the model reads.
import type { TaskHooks } from '@muster/tasks';
import type { Hooks, RunHookOptions } from './hooks.js';

/** Options of {@link taskCompletionHooks}. */
export interface TaskCompletionHooksOptions extends Pick<RunHookOptions, 'signal' | 'environment'> {
  /** The team whose tasks these are (the payload's `team_name`). */
  teamName: string;
  /** Receives the notices of hooks that failed or timed out (a TeamEvent `notice`, a log line). */
  onNotice?: (text: string) => void;
}

/**
 * Task hooks whose `beforeComplete` runs the `TaskCompleted` hooks with `task_id`,
 * `task_subject`, `task_description`, `teammate_name` (the completing agent, when known) and
 * `team_name`: a hook that exits 2 vetoes the completion with its stderr as the reason; any
 * other outcome lets it through (failures go to `onNotice`). With no TaskCompleted hook
 * configured nothing is run.
 */
export function taskCompletionHooks(hooks: Hooks, options: TaskCompletionHooksOptions): TaskHooks {
  return {
    beforeComplete: async (task, agent) => {
      if (!hooks.has('TaskCompleted')) return { allow: true };
      const result = await hooks.runHook(
        'TaskCompleted',
        {
          task_id: task.id,
          task_subject: task.subject,
          task_description: task.description,
          ...(agent === undefined ? {} : { teammate_name: agent }),
          team_name: options.teamName,
        },
        {
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          ...(options.environment === undefined ? {} : { environment: options.environment }),
        },
      );
      for (const notice of result.notices) options.onNotice?.(notice);
      return result.blocked ? { allow: false, reason: result.message! } : { allow: true };
    },
  };
}
