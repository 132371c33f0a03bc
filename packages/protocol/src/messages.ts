import { z } from 'zod';
import { BackendTypeSchema, IsoTimestampSchema, PermissionModeSchema } from './common.js';

/** Teammate → lead after every turn: the teammate is waiting for work. */
export const IdleNotificationSchema = z
  .looseObject({
    type: z.literal('idle_notification'),
    /** Name of the teammate that went idle. */
    from: z.string().min(1),
    /** When it went idle. */
    timestamp: IsoTimestampSchema,
    /** Why it is idle, e.g. `available`. */
    idleReason: z.string().optional(),
    /** What it did in the turn that just ended. */
    summary: z.string().optional(),
    /** Task it just finished, if any. */
    completedTaskId: z.string().optional(),
    /** How that task ended, e.g. `success` or `failed`. */
    completedStatus: z.string().optional(),
    /** Why it failed, when it did. */
    failureReason: z.string().optional(),
  })
  .meta({ id: 'IdleNotification', description: 'Teammate → lead after every turn.' });
export type IdleNotification = z.infer<typeof IdleNotificationSchema>;

/** Lead → teammate: please finish up and exit. */
export const ShutdownRequestSchema = z
  .looseObject({
    type: z.literal('shutdown_request'),
    /** `shutdown-{epochMs}@{recipient}`; the answer carries it back. */
    requestId: z.string().min(1),
    /** Name of the sender (the lead). */
    from: z.string().min(1),
    /** Why the team is shutting the teammate down. */
    reason: z.string().optional(),
    /** When it was sent. */
    timestamp: IsoTimestampSchema,
  })
  .meta({ id: 'ShutdownRequest', description: 'Lead → teammate: finish up and exit.' });
export type ShutdownRequest = z.infer<typeof ShutdownRequestSchema>;

/** Teammate → lead: the shutdown is accepted; the teammate exits after sending this. */
export const ShutdownApprovedSchema = z
  .looseObject({
    type: z.literal('shutdown_approved'),
    /** The request being answered. */
    requestId: z.string().min(1),
    /** Name of the teammate. */
    from: z.string().min(1),
    /** When it was sent. */
    timestamp: IsoTimestampSchema,
    /** The teammate's pane (`in-process` for in-process teammates), for cleanup. */
    paneId: z.string().optional(),
    /** The teammate's backend, for cleanup. */
    backendType: BackendTypeSchema.optional(),
  })
  .meta({ id: 'ShutdownApproved', description: 'Teammate → lead: shutting down now.' });
export type ShutdownApproved = z.infer<typeof ShutdownApprovedSchema>;

/** Teammate → lead: not now, with the reason. */
export const ShutdownRejectedSchema = z
  .looseObject({
    type: z.literal('shutdown_rejected'),
    /** The request being answered. */
    requestId: z.string().min(1),
    /** Name of the teammate. */
    from: z.string().min(1),
    /** Why it keeps running. */
    reason: z.string().min(1),
    /** When it was sent. */
    timestamp: IsoTimestampSchema,
  })
  .meta({ id: 'ShutdownRejected', description: 'Teammate → lead: not shutting down yet.' });
export type ShutdownRejected = z.infer<typeof ShutdownRejectedSchema>;

/** Plan-mode teammate → lead: please approve this plan before I write anything. */
export const PlanApprovalRequestSchema = z
  .looseObject({
    type: z.literal('plan_approval_request'),
    /** Name of the teammate. */
    from: z.string().min(1),
    /** When it was sent. */
    timestamp: IsoTimestampSchema,
    /** Where the plan file is on disk. */
    planFilePath: z.string(),
    /** The plan itself (Markdown). */
    planContent: z.string(),
    /** `plan_approval-{epochMs}@{agent}@{team}`. */
    requestId: z.string().min(1),
  })
  .meta({ id: 'PlanApprovalRequest', description: 'Plan-mode teammate → lead.' });
export type PlanApprovalRequest = z.infer<typeof PlanApprovalRequestSchema>;

/** Lead → teammate: the plan is approved (with the mode to work in) or rejected (with feedback). */
export const PlanApprovalResponseSchema = z
  .looseObject({
    type: z.literal('plan_approval_response'),
    /** The request being answered. */
    requestId: z.string().min(1),
    /** Whether the teammate may leave plan mode and start. */
    approved: z.boolean(),
    /** What to change; present on rejections. */
    feedback: z.string().optional(),
    /** Mode to switch to on approval; never `plan` or `delegate` when muster writes it. */
    permissionMode: PermissionModeSchema.optional(),
    /** When it was sent. */
    timestamp: IsoTimestampSchema,
  })
  .meta({ id: 'PlanApprovalResponse', description: 'Lead → teammate: plan approved or not.' });
export type PlanApprovalResponse = z.infer<typeof PlanApprovalResponseSchema>;

/** Sent to a task's new owner whenever `owner` changes (also on a self-claim). */
export const TaskAssignmentSchema = z
  .looseObject({
    type: z.literal('task_assignment'),
    /** Id of the assigned task. */
    taskId: z.string().min(1),
    /** The task's subject. */
    subject: z.string(),
    /** The task's description. */
    description: z.string(),
    /** Name of the agent that assigned it. */
    assignedBy: z.string().min(1),
    /** When it was assigned. */
    timestamp: IsoTimestampSchema,
  })
  .meta({ id: 'TaskAssignment', description: 'To a task’s new owner when owner changes.' });
export type TaskAssignment = z.infer<typeof TaskAssignmentSchema>;

/** Teammate → lead: a task was marked completed. */
export const TaskCompletedSchema = z
  .looseObject({
    type: z.literal('task_completed'),
    /** Name of the teammate. */
    from: z.string().min(1),
    /** Id of the completed task. */
    taskId: z.string().min(1),
    /** Its subject. */
    taskSubject: z.string(),
    /** When it was completed. */
    timestamp: IsoTimestampSchema,
  })
  .meta({ id: 'TaskCompleted', description: 'Teammate → lead: a task was completed.' });
export type TaskCompleted = z.infer<typeof TaskCompletedSchema>;

/** Lead → teammate: switch to this permission mode (the member's config entry follows). */
export const ModeSetRequestSchema = z
  .looseObject({
    type: z.literal('mode_set_request'),
    /** The mode to switch to. */
    mode: PermissionModeSchema,
    /** Name of the sender (only the lead may set modes). */
    from: z.string().min(1),
    /** When it was sent (muster always writes it). */
    timestamp: IsoTimestampSchema.optional(),
  })
  .meta({ id: 'ModeSetRequest', description: 'Lead → teammate: switch permission mode.' });
export type ModeSetRequest = z.infer<typeof ModeSetRequestSchema>;
