import { z } from 'zod';
import { PermissionModeSchema } from './common.js';

const MetadataInputSchema = z.record(z.string(), z.unknown());

/** TeamCreate: create a team led by the calling agent. */
export const TeamCreateInputSchema = z
  .strictObject({
    /** Requested team name; sanitized, and made unique if taken. */
    team_name: z.string().trim().min(1, { message: 'team_name must not be empty' }),
    /** What the team is for. */
    description: z.string().optional(),
    /** Agent type recorded for the lead (default `team-lead`). */
    agent_type: z.string().optional(),
  })
  .meta({ id: 'TeamCreateInput', description: 'Input of the TeamCreate tool.' });
export type TeamCreateInput = z.infer<typeof TeamCreateInputSchema>;

/** TeamDelete: delete the caller's team (takes no input). */
export const TeamDeleteInputSchema = z
  .strictObject({})
  .meta({ id: 'TeamDeleteInput', description: 'Input of the TeamDelete tool (none).' });
export type TeamDeleteInput = z.infer<typeof TeamDeleteInputSchema>;

/** The kinds of SendMessage call. */
export const SEND_MESSAGE_TYPES = [
  'message',
  'broadcast',
  'shutdown_request',
  'shutdown_response',
  'plan_approval_response',
] as const;

/**
 * SendMessage: message a teammate, broadcast, or answer a protocol request. The shape is
 * Claude Code's (one flat object); combinations that make no sense are refused with a reason.
 */
export const SendMessageInputSchema = z
  .strictObject({
    /** What kind of message this is. */
    type: z.enum(SEND_MESSAGE_TYPES),
    /** Agent name to send to (`message`, `shutdown_request`, `plan_approval_response`). */
    recipient: z.string().optional(),
    /** The text; for responses, the reason (shutdown) or feedback (plan). */
    content: z.string().optional(),
    /** 5–10 word preview shown in UIs (`message`, `broadcast`). */
    summary: z.string().optional(),
    /** The request being answered (`shutdown_response`, `plan_approval_response`). */
    request_id: z.string().optional(),
    /** Whether the request is approved (`shutdown_response`, `plan_approval_response`). */
    approve: z.boolean().optional(),
  })
  .superRefine((input, context) => {
    const need = (field: keyof typeof input, why: string) => {
      const value = input[field];
      if (value === undefined || (typeof value === 'string' && value.trim() === '')) {
        context.addIssue({ code: 'custom', path: [field], message: why });
      }
    };
    switch (input.type) {
      case 'message':
        need('recipient', 'a message needs a recipient (an agent name in the team)');
        need('content', 'a message needs content');
        break;
      case 'broadcast':
        need('content', 'a broadcast needs content');
        if (input.recipient !== undefined) {
          context.addIssue({
            code: 'custom',
            path: ['recipient'],
            message: 'a broadcast goes to every member: drop recipient, or use type "message"',
          });
        }
        break;
      case 'shutdown_request':
        need('recipient', 'a shutdown_request needs the recipient to shut down');
        break;
      case 'shutdown_response':
        need('request_id', 'a shutdown_response needs the request_id of the shutdown_request');
        need('approve', 'a shutdown_response needs approve: true or false');
        if (input.approve === false) {
          need('content', 'rejecting a shutdown needs a reason in content');
        }
        break;
      case 'plan_approval_response':
        need('request_id', 'a plan_approval_response needs the request_id of the plan request');
        need('recipient', 'a plan_approval_response needs the recipient (the teammate)');
        need('approve', 'a plan_approval_response needs approve: true or false');
        if (input.approve === false) {
          need('content', 'rejecting a plan needs feedback in content saying what to change');
        }
        break;
    }
  })
  .meta({ id: 'SendMessageInput', description: 'Input of the SendMessage tool.' });
export type SendMessageInput = z.infer<typeof SendMessageInputSchema>;

/** TaskCreate: add a task to the team's list. */
export const TaskCreateInputSchema = z
  .strictObject({
    /** Short imperative title. */
    subject: z.string().trim().min(1, { message: 'subject must not be empty' }),
    /** What needs doing. */
    description: z.string(),
    /** Present-continuous form shown while in progress. */
    activeForm: z.string().optional(),
    /** Free-form data stored with the task. */
    metadata: MetadataInputSchema.optional(),
  })
  .meta({ id: 'TaskCreateInput', description: 'Input of the TaskCreate tool.' });
export type TaskCreateInput = z.infer<typeof TaskCreateInputSchema>;

