// TaskCreate, TaskGet, TaskUpdate and TaskList over the team's task list (@muster/tasks).
// A new owner is told with a task_assignment message, as Claude Code does.
import {
  TaskCreateInputSchema,
  TaskGetInputSchema,
  TaskListInputSchema,
  TaskUpdateInputSchema,
  type Task,
  type TaskCreateInput,
  type TaskGetInput,
  type TaskListInput,
  type TaskUpdateInput,
} from '@muster/protocol';
import { ToolError, type Tool } from '@muster/query';
import {
  buildTaskAssignment,
  createTaskStore,
  formatTaskCreatedText,
  formatTaskDetailsText,
  formatTaskListText,
  formatTaskUpdatedText,
  TaskError,
  type TaskStore,
} from '@muster/tasks';
import {
  asToolError,
  memberNamed,
  readTeamConfig,
  throwIfAborted,
  toolInputJsonSchema,
  type TeamToolsRuntime,
} from './team-tools-support.js';

const TASK_CREATE_DESCRIPTION = `Add a task to your team's shared task list.

Give a short imperative subject ("Fix the login redirect"), a description with what done means, and optionally activeForm, the form shown while it runs ("Fixing the login redirect"). New tasks start pending with no owner; assign one or add dependencies with TaskUpdate. Returns the new task's id.`;

const TASK_GET_DESCRIPTION = `Read one task of your team's list by id: subject, status, owner, description and the tasks it blocks or waits for. Read it before starting work on a task.`;

const TASK_UPDATE_DESCRIPTION = `Change a task of your team's list.

- status: "in_progress" when you start (an unowned task becomes yours), "completed" only when the work is fully done and checked, "deleted" to remove the task.
- owner: a member's name assigns it (the member is told); an empty string removes the owner.
- subject, description, activeForm: new values; metadata: keys merged in (null removes a key).
- addBlocks / addBlockedBy: ids of tasks this one blocks / waits for.

Read the task with TaskGet first if it may have changed.`;

const TASK_LIST_DESCRIPTION = `List your team's tasks, one line each: id, status, subject, owner in parentheses, and the unfinished tasks it waits for. Use it to find work: a pending task with no owner and no open blockers is available; prefer the lowest id.`;

function taskStore(runtime: TeamToolsRuntime, toolName: string): TaskStore {
  const list = runtime.session.taskListName();
  if (list === undefined) {
    throw new ToolError(
      `${toolName} needs a task list, and tasks belong to a team: create one with TeamCreate first.`,
      'NO_TASK_LIST',
    );
  }
  return createTaskStore({
    root: runtime.options.root,
    team: list,
    ...(runtime.options.taskHooks === undefined ? {} : { hooks: runtime.options.taskHooks }),
  });
}

async function findTask(store: TaskStore, taskId: string): Promise<Task> {
  const task = await asToolError(() => store.find(taskId));
  if (task === undefined) {
    throw new ToolError(
      `Task #${taskId} not found in the task list of "${store.team}". Call TaskList to see the ids that exist.`,
      'TASK_NOT_FOUND',
    );
  }
  return task;
}

/** Builds TaskCreate over a shared runtime. */
export function createTaskCreateTool(runtime: TeamToolsRuntime): Tool<TaskCreateInput> {
  return {
    name: 'TaskCreate',
    description: TASK_CREATE_DESCRIPTION,
    inputSchema: TaskCreateInputSchema,
    inputJsonSchema: toolInputJsonSchema(TaskCreateInputSchema),
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    async call(input, context) {
      throwIfAborted(context, 'TaskCreate');
      const store = taskStore(runtime, 'TaskCreate');
      const task = await asToolError(() => store.create(input));
      return { content: formatTaskCreatedText(task), data: { task } };
    },
  };
}

