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

export { isPathInside, normalizeCallPath } from './path-matching.js';
export type { PathBase } from './path-matching.js';

export { analyzeShellCommand, shellSpecifierMatches } from './shell-command.js';
export type { ShellCommandAnalysis, ShellSegment } from './shell-command.js';

export {
  DELEGATE_MODE_TOOLS,
  FILE_EDIT_TOOLS,
  FILE_READ_TOOLS,
  PLAN_MODE_COORDINATION_TOOLS,
} from './tool-catalog.js';
