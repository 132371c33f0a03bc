// TeamCreate and TeamDelete, and createTeamTools, which builds all seven team, task and
// message tools of one agent over @muster/teams, @muster/tasks and @muster/mailbox.
import {
  TeamCreateInputSchema,
  TeamDeleteInputSchema,
  type TeamCreateInput,
  type TeamDeleteInput,
} from '@muster/protocol';
import { ToolError, type AnyTool, type Tool } from '@muster/query';
import { createTeam, deleteTeam, TeamsError } from '@muster/teams';
import { createSendMessageTool } from './send-message-tool.js';
import {
  createTaskCreateTool,
  createTaskGetTool,
  createTaskListTool,
  createTaskUpdateTool,
} from './task-tools.js';
import {
  asToolError,
  createTeamToolsRuntime,
  prettyJson,
  throwIfAborted,
  toolInputJsonSchema,
  type TeamToolsOptions,
  type TeamToolsRuntime,
} from './team-tools-support.js';

/** The seven team, task and message tools of one agent. */
export interface TeamTools {
  /** TeamCreate: the lead creates its team. */
  teamCreate: Tool<TeamCreateInput>;
  /** TeamDelete: the lead removes its team once every teammate is gone. */
  teamDelete: Tool<TeamDeleteInput>;
  /** SendMessage: messages, broadcasts, shutdown requests and answers, plan answers. */
  sendMessage: AnyTool;
  /** TaskCreate: adds a task to the team's list. */
  taskCreate: AnyTool;
  /** TaskGet: one task's details. */
  taskGet: AnyTool;
  /** TaskUpdate: changes a task (status, owner, fields, dependencies, deletion). */
  taskUpdate: AnyTool;
  /** TaskList: the team's tasks, one line each. */
  taskList: AnyTool;
  /** All seven, in the order above (what an agent's tool list takes). */
  all: AnyTool[];
}

const TEAM_CREATE_DESCRIPTION = `Create a team that you lead, with a shared task list and an inbox for each member.

Use it once, before spawning teammates, when work is large enough to split between agents. The name is turned into a folder name (lower case, dashes); if it is taken, a suffix such as "-2" is added, so read team_name in the result and use that. You can lead one team at a time: delete it with TeamDelete before creating another.

Returns JSON with team_name, team_file_path (the team's config file) and lead_agent_id (your id in the team).`;

const TEAM_DELETE_DESCRIPTION = `Delete the team you lead: its config, every inbox and its task list.

Only works once no teammate is left: first ask each teammate to stop (SendMessage with type "shutdown_request") and wait until each has approved. Takes no input; it always acts on your current team.

Returns JSON with success, message and team_name.`;

/** Builds TeamCreate over a shared runtime. */
export function createTeamCreateTool(runtime: TeamToolsRuntime): Tool<TeamCreateInput> {
  return {
    name: 'TeamCreate',
    description: TEAM_CREATE_DESCRIPTION,
    inputSchema: TeamCreateInputSchema,
    inputJsonSchema: toolInputJsonSchema(TeamCreateInputSchema),
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    async call(input, context) {
      throwIfAborted(context, 'TeamCreate');
      const { session, options } = runtime;
      if (session.role !== 'lead') {
        throw new ToolError(
          `${session.agentName} is a teammate of team "${session.teamName()}": only a lead creates teams. Work with your team through SendMessage and the task tools.`,
          'NOT_LEAD',
        );
      }
      const current = session.teamName();
      if (current !== undefined) {
        throw new ToolError(
          `You already lead team "${current}" and a lead leads one team at a time. Keep using it, or delete it with TeamDelete (after every teammate has shut down) before creating another.`,
          'ALREADY_IN_TEAM',
        );
      }
      const created = await asToolError(() =>
        createTeam({
          root: options.root,
          name: input.team_name,
          ...(input.description === undefined ? {} : { description: input.description }),
          ...(input.agent_type === undefined ? {} : { leadAgentType: input.agent_type }),
          ...(options.leadModel === undefined ? {} : { leadModel: options.leadModel }),
          ...(options.leadSessionId === undefined ? {} : { leadSessionId: options.leadSessionId }),
          cwd: context.cwd,
          dialect: options.dialect ?? 'v2',
        }),
      );
      try {
        session.enterTeam(created.teamName);
      } catch (error) {
        // Never leave a team behind that the lead is not in: nobody could delete it.
        await deleteTeam(options.root, created.teamName).catch(() => undefined);
        throw error;
      }
      const result = {
        team_name: created.teamName,
        team_file_path: created.configPath,
        lead_agent_id: created.leadAgentId,
      };
      return { content: prettyJson(result), data: { ...result, dialect: options.dialect ?? 'v2' } };
    },
  };
}

