import { z } from 'zod';
import { PROTOCOL_MESSAGE_TYPES } from './protocol-message.js';
import { refuseBlank, requireText, type RefinementContext } from './tools.js';

// The team tools of Claude Code 2.1.330 (dialect v2), as it offers them to the model. Like
// the v1 inputs they are strict and accept every shape Claude Code's own schemas accept
// (fixtures/claude-code-2.1.330/tools); refinements refuse what Claude Code refuses when it
// runs the tool, with a message saying what to do instead.

/** Types of protocol frame a SendMessage string must not carry (Claude Code 2.1.330). */
export const SEND_MESSAGE_FORBIDDEN_FRAME_TYPES: readonly string[] = [
  ...PROTOCOL_MESSAGE_TYPES,
  'teammate_terminated',
];

/** Rules {@link SendMessageInputV2Schema} checks beyond its JSON Schema. */
export const SEND_MESSAGE_INPUT_V2_RULES: readonly string[] = [
  'to must not be blank, must not be "*" (broadcast is no longer supported: send one message per recipient) and must not contain "@" (one team per session).',
  'A string message must not be blank and must not be a teammate protocol frame (JSON with a protocol type such as idle_notification, task_assignment or shutdown_rejected): use the structured object form.',
  'shutdown_response: to must be "team-lead"; approve false requires a reason, approve true must not carry one.',
  'plan_approval_response: approve false requires feedback saying what to change.',
];

/** Lead → teammate: ask it to shut down (`message` of SendMessage v2). */
const ShutdownRequestMessageSchema = z.strictObject({
  /** Always `shutdown_request`. */
  type: z.literal('shutdown_request'),
  /** Why the teammate is being shut down. */
  reason: z.string().optional().describe('Why the teammate is being shut down.'),
});

/** Teammate → lead: answer a shutdown request (`message` of SendMessage v2). */
const ShutdownResponseMessageSchema = z.strictObject({
  /** Always `shutdown_response`. */
  type: z.literal('shutdown_response'),
  /** The requestId of the shutdown_request being answered. */
  request_id: z
    .string()
    .min(1)
    .max(300)
    .regex(/^[^\n\r]*$/, { message: 'request_id must be one line' })
    .describe('The requestId of the shutdown_request being answered (one line).'),
  /** Whether the teammate shuts down. */
  approve: z.boolean().describe('Whether the teammate shuts down.'),
  /** Why not; required when approve is false, refused when it is true. */
  reason: z
    .string()
    .optional()
    .describe('Why not: required when approve is false, refused when it is true.'),
});

/** Lead → teammate: answer a plan approval request (`message` of SendMessage v2). */
const PlanApprovalResponseMessageSchema = z.strictObject({
  /** Always `plan_approval_response`. */
  type: z.literal('plan_approval_response'),
  /** The requestId of the plan_approval_request being answered. */
  request_id: z
    .string()
    .min(1)
    .max(300)
    .regex(/^[^\n\r]*$/, { message: 'request_id must be one line' })
    .describe('The requestId of the plan_approval_request being answered (one line).'),
  /** Whether the plan is approved. */
  approve: z.boolean().describe('Whether the plan is approved.'),
  /** What to change; required when approve is false. */
  feedback: z.string().optional().describe('What to change; required when approve is false.'),
});

/** The structured `message` forms of SendMessage v2, told apart by `type`. */
const StructuredSendMessageSchema = z
  .discriminatedUnion('type', [
    ShutdownRequestMessageSchema,
    ShutdownResponseMessageSchema,
    PlanApprovalResponseMessageSchema,
  ])
  .describe(
    'A protocol request or answer: shutdown_request, shutdown_response or plan_approval_response. On disk approve becomes approved and request_id becomes requestId.',
  );

/** Adds a custom issue at `path` unless `value` holds something other than whitespace. */
function requireTextAt(
  context: RefinementContext,
  value: string | undefined,
  path: readonly string[],
  message: string,
): void {
  if (value === undefined || value.trim() === '') {
    context.addIssue({ code: 'custom', path: [...path], message });
  }
}

