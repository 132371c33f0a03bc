import { z } from 'zod';
import {
  IdleNotificationSchema,
  ModeSetRequestSchema,
  PlanApprovalRequestSchema,
  PlanApprovalResponseSchema,
  ShutdownApprovedSchema,
  ShutdownRejectedSchema,
  ShutdownRequestSchema,
  TaskAssignmentSchema,
  TaskCompletedSchema,
} from './messages.js';
import {
  PermissionRequestSchema,
  PermissionResponseSchema,
  SandboxPermissionRequestSchema,
  SandboxPermissionResponseSchema,
  TeamPermissionUpdateSchema,
} from './permission.js';

/** Every structured message agents exchange, told apart by `type`. */
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
      "Any structured message agents exchange, told apart by type. It travels JSON-encoded (no spaces) in an inbox entry's text; text that does not parse as one of these is free text, never an error.",
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

/** The schema of each protocol message, by its `type`. */
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
