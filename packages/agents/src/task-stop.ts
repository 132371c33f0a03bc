// The `TaskStop` tool (Claude Code 2.1.45's schema): kills a running background agent
// (`shell_id` is accepted as the deprecated name of `task_id`).
import type { Tool, ToolResult } from '@muster/query';
import type { z } from 'zod';
import type { BackgroundAgents } from './background-agent.js';
import { TASK_STOP_INPUT_JSON_SCHEMA, TaskStopInputSchema } from './spawn-tool-schemas.js';

/** Input of `TaskStop`. */
export type TaskStopInput = z.infer<typeof TaskStopInputSchema>;

/** Creates `TaskStop` over `agents`. */
export function createTaskStopTool(agents: BackgroundAgents): Tool<TaskStopInput> {
  return {
    name: 'TaskStop',
    description:
      'Stops a running background agent by its task_id (shell_id is the old name of the same parameter). Its work so far stays in its output file and you get its task notification with status "killed".',
    inputSchema: TaskStopInputSchema,
    inputJsonSchema: TASK_STOP_INPUT_JSON_SCHEMA,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    async call(input): Promise<ToolResult> {
      const taskId = input.task_id ?? input.shell_id;
      if (taskId === undefined || taskId === '') {
        return {
          isError: true,
          content: 'TaskStop needs task_id: the id a background agent launch returned.',
        };
      }
      const current = agents.get(taskId);
      if (current === undefined) {
        const known = agents.list().map((task) => task.taskId);
        return {
          isError: true,
          content: `No background task "${taskId}". ${known.length === 0 ? 'No background agent was started in this session.' : `Known task ids: ${known.join(', ')}.`}`,
        };
      }
      if (current.status !== 'running') {
        return {
          isError: true,
          content: `Task ${taskId} is not running: it already ended (${current.status}).`,
        };
      }
      const task = await agents.stop(taskId, 'Stopped with TaskStop.');
      if (task.status !== 'killed') {
        return {
          isError: true,
          content: `Task ${taskId} ended (${task.status}) before it could be stopped.`,
          data: task,
        };
      }
      return {
        content: JSON.stringify({
          message: `Stopped task ${taskId} (${task.description}).`,
          task_id: taskId,
          task_type: 'local_agent',
        }),
        data: task,
      };
    },
  };
}
