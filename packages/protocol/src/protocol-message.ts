import { z } from 'zod';
import {
  IdleNotificationSchema,
  IdleNotificationV1Schema,
  ModeSetRequestSchema,
  PlanApprovalRequestSchema,
  PlanApprovalResponseSchema,
  PlanApprovalResponseV1Schema,
  ShutdownApprovedSchema,
  ShutdownRejectedSchema,
  ShutdownRequestSchema,
  TaskAssignmentSchema,
  TaskCompletedSchema,
} from './messages.js';
import {
  PermissionRequestSchema,
  PermissionResponseSchema,
  PermissionResponseV1Schema,
  SandboxPermissionRequestSchema,
  SandboxPermissionResponseSchema,
  TeamPermissionUpdateSchema,
} from './permission.js';

/** The message union as published in `schemas/v1` (Claude Code 2.1.45); kept byte for byte. */
export const ProtocolMessageV1Schema = z
  .discriminatedUnion('type', [
    IdleNotificationV1Schema,
    ShutdownRequestSchema,
    ShutdownApprovedSchema,
    ShutdownRejectedSchema,
    PlanApprovalRequestSchema,
    PlanApprovalResponseV1Schema,
    PermissionRequestSchema,
    PermissionResponseV1Schema,
    SandboxPermissionRequestSchema,
    SandboxPermissionResponseSchema,
    TaskAssignmentSchema,
    TaskCompletedSchema,
    ModeSetRequestSchema,
    TeamPermissionUpdateSchema,
  ])
  .meta({
    id: 'ProtocolMessage',
    description:
      "Any structured message agents exchange, told apart by type. It travels JSON-encoded (no spaces) in an inbox entry's text; text that does not parse as one of these is free text, never an error.",
  });

/**
 * Every structured message agents exchange, told apart by `type`, in either dialect (the
 * v2 fields of Claude Code 2.1.330 included).
 */
export const ProtocolMessageSchema = z
  .discriminatedUnion('type', [
    IdleNotificationSchema,
    ShutdownRequestSchema,
    ShutdownApprovedSchema,
    ShutdownRejectedSchema,
    PlanApprovalRequestSchema,
    PlanApprovalResponseSchema,
    PermissionRequestSchema,
    PermissionResponseSchema,
    SandboxPermissionRequestSchema,
    SandboxPermissionResponseSchema,
    TaskAssignmentSchema,
    TaskCompletedSchema,
    ModeSetRequestSchema,
    TeamPermissionUpdateSchema,
  ])
  .meta({
    id: 'ProtocolMessage',
    description:
      'Any structured message agents exchange, told apart by type, in either dialect. It travels JSON-encoded (no spaces) in an inbox entry\'s text (in v2 the entry\'s envelope type stays "message"); text that does not parse as one of these is free text, never an error.',
  });
export type ProtocolMessage = z.infer<typeof ProtocolMessageSchema>;

/** The `type` values of every protocol message. */
export const PROTOCOL_MESSAGE_TYPES = [
  'idle_notification',
  'shutdown_request',
  'shutdown_approved',
  'shutdown_rejected',
  'plan_approval_request',
  'plan_approval_response',
  'permission_request',
  'permission_response',
  'sandbox_permission_request',
  'sandbox_permission_response',
  'task_assignment',
  'task_completed',
  'mode_set_request',
  'team_permission_update',
] as const;
export type ProtocolMessageType = (typeof PROTOCOL_MESSAGE_TYPES)[number];

/** The schema of each protocol message as published in `schemas/v1`, by its `type`. */
export const PROTOCOL_MESSAGE_SCHEMAS_V1 = {
  idle_notification: IdleNotificationV1Schema,
  shutdown_request: ShutdownRequestSchema,
  shutdown_approved: ShutdownApprovedSchema,
  shutdown_rejected: ShutdownRejectedSchema,
  plan_approval_request: PlanApprovalRequestSchema,
  plan_approval_response: PlanApprovalResponseV1Schema,
  permission_request: PermissionRequestSchema,
  permission_response: PermissionResponseV1Schema,
  sandbox_permission_request: SandboxPermissionRequestSchema,
  sandbox_permission_response: SandboxPermissionResponseSchema,
  task_assignment: TaskAssignmentSchema,
  task_completed: TaskCompletedSchema,
  mode_set_request: ModeSetRequestSchema,
  team_permission_update: TeamPermissionUpdateSchema,
} as const satisfies Record<ProtocolMessageType, z.ZodType>;

/** The schema of each protocol message, by its `type`, in either dialect (what readers use). */
export const PROTOCOL_MESSAGE_SCHEMAS = {
  idle_notification: IdleNotificationSchema,
  shutdown_request: ShutdownRequestSchema,
  shutdown_approved: ShutdownApprovedSchema,
  shutdown_rejected: ShutdownRejectedSchema,
  plan_approval_request: PlanApprovalRequestSchema,
  plan_approval_response: PlanApprovalResponseSchema,
  permission_request: PermissionRequestSchema,
  permission_response: PermissionResponseSchema,
  sandbox_permission_request: SandboxPermissionRequestSchema,
  sandbox_permission_response: SandboxPermissionResponseSchema,
  task_assignment: TaskAssignmentSchema,
  task_completed: TaskCompletedSchema,
  mode_set_request: ModeSetRequestSchema,
  team_permission_update: TeamPermissionUpdateSchema,
} as const satisfies Record<ProtocolMessageType, z.ZodType>;

/** Narrows a protocol message union to the member with the given `type`. */
export type ProtocolMessageOfType<Type extends ProtocolMessageType> = Extract<
  ProtocolMessage,
  { type: Type }
>;
