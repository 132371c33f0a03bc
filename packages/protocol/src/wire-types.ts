import type { z } from 'zod';
import { BackendTypeSchema, PermissionModeSchema } from './common.js';
import { InboxMessageSchema, InboxSchema } from './mailbox.js';
import {
  IdleNotificationV1Schema,
  ModeSetRequestSchema,
  PlanApprovalRequestSchema,
  PlanApprovalResponseV1Schema,
  ShutdownApprovedSchema,
  ShutdownRejectedSchema,
  ShutdownRequestSchema,
  TaskAssignmentSchema,
  TaskCompletedSchema,
} from './messages.js';
import {
  PermissionRequestSchema,
  PermissionResponseV1Schema,
  SandboxPermissionRequestSchema,
  SandboxPermissionResponseSchema,
  TeamPermissionUpdateSchema,
} from './permission.js';
import { ProtocolMessageV1Schema } from './protocol-message.js';
import { TaskSchema, TaskStatusSchema } from './task.js';
import { TeamAllowedPathSchema, TeamConfigV1Schema, TeamMemberSchema } from './team.js';
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
 * Every wire type of dialect v1 (Claude Code 2.1.45) by name: the files agents share, the
 * protocol messages, the tool inputs and the enums. Each has a JSON Schema at
 * `schemas/v1/{name}.schema.json`, which never changes. These are the v1 shapes exactly;
 * readers parse with the exported schemas (`TeamConfigSchema`, …), which accept both
 * dialects, and `schemas/v2` is described by {@link WIRE_SCHEMAS_V2}.
 */
export const WIRE_SCHEMAS = {
  TeamConfig: TeamConfigV1Schema,
  TeamMember: TeamMemberSchema,
  TeamAllowedPath: TeamAllowedPathSchema,
  InboxMessage: InboxMessageSchema,
  Inbox: InboxSchema,
  Task: TaskSchema,
  IdleNotification: IdleNotificationV1Schema,
  ShutdownRequest: ShutdownRequestSchema,
  ShutdownApproved: ShutdownApprovedSchema,
  ShutdownRejected: ShutdownRejectedSchema,
  PlanApprovalRequest: PlanApprovalRequestSchema,
  PlanApprovalResponse: PlanApprovalResponseV1Schema,
  PermissionRequest: PermissionRequestSchema,
  PermissionResponse: PermissionResponseV1Schema,
  SandboxPermissionRequest: SandboxPermissionRequestSchema,
  SandboxPermissionResponse: SandboxPermissionResponseSchema,
  TaskAssignment: TaskAssignmentSchema,
  TaskCompleted: TaskCompletedSchema,
  ModeSetRequest: ModeSetRequestSchema,
  TeamPermissionUpdate: TeamPermissionUpdateSchema,
  ProtocolMessage: ProtocolMessageV1Schema,
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
