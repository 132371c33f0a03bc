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
    description: 'A structured message, JSON-encoded into an inbox entry’s text.',
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

/** Narrows a protocol message union to the member with the given `type`. */
export type ProtocolMessageOfType<Type extends ProtocolMessageType> = Extract<
  ProtocolMessage,
  { type: Type }
>;
