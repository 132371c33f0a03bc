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
  SHA256_HEX_PATTERN,
} from './common.js';
export type { BackendType, PermissionMode } from './common.js';

export {
  LeadProcessSchema,
  TEAM_CONFIG_V2_RULES,
  TEAM_LEAD_NAME,
  TEAM_PROTOCOL_VERSION_V2,
  TEAMMATE_COLORS,
  TeamAllowedPathSchema,
  TeamConfigSchema,
  TeamConfigV2Schema,
  TeamMemberSchema,
  TeamMemberV2Schema,
} from './team.js';
export type {
  LeadProcess,
  TeamAllowedPath,
  TeamConfig,
  TeamConfigV2,
  TeamMember,
  TeamMemberV2,
} from './team.js';

export { PROTOCOL_DIALECTS, teamDialect } from './dialect.js';
export type { ProtocolDialect } from './dialect.js';

export {
  INBOX_MESSAGE_ENVELOPE_TYPE,
  INBOX_MESSAGE_FORMAT_VERSION,
  InboxMessageSchema,
  InboxMessageV2Schema,
  InboxSchema,
  InboxV2Schema,
  LEAD_SIGNATURE_PATTERN,
  MAXIMUM_MESSAGE_TEXT_BYTES,
} from './mailbox.js';
export type { Inbox, InboxMessage, InboxMessageV2, InboxV2 } from './mailbox.js';

export {
  canonicalJson,
  inputDigestPayload,
  LEAD_SIGNATURE_CONTEXT,
  leadSignaturePayload,
} from './lead-signature.js';
export type { LeadSignedFields } from './lead-signature.js';

export {
  TASK_STATUSES,
  TaskIdSchema,
  TaskMetadataSchema,
  TaskSchema,
  TaskStatusSchema,
} from './task.js';
export type { Task, TaskStatus } from './task.js';

export {
  IDLE_RESULT_MAXIMUM_CHARACTERS,
  IdleNotificationSchema,
  IdleTokenUsageSchema,
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
  IdleTokenUsage,
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
  ApprovedRequestSchema,
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
  ApprovedRequest,
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
  PROTOCOL_MESSAGE_SCHEMAS_V1,
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
  AGENT_EFFORT_LEVELS,
  AGENT_INPUT_V2_RULES,
  AGENT_ISOLATION_MODES_V2,
  AGENT_MODEL_ALIASES_V2,
  AGENT_MODES_V2,
  AgentInputV2Schema,
  RESERVED_AGENT_NAMES,
  SEND_MESSAGE_FORBIDDEN_FRAME_TYPES,
  SEND_MESSAGE_INPUT_V2_RULES,
  SendMessageInputV2Schema,
  TOOL_NAMES_V2,
} from './tools-v2.js';
export type { AgentInputV2, SendMessageInputV2, ToolNameV2 } from './tools-v2.js';

export {
  FILE_TYPE_NAMES_V2,
  PROTOCOL_MESSAGE_SCHEMAS_V2,
  TOOL_INPUT_SCHEMAS_V2,
  WIRE_SCHEMAS_V2,
  WIRE_TYPE_EXTRA_RULES_V2,
  WIRE_TYPE_NAMES_V2,
} from './wire-types-v2.js';
export type { WireTypeNameV2 } from './wire-types-v2.js';

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
  CLAUDE_CODE_COMPATIBLE_VERSION_V2,
  PROTOCOL_VERSION,
  PROTOCOL_VERSION_V2,
  SCHEMA_VERSION_FOLDER,
  SCHEMA_VERSION_FOLDER_V2,
} from './version.js';

// --- environment variable names shared by query and backends (environment-variables.ts; H2) ---
export {
  AGENT_ID_VARIABLE,
  isLeadLinkVariable,
  isModelCredentialVariable,
  LEAD_LINK_VARIABLES,
  LEAD_SOCKET_VARIABLE,
  MEMBER_SECRET_VARIABLE,
  MODEL_CREDENTIAL_PREFIXES,
  MODEL_CREDENTIAL_VARIABLES,
} from './environment-variables.js';
// --- the lead run marker the process reaper sweeps by (environment-variables.ts; H6) ---
export { LEAD_RUN_VARIABLE } from './environment-variables.js';
