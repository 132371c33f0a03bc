// Public API of @muster/protocol. Everything exported here is part of the protocol's
// contract; see AGENTS.md ("how to add a wire type").
export { MusterError, ProtocolError } from './errors.js';
export type { MusterErrorOptions, ProtocolErrorCode } from './errors.js';

export {
  BACKEND_TYPES,
  BackendTypeSchema,
  EpochMillisecondsSchema,
  IsoTimestampSchema,
  PERMISSION_MODES,
  PermissionModeSchema,
} from './common.js';
export type { BackendType, PermissionMode } from './common.js';

export {
  TEAM_LEAD_NAME,
  TEAMMATE_COLORS,
  TeamAllowedPathSchema,
  TeamConfigSchema,
  TeamMemberSchema,
} from './team.js';
export type { TeamAllowedPath, TeamConfig, TeamMember } from './team.js';

export { InboxMessageSchema, InboxSchema, MAXIMUM_MESSAGE_TEXT_BYTES } from './mailbox.js';
export type { Inbox, InboxMessage } from './mailbox.js';

export {
  TASK_STATUSES,
  TaskIdSchema,
  TaskMetadataSchema,
  TaskSchema,
  TaskStatusSchema,
} from './task.js';
export type { Task, TaskStatus } from './task.js';

export {
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
export type {
  IdleNotification,
  ModeSetRequest,
  PlanApprovalRequest,
  PlanApprovalResponse,
  ShutdownApproved,
  ShutdownRejected,
  ShutdownRequest,
  TaskAssignment,
  TaskCompleted,
} from './messages.js';

export {
  PermissionRequestSchema,
  PermissionResponseErrorSchema,
  PermissionResponseSchema,
  PermissionResponseSuccessSchema,
  PermissionRuleValueSchema,
  PermissionUpdateDestinationSchema,
  PermissionUpdateSchema,
  SandboxPermissionRequestSchema,
  SandboxPermissionResponseSchema,
  TeamPermissionUpdateSchema,
} from './permission.js';
export type {
  PermissionRequest,
  PermissionResponse,
  PermissionRuleValue,
  PermissionUpdate,
  PermissionUpdateDestination,
  SandboxPermissionRequest,
  SandboxPermissionResponse,
  TeamPermissionUpdate,
} from './permission.js';

export {
  PROTOCOL_MESSAGE_SCHEMAS,
  PROTOCOL_MESSAGE_TYPES,
  ProtocolMessageSchema,
} from './protocol-message.js';
export type {
  ProtocolMessage,
  ProtocolMessageOfType,
  ProtocolMessageType,
} from './protocol-message.js';

export {
  AGENT_INPUT_RULES,
  AGENT_ISOLATION_MODES,
  AgentInputSchema,
  SEND_MESSAGE_INPUT_RULES,
  SEND_MESSAGE_TYPES,
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
  TOOL_NAMES,
} from './tools.js';
export type {
  AgentInput,
  SendMessageInput,
  TaskCreateInput,
  TaskGetInput,
  TaskListInput,
  TaskUpdateInput,
  TeamCreateInput,
  TeamDeleteInput,
  ToolName,
} from './tools.js';

export {
  FILE_TYPE_NAMES,
  TOOL_INPUT_SCHEMAS,
  WIRE_SCHEMAS,
  WIRE_TYPE_EXTRA_RULES,
  WIRE_TYPE_NAMES,
} from './wire-types.js';
export type { WireTypeName } from './wire-types.js';

export {
  agentNameToFileName,
  assertSafePathSegment,
  assertTaskId,
  claudeCodeTeamFolderName,
  formatAgentId,
  MAXIMUM_AGENT_NAME_LENGTH,
  parseAgentId,
  sanitizeAgentName,
  sanitizeTeamName,
  stripTeamSuffix,
} from './names.js';

export {
  createPermissionRequestId,
  createPlanApprovalRequestId,
  createSandboxRequestId,
  createShutdownRequestId,
  parseRequestId,
} from './request-ids.js';
export type { IdSources, ParsedRequestId } from './request-ids.js';

export {
  createRootLayout,
  defaultRoot,
  joinUnderRoot,
  LAYOUT_NAMES,
  normalizePosixPath,
} from './paths.js';
export type { RootLayout } from './paths.js';

export {
  CLAUDE_CODE_JSON_STYLE,
  detectJsonFileStyle,
  formatJsonFile,
  parseJsonFile,
  safeParseJsonFile,
  safeValidate,
} from './json-file.js';
export type { JsonFileResult, JsonFileStyle } from './json-file.js';

export { formatHighWatermark, parseHighWatermark } from './high-watermark.js';

export {
  escapeAttributeValue,
  formatProtocolMessage,
  parseMessageContent,
  parseProtocolMessage,
  renderTeammateMessage,
  renderTeammateMessages,
} from './message-text.js';
export type { MessageContent } from './message-text.js';

export {
  CLAUDE_CODE_COMPATIBLE_VERSION,
  PROTOCOL_VERSION,
  SCHEMA_VERSION_FOLDER,
} from './version.js';