/** True when `text` is JSON naming a teammate protocol frame type. */
function isProtocolFrame(text: string): boolean {
  if (!text.trimStart().startsWith('{')) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  const type = (parsed as { type?: unknown } | null)?.type;
  return typeof type === 'string' && SEND_MESSAGE_FORBIDDEN_FRAME_TYPES.includes(type);
}

/**
 * SendMessage as Claude Code 2.1.330 offers it: `{to, summary?, message, notify_when_idle?}`,
 * where `message` is plain text or a structured protocol request or answer. No broadcast.
 */
export const SendMessageInputV2Schema = z
  .strictObject({
    /** A teammate's name, `team-lead`, `main` (the lead's conversation) or an agent id. */
    to: z
      .string()
      .max(300)
      .regex(/^[^\n\r]*$/, { message: 'to must be one line' })
      .describe(
        'Recipient, one line of at most 300 characters: a teammate\'s name, "team-lead", "main" (the lead\'s main conversation) or a background agent\'s id.',
      ),
    /** Short preview shown to the recipient (at most 200 characters). */
    summary: z
      .string()
      .max(200)
      .optional()
      .describe('Short preview written to the entry and shown to the recipient (at most 200).'),
    /** Plain text, or a structured protocol request or answer. */
    message: z
      .union([z.string(), StructuredSendMessageSchema])
      .describe('Plain text, or a structured protocol request or answer.'),
    /** Ask for one notice when the recipient session next goes idle or exits. */
    notify_when_idle: z
      .boolean()
      .optional()
      .describe('Ask for one notice when the recipient session next goes idle or exits.'),
  })
  .superRefine((input, context) => {
    requireText(context, input.to, 'to', 'to must name the recipient');
    if (input.to.trim() === '*') {
      context.addIssue({
        code: 'custom',
        path: ['to'],
        message: 'broadcast (to: "*") is no longer supported — send a message per recipient',
      });
    } else if (input.to.includes('@')) {
      context.addIssue({
        code: 'custom',
        path: ['to'],
        message:
          'to must be a plain name without "@team": a session has one team, so address the teammate by name',
      });
    }
    const message = input.message;
    if (typeof message === 'string') {
      requireText(context, message, 'message', 'message must not be empty');
      if (isProtocolFrame(message)) {
        context.addIssue({
          code: 'custom',
          path: ['message'],
          message:
            'message must not be a teammate protocol frame written as text: use the structured object form ({type: "shutdown_request" | "shutdown_response" | "plan_approval_response", …})',
        });
      }
      return;
    }
    if (message.type === 'shutdown_response') {
      if (input.to !== 'team-lead') {
        context.addIssue({
          code: 'custom',
          path: ['to'],
          message: 'a shutdown_response goes to the lead: set to "team-lead"',
        });
      }
      if (message.approve) {
        if (message.reason !== undefined) {
          context.addIssue({
            code: 'custom',
            path: ['message', 'reason'],
            message: 'an approved shutdown_response carries no reason: drop reason',
          });
        }
      } else {
        requireTextAt(
          context,
          message.reason,
          ['message', 'reason'],
          'rejecting a shutdown needs a reason saying why the teammate keeps running',
        );
      }
    } else if (message.type === 'plan_approval_response' && !message.approve) {
      requireTextAt(
        context,
        message.feedback,
        ['message', 'feedback'],
        'rejecting a plan needs feedback saying what to change',
      );
    }
  })
  .meta({
    id: 'SendMessageInput',
    description: `Input of the SendMessage tool of Claude Code 2.1.330. Extra rules (checked by muster, not expressible here): ${SEND_MESSAGE_INPUT_V2_RULES.join(' ')}`,
  });
export type SendMessageInputV2 = z.infer<typeof SendMessageInputV2Schema>;

/** Model aliases the Agent tool of Claude Code 2.1.330 accepts. */
export const AGENT_MODEL_ALIASES_V2 = ['sonnet', 'opus', 'haiku', 'fable'] as const;

/** Effort levels the Agent tool of Claude Code 2.1.330 accepts. */
export const AGENT_EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;

/** Permission modes the Agent tool of Claude Code 2.1.330 accepts (and ignores). */
export const AGENT_MODES_V2 = [
  'acceptEdits',
  'auto',
  'bypassPermissions',
  'default',
  'dontAsk',
  'plan',
] as const;

