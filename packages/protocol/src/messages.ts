import { z } from 'zod';
import {
  BackendTypeSchema,
  IsoTimestampSchema,
  PermissionModeSchema,
  SHA256_HEX_PATTERN,
} from './common.js';

const sentAt = (what = 'When it was sent.') =>
  IsoTimestampSchema.describe(`${what} ISO-8601 with milliseconds and Z.`);

/** `idle_notification` as published in `schemas/v1` (Claude Code 2.1.45); kept byte for byte. */
export const IdleNotificationV1Schema = z
  .looseObject({
    /** Always `idle_notification`. */
    type: z.literal('idle_notification'),
    /** Name of the teammate that went idle. */
    from: z.string().min(1).describe('Name of the teammate that went idle.'),
    /** When it went idle. */
    timestamp: sentAt('When it went idle.'),
    /** Why it is idle, e.g. `available`. */
    idleReason: z
      .string()
      .optional()
      .describe('Why it is idle: "available" (turn finished), "interrupted" or "failed".'),
    /** What it did in the turn that just ended. */
    summary: z.string().optional().describe('What it did in the turn that just ended.'),
    /** Task it just finished, if any. */
    completedTaskId: z.string().optional().describe('Id of the task it just finished, if any.'),
    /** How that task ended, e.g. `success` or `failed`. */
    completedStatus: z
      .string()
      .optional()
      .describe('How that task ended, e.g. "success" or "failed".'),
    /** Why it failed, when it did. */
    failureReason: z.string().optional().describe('Why it failed, when it did.'),
  })
  .meta({
    id: 'IdleNotification',
    description:
      'Teammate → lead after every turn: the teammate is idle and waiting for work. Also serves as a liveness signal.',
  });

const tokenCount = (what: string) => z.number().int().nonnegative().describe(what);

/** A teammate's model token usage so far, as muster counts it (`idle_notification.tokenUsage`). */
export const IdleTokenUsageSchema = z.looseObject({
  /** Uncached input tokens. */
  inputTokens: tokenCount('Uncached input tokens.'),
  /** Generated tokens. */
  outputTokens: tokenCount('Generated tokens.'),
  /** Input tokens written to the prompt cache. */
  cacheCreationInputTokens: tokenCount('Input tokens written to the prompt cache.'),
  /** Input tokens read from the prompt cache. */
  cacheReadInputTokens: tokenCount('Input tokens read from the prompt cache.'),
});
/** A teammate's token usage so far. */
export type IdleTokenUsage = z.infer<typeof IdleTokenUsageSchema>;

/** The longest `result` Claude Code 2.1.330 sends before cutting it (plus a marker). */
export const IDLE_RESULT_MAXIMUM_CHARACTERS = 4000;

/**
 * Teammate → lead after every turn: the teammate is waiting for work. Claude Code 2.1.330
 * adds `result`, the teammate's last text.
 */
export const IdleNotificationSchema = IdleNotificationV1Schema.extend({
  /** The teammate's last text in the turn (Claude Code 2.1.330); cut at 4000 characters. */
  result: z
    .string()
    .optional()
    .describe(
      'The teammate\'s last text in the turn (Claude Code 2.1.330), cut at 4000 characters followed by "[result truncated — ask the agent for the rest via SendMessage]".',
    ),
  /**
   * The teammate's model token usage since it started (muster addition: a muster teammate in
   * its own process sends it so the lead can show every teammate's tokens and cost).
   */
  tokenUsage: IdleTokenUsageSchema.optional().describe(
    "muster addition: the teammate's model token usage since it started, summed over every request (sent by muster teammates that run in their own process; Claude Code ignores it).",
  ),
}).meta({
  id: 'IdleNotification',
  description:
    'Teammate → lead after every turn: the teammate is idle and waiting for work; also a liveness signal. Claude Code 2.1.330 adds result (its last text) and, after a message to a peer, a summary "[to <name>] <summary>". muster teammates in their own process add tokenUsage (a muster addition).',
});
export type IdleNotification = z.infer<typeof IdleNotificationSchema>;

