// Public API of @muster/permissions.
export { PermissionsError } from './permissions-error.js';
export type { PermissionsErrorCode } from './permissions-error.js';

export {
  formatPermissionRule,
  isSameRule,
  parsePermissionRule,
  parsePermissionRuleSet,
  toPermissionRule,
} from './permission-rule.js';
export type { PermissionRule, PermissionRuleSet } from './permission-rule.js';

export { decidePermission } from './decide-permission.js';
export type {
  DecisionReason,
  DecisionReasonKind,
  PermissionBehavior,
  PermissionDecision,
  PermissionDecisionInput,
  ToolCall,
} from './decide-permission.js';

export { isPathInside, normalizeCallPath, realCallPath } from './path-matching.js';
export type { PathBase } from './path-matching.js';

export { analyzeShellCommand, shellSpecifierMatches } from './shell-command.js';
export type { ShellCommandAnalysis } from './shell-command.js';
export type { ClassifiedCommand, ShellClassification } from './shell-classifier.js';

export {
  DELEGATE_MODE_TOOLS,
  FILE_EDIT_TOOLS,
  FILE_READ_TOOLS,
  PLAN_MODE_COORDINATION_TOOLS,
} from './tool-catalog.js';

export {
  addTeamAllowedPathToContext,
  applyPermissionUpdates,
  createPermissionContext,
  decideInContext,
  describeContextRules,
} from './permission-context.js';
export type {
  AppliedPermissionUpdates,
  PermissionContext,
  PermissionContextInput,
  SkippedPermissionUpdate,
} from './permission-context.js';

export {
  buildEnvelope,
  createEnvelopeMessenger,
  createInProcessRouter,
  dispatchMessage,
  protocolMessageOf,
} from './messenger.js';
export type {
  AgentMessenger,
  InProcessRouter,
  MessageDelivery,
  MessageHandler,
  OutgoingEnvelope,
} from './messenger.js';

export { createPermissionClient } from './permission-client.js';
export type {
  Authorization,
  PermissionAnswer,
  PermissionAsk,
  PermissionClient,
  PermissionClientOptions,
} from './permission-client.js';

export { createPermissionBroker } from './permission-broker.js';
export type {
  ApproveOptions,
  ApproveResult,
  PendingHostRequest,
  PendingPermissionRequest,
  PermissionBroker,
  PermissionBrokerOptions,
} from './permission-broker.js';

export { MODES_NOT_GRANTED_BY_PLAN_APPROVAL } from './plan-review.js';
export type { PendingPlanRequest, PlanReview } from './plan-review.js';

export { createPlanGate } from './plan-gate.js';
export type { PlanAnswer, PlanGate, PlanGateStatus } from './plan-gate.js';

export { setWorkerModeInTeam } from './mode-control.js';
export { directoryOfCall, grantTeamPath, teamPathPermissionUpdate } from './team-allowed-paths.js';

export {
  AUDIT_LOG_FILE_NAME,
  auditLogPath,
  createAuditLog,
  createMemoryAuditLog,
  readAuditLog,
} from './audit-log.js';
export type { AuditEntry, AuditEventKind, AuditLogContents, AuditSink } from './audit-log.js';

export { createMailboxMessenger, guardControlMessages, serveInbox } from './mailbox-transport.js';

export { createLeadTrust } from './lead-trust.js';
export type {
  ControlVerdict,
  LeadEntryVerifier,
  LeadTrust,
  LeadTrustOptions,
} from './lead-trust.js';
export {
  createLeadKeyring,
  LEAD_VERIFY_KEY_OPTION,
  leadVerifyKeyFromArguments,
} from './lead-keyring.js';
export type { LeadKeyring, LeadMailboxOptions, MemberLaunchKey } from './lead-keyring.js';
export { createShutdownGate } from './shutdown-gate.js';
export type { ShutdownGate } from './shutdown-gate.js';
export { createHostAccessGate } from './host-access.js';
export type { HostAccessAnswer, HostAccessGate } from './host-access.js';
export type { HostAccessReview } from './host-access-review.js';
export type { InboxServer, MailboxDelivery, PermissionMailbox } from './mailbox-transport.js';
