import { z } from 'zod';
import { PermissionModeSchema } from './common.js';

// Tool inputs are strict (unknown keys are refused) and accept every shape Claude Code
// 2.1.45's own tool schemas accept. Values that make no sense (an empty task id, a
// rejection without a reason) are refused by refinements with a message saying what to
// fix; JSON Schema cannot express those rules, so each schema's description lists them
// and schemas/PROTOCOL.md repeats them.

const MetadataInputSchema = z
  .record(z.string(), z.unknown())
  .describe('Free-form JSON object stored with the task.');

export type RefinementContext = z.core.$RefinementCtx;

/** Adds a custom issue at `field` unless `value` holds something other than whitespace. */
export function requireText(
  context: RefinementContext,
  value: string | undefined,
  field: string,
  message: string,
): void {
  if (value === undefined || value.trim() === '') {
    context.addIssue({ code: 'custom', path: [field], message });
  }
}

/** Adds a custom issue at `field` when `value` is present but blank. */
export function refuseBlank(
  context: RefinementContext,
  value: string | undefined,
  field: string,
  message: string,
): void {
  if (value !== undefined && value.trim() === '') {
    context.addIssue({ code: 'custom', path: [field], message });
  }
}

/** Rules {@link TeamCreateInputSchema} checks beyond its JSON Schema. */
export const TEAM_CREATE_INPUT_RULES: readonly string[] = [
  'team_name must contain something other than whitespace.',
];

/** TeamCreate: create a team led by the calling agent. */
export const TeamCreateInputSchema = z
  .strictObject({
    /** Requested team name; sanitized, and made unique if taken. */
    team_name: z
      .string()
      .describe('Requested team name; sanitized into the folder name and made unique if taken.'),
    /** What the team is for. */
    description: z.string().optional().describe('What the team is for.'),
    /** Agent type recorded for the lead (default `team-lead`). */
    agent_type: z
      .string()
      .optional()
      .describe('Agent type recorded for the lead member (default "team-lead").'),
  })
  .superRefine((input, context) => {
    requireText(context, input.team_name, 'team_name', 'team_name must not be empty');
  })
  .meta({
    id: 'TeamCreateInput',
    description: `Input of the TeamCreate tool. Extra rules (checked by muster, not expressible here): ${TEAM_CREATE_INPUT_RULES.join(' ')}`,
  });
export type TeamCreateInput = z.infer<typeof TeamCreateInputSchema>;

/** TeamDelete: delete the caller's team (takes no input). */
export const TeamDeleteInputSchema = z.strictObject({}).meta({
  id: 'TeamDeleteInput',
  description: "Input of the TeamDelete tool: none (it deletes the caller's team).",
});
export type TeamDeleteInput = z.infer<typeof TeamDeleteInputSchema>;

/** The kinds of SendMessage call. */
export const SEND_MESSAGE_TYPES = [
  'message',
  'broadcast',
  'shutdown_request',
  'shutdown_response',
  'plan_approval_response',
] as const;

/** Rules {@link SendMessageInputSchema} checks beyond its JSON Schema. */
export const SEND_MESSAGE_INPUT_RULES: readonly string[] = [
  'message: recipient and content are required and not blank.',
  'broadcast: content is required and not blank; recipient must be absent.',
  'shutdown_request: recipient is required and not blank.',
  'shutdown_response: request_id and approve are required; approve false requires content (the reason).',
  'plan_approval_response: request_id, recipient and approve are required; approve false requires content (the feedback).',
];

/**
 * SendMessage: message a teammate, broadcast, or answer a protocol request. The shape is
 * Claude Code's (one flat object); combinations that make no sense are refused with a reason.
 */
