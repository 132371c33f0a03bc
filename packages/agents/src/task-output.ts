// The `TaskOutput` tool (Claude Code 2.1.45's schema): reads a background agent's state and
// result, waiting (with `block`, up to `timeout` ms) for it to end.
import type { Tool, ToolResult } from '@muster/query';
import type { z } from 'zod';
import type { BackgroundAgents, BackgroundAgentTask } from './background-agent.js';
import { TASK_OUTPUT_INPUT_JSON_SCHEMA, TaskOutputInputSchema } from './spawn-tool-schemas.js';

/** Input of `TaskOutput`. */
export type TaskOutputInput = z.infer<typeof TaskOutputInputSchema>;

/** Renders a task for the model: retrieval status, ids, state, progress and result. */
export function formatTaskOutput(
  task: BackgroundAgentTask,
  retrieval: 'success' | 'timeout' | 'not_ready',
): string {
  const lines = [
    `<retrieval_status>${retrieval}</retrieval_status>`,
    `<task_id>${task.taskId}</task_id>`,
    '<task_type>local_agent</task_type>',
    `<status>${task.status}</status>`,
    `<progress>tool uses: ${task.progress.toolUseCount}, output tokens: ${task.progress.cumulativeOutputTokens}${task.progress.recentActivities.length === 0 ? '' : `, recent: ${task.progress.recentActivities.join(' | ')}`}</progress>`,
  ];
  if (task.result !== undefined) lines.push(`<output>${task.result}</output>`);
  lines.push(`<output_file>${task.outputFile}</output_file>`);
  return lines.join('\n');
}

/** Creates `TaskOutput` over `agents`. */
export function createTaskOutputTool(agents: BackgroundAgents): Tool<TaskOutputInput> {
  return {
    name: 'TaskOutput',
    description:
      'Reads the state and result of a background agent started with run_in_background. With block: true (the default) it waits up to timeout milliseconds (default 30000, at most 600000) for the agent to finish; with block: false it answers at once. You are also told automatically when a background agent ends, so prefer doing other work over waiting.',
    inputSchema: TaskOutputInputSchema,
    inputJsonSchema: TASK_OUTPUT_INPUT_JSON_SCHEMA,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async call(input, context): Promise<ToolResult> {
      const current = agents.get(input.task_id);
      if (current === undefined) {
        const known = agents.list().map((task) => task.taskId);
        return {
          isError: true,
          content: `No background task "${input.task_id}". ${known.length === 0 ? 'No background agent was started in this session.' : `Known task ids: ${known.join(', ')}.`}`,
        };
      }
      if (current.status !== 'running' || !input.block) {
        return {
          content: formatTaskOutput(
            current,
            current.status === 'running' ? 'not_ready' : 'success',
          ),
          data: current,
        };
      }
      const task = await agents.wait(input.task_id, input.timeout, context.signal);
      return {
        content: formatTaskOutput(task, task.status === 'running' ? 'timeout' : 'success'),
        data: task,
      };
    },
  };
}