/** TaskGet: read one task. */
export const TaskGetInputSchema = z
  .strictObject({
    /** Id of the task. */
    taskId: z.string().min(1, { message: 'taskId must not be empty' }),
  })
  .meta({ id: 'TaskGetInput', description: 'Input of the TaskGet tool.' });
export type TaskGetInput = z.infer<typeof TaskGetInputSchema>;

/** TaskUpdate: change a task's fields, status, owner or dependencies; `deleted` removes it. */
export const TaskUpdateInputSchema = z
  .strictObject({
    /** Id of the task. */
    taskId: z.string().min(1, { message: 'taskId must not be empty' }),
    /** New subject. */
    subject: z.string().optional(),
    /** New description. */
    description: z.string().optional(),
    /** New present-continuous form. */
    activeForm: z.string().optional(),
    /** New status; `deleted` removes the task file. */
    status: z
      .union([z.enum(['pending', 'in_progress', 'completed']), z.literal('deleted')])
      .optional(),
    /** Ids of tasks this one blocks (added to both tasks). */
    addBlocks: z.array(z.string()).optional(),
    /** Ids of tasks this one waits for (added to both tasks). */
    addBlockedBy: z.array(z.string()).optional(),
    /** New owner (agent name); an empty string unassigns. */
    owner: z.string().optional(),
    /** Keys to merge into the task's metadata (`null` removes a key). */
    metadata: MetadataInputSchema.optional(),
  })
  .superRefine((input, context) => {
    for (const field of ['addBlocks', 'addBlockedBy'] as const) {
      if (input[field]?.includes(input.taskId)) {
        context.addIssue({
          code: 'custom',
          path: [field],
          message: `task ${input.taskId} cannot depend on itself: remove it from ${field}`,
        });
      }
    }
  })
  .meta({ id: 'TaskUpdateInput', description: 'Input of the TaskUpdate tool.' });
export type TaskUpdateInput = z.infer<typeof TaskUpdateInputSchema>;

/** TaskList: list the team's tasks (takes no input). */
export const TaskListInputSchema = z
  .strictObject({})
  .meta({ id: 'TaskListInput', description: 'Input of the TaskList tool (none).' });
export type TaskListInput = z.infer<typeof TaskListInputSchema>;

/** Isolation options for a spawned agent. */
export const AGENT_ISOLATION_MODES = ['worktree'] as const;

/** The spawn tool (`Task` in Claude Code 2.1.45): start a subagent or, with name + team_name, a teammate. */
export const AgentInputSchema = z
  .strictObject({
    /** 3–5 word description of the work. */
    description: z.string().min(1, { message: 'description must not be empty' }),
    /** The agent's instructions; a teammate's first turn. */
    prompt: z.string().min(1, { message: 'prompt must not be empty' }),
    /** Agent definition to use, e.g. `general-purpose`. */
    subagent_type: z.string().min(1, { message: 'subagent_type must not be empty' }),
    /** Model alias; absent inherits the parent's model. */
    model: z.enum(['sonnet', 'opus', 'haiku']).optional(),
    /** Agent id of an earlier agent to resume. */
    resume: z.string().optional(),
    /** Run without waiting for the result. */
    run_in_background: z.boolean().optional(),
    /** Upper bound on model turns. */
    max_turns: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
    /** Teammate name (with team_name: spawns a teammate). */
    name: z.string().optional(),
    /** Team to join (with name: spawns a teammate). */
    team_name: z.string().optional(),
    /** Permission mode for the new agent. */
    mode: PermissionModeSchema.optional(),
    /** `worktree`: run the agent in its own git worktree. */
    isolation: z.enum(AGENT_ISOLATION_MODES).optional(),
  })
  .superRefine((input, context) => {
    if ((input.name === undefined) !== (input.team_name === undefined)) {
      context.addIssue({
        code: 'custom',
        path: [input.name === undefined ? 'name' : 'team_name'],
        message: 'a teammate needs both name and team_name; a plain subagent needs neither',
      });
    }
    if (input.resume !== undefined && input.team_name !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['resume'],
        message: 'resume continues an earlier subagent and cannot be combined with team_name',
      });
    }
  })
  .meta({ id: 'AgentInput', description: 'Input of the spawn tool (Task / Agent).' });
export type AgentInput = z.infer<typeof AgentInputSchema>;

/** Tool names as the model sees them (Claude Code 2.1.45 calls the spawn tool `Task`). */
export const TOOL_NAMES = [
  'TeamCreate',
  'TeamDelete',
  'SendMessage',
  'TaskCreate',
  'TaskGet',
  'TaskUpdate',
  'TaskList',
  'Task',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
