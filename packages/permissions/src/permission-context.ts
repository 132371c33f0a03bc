import {
  normalizePosixPath,
  type PermissionMode,
  type PermissionUpdate,
  type TeamAllowedPath,
} from '@muster/protocol';
import {
  formatPermissionRule,
  isSameRule,
  toPermissionRule,
  type PermissionRule,
} from './permission-rule.js';
import { decidePermission, type PermissionDecision, type ToolCall } from './decide-permission.js';

/**
 * One agent's permission settings: its mode, its rules, the directories it works in and
 * the team's allowed paths it knows about. A plain value: functions below return new
 * contexts and never change the one they are given.
 */
export interface PermissionContext {
  /** The agent's mode. */
  mode: PermissionMode;
  /** Allow, deny and ask rules, parsed. */
  rules: { allow: PermissionRule[]; deny: PermissionRule[]; ask: PermissionRule[] };
  /** Absolute working directories; the first is the agent's current directory. */
  workingDirectories: string[];
  /** Absolute home directory (for `~`). */
  homeDirectory: string;
  /** Whether `bypassPermissions` may take effect for this agent. */
  bypassPermissionsEnabled: boolean;
  /** Directories the team approved (from the config and `team_permission_update` messages). */
  teamAllowedPaths: TeamAllowedPath[];
  /** The plan file a `plan`-mode agent may write. */
  planFilePath?: string;
}

/** What {@link createPermissionContext} accepts: rules may be strings. */
export interface PermissionContextInput {
  mode?: PermissionMode;
  rules?: {
    allow?: ReadonlyArray<string | PermissionRule>;
    deny?: ReadonlyArray<string | PermissionRule>;
    ask?: ReadonlyArray<string | PermissionRule>;
  };
  workingDirectories: readonly string[];
  homeDirectory: string;
  bypassPermissionsEnabled?: boolean;
  teamAllowedPaths?: readonly TeamAllowedPath[];
  planFilePath?: string;
}

/** Builds a context (mode `default` unless given); malformed rules throw `INVALID_RULE`. */
export function createPermissionContext(input: PermissionContextInput): PermissionContext {
  const context: PermissionContext = {
    mode: input.mode ?? 'default',
    rules: {
      allow: (input.rules?.allow ?? []).map(toPermissionRule),
      deny: (input.rules?.deny ?? []).map(toPermissionRule),
      ask: (input.rules?.ask ?? []).map(toPermissionRule),
    },
    workingDirectories: input.workingDirectories.map((directory) => normalizePosixPath(directory)),
    homeDirectory: normalizePosixPath(input.homeDirectory),
    bypassPermissionsEnabled: input.bypassPermissionsEnabled ?? false,
    teamAllowedPaths: [...(input.teamAllowedPaths ?? [])],
  };
  if (input.planFilePath !== undefined) context.planFilePath = input.planFilePath;
  return context;
}

/** Runs {@link decidePermission} for a call in a context. */
export function decideInContext(context: PermissionContext, call: ToolCall): PermissionDecision {
  return decidePermission({
    mode: context.mode,
    rules: context.rules,
    workingDirectories: context.workingDirectories,
    teamAllowedPaths: context.teamAllowedPaths,
    homeDirectory: context.homeDirectory,
    bypassPermissionsEnabled: context.bypassPermissionsEnabled,
    ...(context.planFilePath === undefined ? {} : { planFilePath: context.planFilePath }),
    call,
  });
}

/** An update that was not applied, and why. */
export interface SkippedPermissionUpdate {
  update: PermissionUpdate;
  reason: string;
}

/** The result of {@link applyPermissionUpdates}. */
export interface AppliedPermissionUpdates {
  context: PermissionContext;
  /** Updates left out (a `setMode` under `preserveMode`). */
  skipped: SkippedPermissionUpdate[];
}

/**
 * Applies permission updates (`addRules`, `replaceRules`, `removeRules`, `addDirectories`,
 * `removeDirectories`, `setMode`) and returns the new context. With `preserveMode: true` —
 * how a lead persists what it approved for a worker — `setMode` updates are skipped and
 * reported, so a worker's approval can add rules but never changes (never relaxes) the
 * receiving context's mode. Malformed rules throw `INVALID_RULE`.
 */
export function applyPermissionUpdates(
  context: PermissionContext,
  updates: readonly PermissionUpdate[],
  options: { preserveMode: boolean },
): AppliedPermissionUpdates {
  const next: PermissionContext = {
    ...context,
    rules: {
      allow: [...context.rules.allow],
      deny: [...context.rules.deny],
      ask: [...context.rules.ask],
    },
    workingDirectories: [...context.workingDirectories],
    teamAllowedPaths: [...context.teamAllowedPaths],
  };
  const skipped: SkippedPermissionUpdate[] = [];
  for (const update of updates) {
    switch (update.type) {
      case 'addRules': {
        const list = next.rules[update.behavior];
        for (const rule of update.rules.map(toPermissionRule)) {
          if (!list.some((existing) => isSameRule(existing, rule))) list.push(rule);
        }
        break;
      }
      case 'replaceRules':
        next.rules[update.behavior] = update.rules.map(toPermissionRule);
        break;
      case 'removeRules': {
        const removed = update.rules.map(toPermissionRule);
        next.rules[update.behavior] = next.rules[update.behavior].filter(
          (existing) => !removed.some((rule) => isSameRule(existing, rule)),
        );
        break;
      }
      case 'addDirectories':
        for (const directory of update.directories.map((entry) => normalizePosixPath(entry))) {
          if (!next.workingDirectories.includes(directory)) next.workingDirectories.push(directory);
        }
        break;
      case 'removeDirectories': {
        const removed = new Set(update.directories.map((entry) => normalizePosixPath(entry)));
        next.workingDirectories = next.workingDirectories.filter(
          (directory, index) => index === 0 || !removed.has(directory),
        );
        break;
      }
      case 'setMode':
        if (options.preserveMode) {
          skipped.push({
            update,
            reason: `preserveMode: the mode stays ${next.mode}; ${update.mode} was not applied`,
          });
        } else {
          next.mode = update.mode;
        }
        break;
    }
  }
  return { context: next, skipped };
}

/** Adds a team allowed path unless the same path and tool are already there. */
export function addTeamAllowedPathToContext(
  context: PermissionContext,
  entry: TeamAllowedPath,
): PermissionContext {
  const exists = context.teamAllowedPaths.some(
    (existing) =>
      normalizePosixPath(existing.path) === normalizePosixPath(entry.path) &&
      existing.toolName === entry.toolName,
  );
  if (exists) return context;
  return { ...context, teamAllowedPaths: [...context.teamAllowedPaths, entry] };
}

/** The context's rules as strings, for display and audit (`{allow: ['Bash(git:*)'], …}`). */
export function describeContextRules(context: PermissionContext): {
  allow: string[];
  deny: string[];
  ask: string[];
} {
  return {
    allow: context.rules.allow.map(formatPermissionRule),
    deny: context.rules.deny.map(formatPermissionRule),
    ask: context.rules.ask.map(formatPermissionRule),
  };
}
