import type { z } from 'zod';
import { BackendTypeSchema, PermissionModeSchema } from './common.js';
import { InboxMessageSchema, InboxSchema } from './mailbox.js';
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
import { ProtocolMessageSchema } from './protocol-message.js';
import { TaskSchema, TaskStatusSchema } from './task.js';
import { TeamAllowedPathSchema, TeamConfigSchema, TeamMemberSchema } from './team.js';
import {
  AGENT_INPUT_RULES,
  AgentInputSchema,
  SEND_MESSAGE_INPUT_RULES,
  SendMessageInputSchema,
  TASK_CREATE_INPUT_RULES,
  TASK_GET_INPUT_RULES,
  TASK_UPDATE_INPUT_RULES,
  TaskCreateInputSchema,
  TaskGetInputSchema,
  TaskListInputSchema,
  TaskUpdateInputSchema,
  TEAM_CREATE_INPUT_RULES,
  TeamCreateInputSchema,
  TeamDeleteInputSchema,
  type ToolName,
} from './tools.js';

/**
 * Every wire type by name: the files agents share, the protocol messages, the tool inputs
 * and the enums. Each has a JSON Schema at `schemas/v1/{name}.schema.json`.
 */
export const WIRE_SCHEMAS = {
  TeamConfig: TeamConfigSchema,
  TeamMember: TeamMemberSchema,
  TeamAllowedPath: TeamAllowedPathSchema,
  InboxMessage: InboxMessageSchema,
  Inbox: InboxSchema,
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
  TeamCreateInput: TeamCreateInputSchema,
  TeamDeleteInput: TeamDeleteInputSchema,
  SendMessageInput: SendMessageInputSchema,
  TaskCreateInput: TaskCreateInputSchema,
  TaskGetInput: TaskGetInputSchema,
  TaskUpdateInput: TaskUpdateInputSchema,
  TaskListInput: TaskListInputSchema,
  AgentInput: AgentInputSchema,
  PermissionMode: PermissionModeSchema,
  BackendType: BackendTypeSchema,
  TaskStatus: TaskStatusSchema,
} as const satisfies Record<string, z.ZodType>;

/** The name of a wire type (a key of {@link WIRE_SCHEMAS}). */
export type WireTypeName = keyof typeof WIRE_SCHEMAS;

/** Every wire type name, in the order of {@link WIRE_SCHEMAS}. */
export const WIRE_TYPE_NAMES = Object.keys(WIRE_SCHEMAS) as WireTypeName[];

/** The files agents share on disk: their schemas have no defaults or transforms. */
export const FILE_TYPE_NAMES = [
  'TeamConfig',
  'TeamMember',
  'TeamAllowedPath',
  'InboxMessage',
  'Inbox',
  'Task',
] as const satisfies readonly WireTypeName[];

/** The input schema of each tool, by the tool's name as the model sees it. */
export const TOOL_INPUT_SCHEMAS = {
  TeamCreate: TeamCreateInputSchema,
  TeamDelete: TeamDeleteInputSchema,
  SendMessage: SendMessageInputSchema,
  TaskCreate: TaskCreateInputSchema,
  TaskGet: TaskGetInputSchema,
  TaskUpdate: TaskUpdateInputSchema,
  TaskList: TaskListInputSchema,
  Task: AgentInputSchema,
} as const satisfies Record<ToolName, z.ZodType>;

/**
 * Rules a wire type's zod schema checks beyond what its JSON Schema can express (zod
 * refinements). A client validating with the JSON Schema alone must check these too.
 */
export const WIRE_TYPE_EXTRA_RULES: Partial<Record<WireTypeName, readonly string[]>> = {
  TeamCreateInput: TEAM_CREATE_INPUT_RULES,
  SendMessageInput: SEND_MESSAGE_INPUT_RULES,
  TaskCreateInput: TASK_CREATE_INPUT_RULES,
  TaskGetInput: TASK_GET_INPUT_RULES,
  TaskUpdateInput: TASK_UPDATE_INPUT_RULES,
  AgentInput: AGENT_INPUT_RULES,
};