/** Builds TeamDelete over a shared runtime. */
export function createTeamDeleteTool(runtime: TeamToolsRuntime): Tool<TeamDeleteInput> {
  return {
    name: 'TeamDelete',
    description: TEAM_DELETE_DESCRIPTION,
    inputSchema: TeamDeleteInputSchema,
    inputJsonSchema: toolInputJsonSchema(TeamDeleteInputSchema),
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    async call(_input, context) {
      throwIfAborted(context, 'TeamDelete');
      const { session, options } = runtime;
      if (session.role !== 'lead') {
        throw new ToolError(
          `${session.agentName} is a teammate: only the lead of team "${session.teamName()}" can delete it.`,
          'NOT_LEAD',
        );
      }
      const teamName = session.teamName();
      if (teamName === undefined) {
        throw new ToolError(
          'You are not leading a team, so there is nothing to delete (TeamCreate makes one).',
          'NOT_IN_TEAM',
        );
      }
      try {
        // With a liveness check, members whose processes are gone are removed first (force);
        // a member nobody can vouch for still counts as alive and refuses the deletion.
        await deleteTeam(
          options.root,
          teamName,
          options.isMemberAlive === undefined
            ? {}
            : { force: true, isMemberAlive: options.isMemberAlive },
        );
      } catch (error) {
        if (error instanceof TeamsError && error.code === 'TEAM_HAS_MEMBERS') {
          const members = membersOf(error.details);
          const result = {
            success: false,
            message: `Team "${teamName}" still has ${members.length === 0 ? 'teammates' : `teammates: ${members.join(', ')}`}. Ask each to stop with SendMessage (type "shutdown_request"), wait for every approval, then call TeamDelete again.`,
            team_name: teamName,
          };
          return { content: prettyJson(result), isError: true, data: { ...result, members } };
        }
        return asToolError(() => Promise.reject(error));
      }
      session.leaveTeam(teamName);
      runtime.dropMailbox(teamName);
      const result = {
        success: true,
        message: `Team "${teamName}" is gone: its config, inboxes and task list were removed. You are no longer in a team.`,
        team_name: teamName,
      };
      return { content: prettyJson(result), data: result };
    },
  };
}

function membersOf(details: Record<string, unknown>): string[] {
  const members = details.members;
  return Array.isArray(members) ? members.map(String) : [];
}

/**
 * Builds the seven team, task and message tools of one agent (TeamCreate, TeamDelete,
 * SendMessage, TaskCreate, TaskGet, TaskUpdate, TaskList), sharing one {@link TeamSession}
 * and one mailbox per team. Throws `QueryError('INVALID_OPTIONS')` for bad options, and for a
 * v2 lead given no signing mailbox (see {@link TeamToolsOptions.mailboxOptions}).
 */
export function createTeamTools(options: TeamToolsOptions): TeamTools {
  const runtime = createTeamToolsRuntime(options);
  const tools = {
    teamCreate: createTeamCreateTool(runtime),
    teamDelete: createTeamDeleteTool(runtime),
    sendMessage: createSendMessageTool(runtime),
    taskCreate: createTaskCreateTool(runtime),
    taskGet: createTaskGetTool(runtime),
    taskUpdate: createTaskUpdateTool(runtime),
    taskList: createTaskListTool(runtime),
  };
  return { ...tools, all: Object.values(tools) as AnyTool[] };
}