/** Lead → teammate: please finish up and exit. */
export const ShutdownRequestSchema = z
  .looseObject({
    /** Always `shutdown_request`. */
    type: z.literal('shutdown_request'),
    /** `shutdown-{epochMs}@{recipient}`; the answer carries it back. */
    requestId: z
      .string()
      .min(1)
      .describe('"shutdown-{epochMs}@{recipient}"; the answer carries it back.'),
    /** Name of the sender (the lead). */
    from: z.string().min(1).describe('Name of the sender (the lead).'),
    /** Why the team is shutting the teammate down. */
    reason: z.string().optional().describe('Why the teammate is being shut down.'),
    /** When it was sent. */
    timestamp: sentAt(),
  })
  .meta({
    id: 'ShutdownRequest',
    description:
      'Lead → teammate: finish up and exit. Answered with shutdown_approved or shutdown_rejected carrying the same requestId. Handled before any other unread message.',
  });
export type ShutdownRequest = z.infer<typeof ShutdownRequestSchema>;

/** Teammate → lead: the shutdown is accepted; the teammate exits after sending this. */
export const ShutdownApprovedSchema = z
  .looseObject({
    /** Always `shutdown_approved`. */
    type: z.literal('shutdown_approved'),
    /** The request being answered. */
    requestId: z.string().min(1).describe('The requestId of the shutdown_request being answered.'),
    /** Name of the teammate. */
    from: z.string().min(1).describe('Name of the teammate.'),
    /** When it was sent. */
    timestamp: sentAt(),
    /** The teammate's pane (`in-process` for in-process teammates), for cleanup. */
    paneId: z
      .string()
      .optional()
      .describe('The teammate\'s pane ("in-process" for in-process teammates), for cleanup.'),
    /** The teammate's backend, for cleanup. */
    backendType: BackendTypeSchema.optional().describe("The teammate's backend, for cleanup."),
  })
  .meta({
    id: 'ShutdownApproved',
    description:
      'Teammate → lead: the shutdown is accepted; the teammate exits right after sending this and the lead removes it from the team config.',
  });
export type ShutdownApproved = z.infer<typeof ShutdownApprovedSchema>;

/** Teammate → lead: not now, with the reason. */
export const ShutdownRejectedSchema = z
  .looseObject({
    /** Always `shutdown_rejected`. */
    type: z.literal('shutdown_rejected'),
    /** The request being answered. */
    requestId: z.string().min(1).describe('The requestId of the shutdown_request being answered.'),
    /** Name of the teammate. */
    from: z.string().min(1).describe('Name of the teammate.'),
    /** Why it keeps running. */
    reason: z.string().min(1).describe('Why it keeps running.'),
    /** When it was sent. */
    timestamp: sentAt(),
  })
  .meta({
    id: 'ShutdownRejected',
    description: 'Teammate → lead: not shutting down yet, with the reason.',
  });
export type ShutdownRejected = z.infer<typeof ShutdownRejectedSchema>;

/** Plan-mode teammate → lead: please approve this plan before I write anything. */
export const PlanApprovalRequestSchema = z
  .looseObject({
    /** Always `plan_approval_request`. */
    type: z.literal('plan_approval_request'),
    /** Name of the teammate. */
    from: z.string().min(1).describe('Name of the teammate.'),
    /** When it was sent. */
    timestamp: sentAt(),
    /** Where the plan file is on disk. */
    planFilePath: z.string().describe('Where the plan file is on disk.'),
    /** The plan itself (Markdown). */
    planContent: z.string().describe('The plan itself (Markdown).'),
    /** `plan_approval-{epochMs}@{agent}@{team}`. */
    requestId: z.string().min(1).describe('"plan_approval-{epochMs}@{agent}@{team}".'),
  })
  .meta({
    id: 'PlanApprovalRequest',
    description:
      'Plan-mode teammate → lead: approve this plan before I change anything. Sent without a color on the envelope. Answered with plan_approval_response.',
  });
export type PlanApprovalRequest = z.infer<typeof PlanApprovalRequestSchema>;

