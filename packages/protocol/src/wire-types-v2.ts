import type { z } from 'zod';
import { BackendTypeSchema, PermissionModeSchema } from './common.js';
import { InboxMessageV2Schema, InboxV2Schema } from './mailbox.js';
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
import { PROTOCOL_MESSAGE_SCHEMAS, ProtocolMessageSchema } from './protocol-message.js';
import { TaskSchema, TaskStatusSchema } from './task.js';
import {
  LeadProcessSchema,
  TEAM_CONFIG_V2_RULES,
  TeamAllowedPathSchema,
  TeamConfigV2Schema,
  TeamMemberV2Schema,
} from './team.js';
import {
  TASK_CREATE_INPUT_RULES,
  TASK_GET_INPUT_RULES,
  TASK_UPDATE_INPUT_RULES,
  TaskCreateInputSchema,
  TaskGetInputSchema,
  TaskListInputSchema,
  TaskUpdateInputSchema,
} from './tools.js';
import {
  AGENT_INPUT_V2_RULES,
  AgentInputV2Schema,
  SEND_MESSAGE_INPUT_V2_RULES,
  SendMessageInputV2Schema,
  type ToolNameV2,
} from './tools-v2.js';

/**
 * Every wire type of dialect v2 (Claude Code 2.1.330, and muster's teams with
 * `protocolVersion: 2`) by name. Each has a JSON Schema at `schemas/v2/{name}.schema.json`.
 * Names match v1 where the thing is the same (`InboxMessage` is the v2 entry, with `msg_id`).
 */
export const WIRE_SCHEMAS_V2 = {
  TeamConfig: TeamConfigV2Schema,
  TeamMember: TeamMemberV2Schema,
  TeamAllowedPath: TeamAllowedPathSchema,
  LeadProcess: LeadProcessSchema,
  InboxMessage: InboxMessageV2Schema,
  Inbox: InboxV2Schema,
  Task: TaskSchema,
  IdleNotification: IdleNotificationSchema,
  ShutdownRequest: ShutdownRequestSchema,
  ShutdownApproved: ShutdownApprovedSchema,
  ShutdownRejected: ShutdownRejectedSchema,
  PlanApprovalRequest: PlanApprovalRequestSchema,
  PlanApprovalResponse: PlanApprovalResponseSchema,
  PermissionRequest: PermissionRequestSchema,
  PermissionResponse: PermissionResponseSchema,
  SandboxPermissionRequest: SandboxPermissionRequestSchema,
  SandboxPermissionResponse: SandboxPermissionResponseSchema,
  TaskAssignment: TaskAssignmentSchema,
  TaskCompleted: TaskCompletedSchema,
  ModeSetRequest: ModeSetRequestSchema,
  TeamPermissionUpdate: TeamPermissionUpdateSchema,
  ProtocolMessage: ProtocolMessageSchema,
  SendMessageInput: SendMessageInputV2Schema,
  TaskCreateInput: TaskCreateInputSchema,
  TaskGetInput: TaskGetInputSchema,
  TaskUpdateInput: TaskUpdateInputSchema,
  TaskListInput: TaskListInputSchema,
  AgentInput: AgentInputV2Schema,
  PermissionMode: PermissionModeSchema,
  BackendType: BackendTypeSchema,
  TaskStatus: TaskStatusSchema,
} as const satisfies Record<string, z.ZodType>;

/** The name of a v2 wire type (a key of {@link WIRE_SCHEMAS_V2}). */
export type WireTypeNameV2 = keyof typeof WIRE_SCHEMAS_V2;

/** Every v2 wire type name, in the order of {@link WIRE_SCHEMAS_V2}. */
export const WIRE_TYPE_NAMES_V2 = Object.keys(WIRE_SCHEMAS_V2) as WireTypeNameV2[];

/** The v2 files agents share on disk (and their parts): no defaults or transforms. */
export const FILE_TYPE_NAMES_V2 = [
  'TeamConfig',
  'TeamMember',
  'TeamAllowedPath',
  'LeadProcess',
  'InboxMessage',
  'Inbox',
  'Task',
] as const satisfies readonly WireTypeNameV2[];

/** The input schema of each Claude Code 2.1.330 team tool, by the tool's name. */
export const TOOL_INPUT_SCHEMAS_V2 = {
  Agent: AgentInputV2Schema,
  SendMessage: SendMessageInputV2Schema,
  TaskCreate: TaskCreateInputSchema,
  TaskGet: TaskGetInputSchema,
  TaskUpdate: TaskUpdateInputSchema,
  TaskList: TaskListInputSchema,
} as const satisfies Record<ToolNameV2, z.ZodType>;

/** The schema of each v2 protocol message, by its `type` (the readers' schemas). */
export const PROTOCOL_MESSAGE_SCHEMAS_V2 = PROTOCOL_MESSAGE_SCHEMAS;

/**
 * Rules a v2 wire type's zod schema checks beyond what its JSON Schema can express. A client
 * validating with the JSON Schema alone must check these too.
 */
export const WIRE_TYPE_EXTRA_RULES_V2: Partial<Record<WireTypeNameV2, readonly string[]>> = {
  TeamConfig: TEAM_CONFIG_V2_RULES,
  SendMessageInput: SEND_MESSAGE_INPUT_V2_RULES,
  TaskCreateInput: TASK_CREATE_INPUT_RULES,
  TaskGetInput: TASK_GET_INPUT_RULES,
  TaskUpdateInput: TASK_UPDATE_INPUT_RULES,
  AgentInput: AGENT_INPUT_V2_RULES,
};