export const SendMessageInputSchema = z
  .strictObject({
    /** What kind of message this is. */
    type: z.enum(SEND_MESSAGE_TYPES).describe('What kind of message this is.'),
    /** Agent name to send to (`message`, `shutdown_request`, `plan_approval_response`). */
    recipient: z
      .string()
      .optional()
      .describe(
        'Agent name (or name@team) to send to: for message, shutdown_request and plan_approval_response.',
      ),
    /** The text; for responses, the reason (shutdown) or feedback (plan). */
    content: z
      .string()
      .optional()
      .describe(
        'The text; for shutdown_request the reason, for a rejected shutdown the reason, for a rejected plan the feedback.',
      ),
    /** 5–10 word preview shown in UIs (`message`, `broadcast`). */
    summary: z.string().optional().describe('5–10 word preview shown in UIs (message, broadcast).'),
    /** The request being answered (`shutdown_response`, `plan_approval_response`). */
    request_id: z
      .string()
      .optional()
      .describe('The requestId being answered (shutdown_response, plan_approval_response).'),
    /** Whether the request is approved (`shutdown_response`, `plan_approval_response`). */
    approve: z
      .boolean()
      .optional()
      .describe('Whether the request is approved (shutdown_response, plan_approval_response).'),
  })
  .superRefine((input, context) => {
    switch (input.type) {
      case 'message':
        requireText(
          context,
          input.recipient,
          'recipient',
          'a message needs a recipient (an agent name in the team)',
        );
        requireText(context, input.content, 'content', 'a message needs content');
        break;
      case 'broadcast':
        requireText(context, input.content, 'content', 'a broadcast needs content');
        if (input.recipient !== undefined) {
          context.addIssue({
            code: 'custom',
            path: ['recipient'],
            message: 'a broadcast goes to every member: drop recipient, or use type "message"',
          });
        }
        break;
      case 'shutdown_request':
        requireText(
          context,
          input.recipient,
          'recipient',
          'a shutdown_request needs the recipient to shut down',
        );
        break;
      case 'shutdown_response':
        requireText(
          context,
          input.request_id,
          'request_id',
          'a shutdown_response needs the request_id of the shutdown_request',
        );
        if (input.approve === undefined) {
          context.addIssue({
            code: 'custom',
            path: ['approve'],
            message: 'a shutdown_response needs approve: true or false',
          });
        } else if (!input.approve) {
          requireText(
            context,
            input.content,
            'content',
            'rejecting a shutdown needs a reason in content',
          );
        }
        break;
      case 'plan_approval_response':
        requireText(
          context,
          input.request_id,
          'request_id',
          'a plan_approval_response needs the request_id of the plan request',
        );
        requireText(
          context,
          input.recipient,
          'recipient',
          'a plan_approval_response needs the recipient (the teammate)',
        );
        if (input.approve === undefined) {
          context.addIssue({
            code: 'custom',
            path: ['approve'],
            message: 'a plan_approval_response needs approve: true or false',
          });
        } else if (!input.approve) {
          requireText(
            context,
            input.content,
            'content',
            'rejecting a plan needs feedback in content saying what to change',
          );
        }
        break;
    }
  })
  .meta({
    id: 'SendMessageInput',
    description: `Input of the SendMessage tool. Extra rules (checked by muster, not expressible here): ${SEND_MESSAGE_INPUT_RULES.join(' ')}`,
  });
export type SendMessageInput = z.infer<typeof SendMessageInputSchema>;

/** Rules {@link TaskCreateInputSchema} checks beyond its JSON Schema. */
export const TASK_CREATE_INPUT_RULES: readonly string[] = [
  'subject must contain something other than whitespace.',
];

/** TaskCreate: add a task to the team's list. */
export const TaskCreateInputSchema = z
  .strictObject({
    /** Short imperative title. */
    subject: z.string().describe('Short imperative title, e.g. "Run the tests".'),
    /** What needs doing. */
    description: z.string().describe('What needs doing.'),
    /** Present-continuous form shown while in progress. */
    activeForm: z
      .string()
      .optional()
      .describe('Present-continuous form shown while in progress, e.g. "Running the tests".'),
    /** Free-form data stored with the task. */
    metadata: MetadataInputSchema.optional(),
  })
  .superRefine((input, context) => {
    requireText(context, input.subject, 'subject', 'subject must not be empty');
  })
  .meta({
    id: 'TaskCreateInput',
    description: `Input of the TaskCreate tool. Extra rules (checked by muster, not expressible here): ${TASK_CREATE_INPUT_RULES.join(' ')}`,
  });
export type TaskCreateInput = z.infer<typeof TaskCreateInputSchema>;

/** Rules {@link TaskGetInputSchema} checks beyond its JSON Schema. */
export const TASK_GET_INPUT_RULES: readonly string[] = ['taskId must not be blank.'];

/** TaskGet: read one task. */
export const TaskGetInputSchema = z
  .strictObject({
    /** Id of the task. */
    taskId: z.string().describe('Id of the task, e.g. "3".'),
  })
  .superRefine((input, context) => {
    requireText(context, input.taskId, 'taskId', 'taskId must not be empty');
  })
  .meta({
    id: 'TaskGetInput',
    description: `Input of the TaskGet tool. Extra rules (checked by muster, not expressible here): ${TASK_GET_INPUT_RULES.join(' ')}`,
  });
export type TaskGetInput = z.infer<typeof TaskGetInputSchema>;

/** Rules {@link TaskUpdateInputSchema} checks beyond its JSON Schema. */
export const TASK_UPDATE_INPUT_RULES: readonly string[] = [
  'taskId must not be blank.',
  'subject, when given, must not be blank.',
  'addBlocks and addBlockedBy must not contain taskId itself (a task cannot depend on itself).',
];