/** `plan_approval_response` as published in `schemas/v1` (Claude Code 2.1.45); kept byte for byte. */
export const PlanApprovalResponseV1Schema = z
  .looseObject({
    /** Always `plan_approval_response`. */
    type: z.literal('plan_approval_response'),
    /** The request being answered. */
    requestId: z
      .string()
      .min(1)
      .describe('The requestId of the plan_approval_request being answered.'),
    /** Whether the teammate may leave plan mode and start. */
    approved: z.boolean().describe('Whether the teammate may leave plan mode and start.'),
    /** What to change; present on rejections. */
    feedback: z.string().optional().describe('What to change; present on rejections.'),
    /** Mode to switch to on approval; never `plan` or `delegate` when muster writes it. */
    permissionMode: PermissionModeSchema.optional().describe(
      "Mode to switch to on approval (the lead's mode; never plan or delegate).",
    ),
    /** When it was sent. */
    timestamp: sentAt(),
  })
  .meta({
    id: 'PlanApprovalResponse',
    description:
      'Lead → teammate: the plan is approved (with the mode to work in) or rejected (with feedback). Only the lead may send it.',
  });

/**
 * Lead → teammate: the plan is approved (with the mode to work in) or rejected (with
 * feedback). Claude Code 2.1.330 approves automatically and adds `planDigest`.
 */
export const PlanApprovalResponseSchema = PlanApprovalResponseV1Schema.extend({
  /** Hex SHA-256 of the approved plan's `planContent` (UTF-8), on approvals. */
  planDigest: z
    .string()
    .regex(SHA256_HEX_PATTERN, {
      message: 'expected a hex SHA-256 digest (64 lowercase hex characters)',
    })
    .optional()
    .describe(
      "Hex SHA-256 of the approved request's planContent (UTF-8); Claude Code 2.1.330 writes it on the approvals it sends automatically.",
    ),
}).meta({
  id: 'PlanApprovalResponse',
  description:
    'Lead → teammate: the plan is approved (with the mode to work in) or rejected (with feedback). Only the lead may send it. Claude Code 2.1.330 approves every request from a plan-mode teammate by itself within about 0.5 s, with planDigest; a later rejection is ignored by the teammate as stale.',
});
export type PlanApprovalResponse = z.infer<typeof PlanApprovalResponseSchema>;

/** Sent to a task's new owner whenever `owner` changes (also on a self-claim). */
export const TaskAssignmentSchema = z
  .looseObject({
    /** Always `task_assignment`. */
    type: z.literal('task_assignment'),
    /** Id of the assigned task. */
    taskId: z.string().min(1).describe('Id of the assigned task.'),
    /** The task's subject. */
    subject: z.string().describe("The task's subject."),
    /** The task's description. */
    description: z.string().describe("The task's description."),
    /** Name of the agent that assigned it. */
    assignedBy: z.string().min(1).describe('Name of the agent that set the owner.'),
    /** When it was assigned. */
    timestamp: sentAt('When it was assigned.'),
  })
  .meta({
    id: 'TaskAssignment',
    description:
      "To a task's new owner whenever the owner changes, including when an agent claims a task for itself.",
  });
export type TaskAssignment = z.infer<typeof TaskAssignmentSchema>;

/** Teammate → lead: a task was marked completed. */
export const TaskCompletedSchema = z
  .looseObject({
    /** Always `task_completed`. */
    type: z.literal('task_completed'),
    /** Name of the teammate. */
    from: z.string().min(1).describe('Name of the teammate.'),
    /** Id of the completed task. */
    taskId: z.string().min(1).describe('Id of the completed task.'),
    /** Its subject. */
    taskSubject: z.string().describe('Its subject.'),
    /** When it was completed. */
    timestamp: sentAt('When it was completed.'),
  })
  .meta({ id: 'TaskCompleted', description: 'Teammate → lead: a task was marked completed.' });
export type TaskCompleted = z.infer<typeof TaskCompletedSchema>;

/** Lead → teammate: switch to this permission mode (the member's config entry follows). */
export const ModeSetRequestSchema = z
  .looseObject({
    /** Always `mode_set_request`. */
    type: z.literal('mode_set_request'),
    /** The mode to switch to. */
    mode: PermissionModeSchema.describe('The mode to switch to.'),
    /** Name of the sender (only the lead may set modes). */
    from: z.string().min(1).describe('Name of the sender; only the lead may set modes.'),
    /** When it was sent (muster always writes it). */
    timestamp: IsoTimestampSchema.optional().describe(
      'When it was sent (muster always writes it). ISO-8601 with milliseconds and Z.',
    ),
  })
  .meta({
    id: 'ModeSetRequest',
    description:
      "Lead → teammate: switch to this permission mode; the member's mode in the team config is updated to match.",
  });
export type ModeSetRequest = z.infer<typeof ModeSetRequestSchema>;