/** Isolation options of the Agent tool of Claude Code 2.1.330. */
export const AGENT_ISOLATION_MODES_V2 = ['worktree', 'remote'] as const;

/** Names a teammate cannot take (Claude Code 2.1.330 refuses them). */
export const RESERVED_AGENT_NAMES = ['main', 'team-lead', 'user', 'system'] as const;

/** Rules {@link AgentInputV2Schema} checks beyond its JSON Schema. */
export const AGENT_INPUT_V2_RULES: readonly string[] = [
  'description and prompt must not be blank.',
  `name must not be one of ${RESERVED_AGENT_NAMES.join(', ')}.`,
];

/**
 * The spawn tool of Claude Code 2.1.330 (`Agent`; 2.1.45 called it `Task`). A `name` makes
 * a teammate of the session's team; `team_name` and `mode` are accepted and ignored.
 */
export const AgentInputV2Schema = z
  .strictObject({
    /** Short description of the work. */
    description: z.string().describe('Short description of the work.'),
    /** The agent's instructions; a teammate's first turn. */
    prompt: z.string().describe("The agent's instructions; a teammate's first turn."),
    /** Agent definition to use, e.g. `general-purpose`. */
    subagent_type: z
      .string()
      .optional()
      .describe('Agent definition to use, e.g. "general-purpose"; recorded as the agentType.'),
    /** Model alias; absent inherits the lead's model. */
    model: z
      .enum(AGENT_MODEL_ALIASES_V2)
      .optional()
      .describe("Model alias; absent inherits the lead's model."),
    /** Reasoning effort. */
    effort: z.enum(AGENT_EFFORT_LEVELS).optional().describe('Reasoning effort.'),
    /** Teammate name: makes the agent a member of the session team. */
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, {
        message:
          'name must start with a letter or digit and hold at most 64 letters, digits, "_" or "-"',
      })
      .optional()
      .describe(
        'Teammate name (letters, digits, "_" and "-", at most 64): makes the agent a member of the session team. A taken name becomes <name>-2, <name>-3, ….',
      ),
    /** Accepted and ignored: a session has one team. */
    team_name: z
      .string()
      .optional()
      .describe('Accepted and ignored: the teammate always joins the session team.'),
    /** Accepted and ignored; a teammate starts in plan mode when the lead is in plan mode. */
    mode: z
      .enum(AGENT_MODES_V2)
      .optional()
      .describe(
        'Accepted and ignored: a teammate starts in plan mode when the lead is in plan mode at spawn time.',
      ),
    /** `worktree` (own git worktree) or `remote`. */
    isolation: z
      .enum(AGENT_ISOLATION_MODES_V2)
      .optional()
      .describe('"worktree": run the agent in its own git worktree; "remote": run it remotely.'),
  })
  .superRefine((input, context) => {
    requireText(context, input.description, 'description', 'description must not be empty');
    requireText(context, input.prompt, 'prompt', 'prompt must not be empty');
    refuseBlank(context, input.subagent_type, 'subagent_type', 'subagent_type must not be empty');
    if (
      input.name !== undefined &&
      (RESERVED_AGENT_NAMES as readonly string[]).includes(input.name)
    ) {
      context.addIssue({
        code: 'custom',
        path: ['name'],
        message: `"${input.name}" is reserved (${RESERVED_AGENT_NAMES.join(', ')}): choose another teammate name`,
      });
    }
  })
  .meta({
    id: 'AgentInput',
    description: `Input of the Agent tool of Claude Code 2.1.330 (the spawn tool; Task in 2.1.45). Extra rules (checked by muster, not expressible here): ${AGENT_INPUT_V2_RULES.join(' ')}`,
  });
export type AgentInputV2 = z.infer<typeof AgentInputV2Schema>;

/** Team tool names of Claude Code 2.1.330 as the model sees them (no TeamCreate/TeamDelete). */
export const TOOL_NAMES_V2 = [
  'Agent',
  'SendMessage',
  'TaskCreate',
  'TaskGet',
  'TaskUpdate',
  'TaskList',
] as const;
export type ToolNameV2 = (typeof TOOL_NAMES_V2)[number];