/** TaskUpdate: change a task's fields, status, owner or dependencies; `deleted` removes it. */
export const TaskUpdateInputSchema = z
  .strictObject({
    /** Id of the task. */
    taskId: z.string().describe('Id of the task to change.'),
    /** New subject. */
    subject: z.string().optional().describe('New subject.'),
    /** New description. */
    description: z.string().optional().describe('New description.'),
    /** New present-continuous form. */
    activeForm: z.string().optional().describe('New present-continuous form.'),
    /** New status; `deleted` removes the task file. */
    status: z
      .union([z.enum(['pending', 'in_progress', 'completed']), z.literal('deleted')])
      .optional()
      .describe('New status; "deleted" removes the task file.'),
    /** Ids of tasks this one blocks (added to both tasks). */
    addBlocks: z
      .array(z.string())
      .optional()
      .describe('Ids of tasks this one blocks (recorded on both tasks).'),
    /** Ids of tasks this one waits for (added to both tasks). */
    addBlockedBy: z
      .array(z.string())
      .optional()
      .describe('Ids of tasks this one waits for (recorded on both tasks).'),
    /** New owner (agent name); an empty string unassigns. */
    owner: z
      .string()
      .optional()
      .describe('New owner (agent name); an empty string removes the owner.'),
    /** Keys to merge into the task's metadata (`null` removes a key). */
    metadata: MetadataInputSchema.optional().describe(
      "Keys to merge into the task's metadata; a null value removes the key.",
    ),
  })
  .superRefine((input, context) => {
    requireText(context, input.taskId, 'taskId', 'taskId must not be empty');
    refuseBlank(context, input.subject, 'subject', 'subject must not be empty when given');
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
  .meta({
    id: 'TaskUpdateInput',
    description: `Input of the TaskUpdate tool. Extra rules (checked by muster, not expressible here): ${TASK_UPDATE_INPUT_RULES.join(' ')}`,
  });
export type TaskUpdateInput = z.infer<typeof TaskUpdateInputSchema>;

/** TaskList: list the team's tasks (takes no input). */
export const TaskListInputSchema = z.strictObject({}).meta({
  id: 'TaskListInput',
  description: "Input of the TaskList tool: none (it lists the caller's team's tasks).",
});
export type TaskListInput = z.infer<typeof TaskListInputSchema>;

/** Isolation options for a spawned agent. */
export const AGENT_ISOLATION_MODES = ['worktree'] as const;

/** Rules {@link AgentInputSchema} checks beyond its JSON Schema. */
export const AGENT_INPUT_RULES: readonly string[] = [
  'prompt and subagent_type must not be blank.',
  "name, when given, must not be blank (with a team, name makes the agent a teammate; team_name defaults to the caller's team).",
  'team_name requires name (a teammate needs a name).',
  'resume cannot be combined with name or team_name (teammates are never resumed).',
];

/** The spawn tool (`Task` in Claude Code 2.1.45): start a subagent or, with name (+ team_name), a teammate. */
export const AgentInputSchema = z
  .strictObject({
    /** 3–5 word description of the work. */
    description: z.string().describe('3–5 word description of the work.'),
    /** The agent's instructions; a teammate's first turn. */
    prompt: z.string().describe("The agent's instructions; a teammate's first turn."),
    /** Agent definition to use, e.g. `general-purpose`. */
    subagent_type: z.string().describe('Agent definition to use, e.g. "general-purpose".'),
    /** Model alias; absent inherits the parent's model. */
    model: z
      .enum(['sonnet', 'opus', 'haiku'])
      .optional()
      .describe("Model alias; absent inherits the parent's model."),
    /** Agent id of an earlier agent to resume. */
    resume: z.string().optional().describe('Agent id of an earlier subagent to resume.'),
    /** Run without waiting for the result. */
    run_in_background: z.boolean().optional().describe('Run without waiting for the result.'),
    /** Upper bound on model turns. */
    max_turns: z
      .number()
      .int()
      .positive()
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .describe('Upper bound on model turns.'),
    /** Teammate name (with a team: spawns a teammate). */
    name: z
      .string()
      .optional()
      .describe(
        'Teammate name: with team_name, or inside a team, spawns a teammate instead of a subagent.',
      ),
    /** Team to join (defaults to the caller's team when name is given). */
    team_name: z
      .string()
      .optional()
      .describe("Team to join; defaults to the caller's team when name is given."),
    /** Permission mode for the new agent. */
    mode: PermissionModeSchema.optional().describe(
      'Permission mode for the new agent ("plan" makes a teammate ask for plan approval).',
    ),
    /** `worktree`: run the agent in its own git worktree. */
    isolation: z
      .enum(AGENT_ISOLATION_MODES)
      .optional()
      .describe('"worktree": run the agent in its own git worktree (muster addition).'),
  })
  .superRefine((input, context) => {
    requireText(context, input.prompt, 'prompt', 'prompt must not be empty');
    requireText(
      context,
      input.subagent_type,
      'subagent_type',
      'subagent_type must not be empty (use e.g. "general-purpose")',
    );
    refuseBlank(context, input.name, 'name', 'name must not be empty when given');
    if (input.team_name !== undefined && input.name === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['name'],
        message: 'team_name spawns a teammate, which needs a name: add name, or drop team_name',
      });
    }
    if (input.resume !== undefined && (input.name !== undefined || input.team_name !== undefined)) {
      context.addIssue({
        code: 'custom',
        path: ['resume'],
        message:
          'resume continues an earlier subagent and cannot be combined with name or team_name (teammates are never resumed)',
      });
    }
  })
  .meta({
    id: 'AgentInput',
    description: `Input of the spawn tool (Task in Claude Code 2.1.45). Extra rules (checked by muster, not expressible here): ${AGENT_INPUT_RULES.join(' ')}`,
  });
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