/** Builds TaskGet over a shared runtime. */
export function createTaskGetTool(runtime: TeamToolsRuntime): Tool<TaskGetInput> {
  return {
    name: 'TaskGet',
    description: TASK_GET_DESCRIPTION,
    inputSchema: TaskGetInputSchema,
    inputJsonSchema: toolInputJsonSchema(TaskGetInputSchema),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async call(input, context) {
      throwIfAborted(context, 'TaskGet');
      const store = taskStore(runtime, 'TaskGet');
      const task = await findTask(store, input.taskId.trim());
      const lines = formatTaskDetailsText(task).split('\n');
      if (task.owner !== undefined && task.owner !== '') {
        lines.splice(2, 0, `Owner: ${task.owner}`);
      }
      return { content: lines.join('\n'), data: { task } };
    },
  };
}

/** Builds TaskUpdate over a shared runtime. */
export function createTaskUpdateTool(runtime: TeamToolsRuntime): Tool<TaskUpdateInput> {
  return {
    name: 'TaskUpdate',
    description: TASK_UPDATE_DESCRIPTION,
    inputSchema: TaskUpdateInputSchema,
    inputJsonSchema: toolInputJsonSchema(TaskUpdateInputSchema),
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    async call(input, context) {
      throwIfAborted(context, 'TaskUpdate');
      const store = taskStore(runtime, 'TaskUpdate');
      const taskId = input.taskId.trim();
      const self = runtime.session.agentName;
      const teamName = runtime.session.teamName();
      let owner = input.owner?.trim();
      if (owner !== undefined && owner !== '' && teamName !== undefined) {
        const config = await readTeamConfig(runtime, teamName);
        const member = memberNamed(config, owner);
        if (member === undefined) {
          throw new ToolError(
            `Cannot give task #${taskId} to "${owner}": no such member in team "${teamName}". Members: ${config.members.map((member) => member.name).join(', ')}. Nothing was changed.`,
            'UNKNOWN_OWNER',
          );
        }
        owner = member.name; // "alice@crew" is stored as "alice", as Claude Code does
      }
      await findTask(store, taskId);
      const { taskId: _ignored, ...changes } = input;
      const update = await updateTask(
        store,
        taskId,
        {
          ...changes,
          ...(owner === undefined ? {} : { owner }),
        },
        self,
      );
      if (update.updatedFields.length === 0) {
        return {
          content: `Task #${taskId} is unchanged: every field given already had that value.`,
          data: update,
        };
      }
      let text = formatTaskUpdatedText(update);
      const newOwner = update.ownerChange?.to;
      if (newOwner !== undefined && update.task !== undefined && teamName !== undefined) {
        const assigned = update.task;
        const mailbox = runtime.mailbox(teamName);
        try {
          await mailbox.sendProtocolMessage(newOwner, self, buildTaskAssignment(assigned, self));
        } catch (error) {
          text += `\n\nThe task was updated, but telling ${newOwner} about the assignment failed: ${(error as Error).message}`;
        }
      }
      return { content: text, data: update };
    },
  };
}

async function updateTask(
  store: TaskStore,
  taskId: string,
  changes: Omit<TaskUpdateInput, 'taskId'>,
  agent: string,
) {
  try {
    return await store.update(taskId, changes, { agent });
  } catch (error) {
    if (error instanceof TaskError && error.code === 'TASK_NOT_FOUND') {
      throw new ToolError(
        `Task #${taskId} not found in the task list of "${store.team}" (it may have just been deleted). Call TaskList to see the ids that exist.`,
        'TASK_NOT_FOUND',
      );
    }
    return asToolError(() => Promise.reject(error));
  }
}

/** Builds TaskList over a shared runtime. */
export function createTaskListTool(runtime: TeamToolsRuntime): Tool<TaskListInput> {
  return {
    name: 'TaskList',
    description: TASK_LIST_DESCRIPTION,
    inputSchema: TaskListInputSchema,
    inputJsonSchema: toolInputJsonSchema(TaskListInputSchema),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async call(_input, context) {
      throwIfAborted(context, 'TaskList');
      const store = taskStore(runtime, 'TaskList');
      const listing = await asToolError(() => store.list());
      let text = formatTaskListText(listing.tasks);
      if (listing.problems.length > 0) {
        text += `\n\n${listing.problems.length} task file(s) could not be read and are not listed: ${listing.problems
          .map((problem) => `${problem.file}: ${problem.message}`)
          .join('; ')}`;
      }
      return { content: text, data: listing };
    },
  };
}
