import { normalizePosixPath, type PermissionMode, type TeamAllowedPath } from '@muster/protocol';
import {
  formatPermissionRule,
  parsePermissionRuleSet,
  type PermissionRuleSet,
} from './permission-rule.js';
import { isPathInside, normalizeCallPath, realCallPath, type PathBase } from './path-matching.js';
import { PermissionsError } from './permissions-error.js';
import { protectedPathsOf } from './protected-paths.js';
import {
  allowRulesCover,
  describeRules,
  prepareShell,
  restrictiveRuleApplies,
  shellConcerns,
  type PreparedCall,
} from './rule-matching.js';
import {
  DELEGATE_MODE_TOOLS,
  FILE_EDIT_TOOLS,
  PLAN_MODE_COORDINATION_TOOLS,
  pathsOfCall,
  ruleToolMatches,
} from './tool-catalog.js';

/** A tool call to decide on. */
export interface ToolCall {
  /** Tool name, e.g. `Bash`, `Edit`, `mcp__github__create_issue`. */
  toolName: string;
  /** The call's input as the model gave it. */
  input: Record<string, unknown>;
  /**
   * Whether the call only reads (the tool's own judgement for this input). Ignored for shell
   * tools: `decidePermission` classifies a shell line itself and never trusts this flag for it.
   */
  readOnly: boolean;
}

/**
 * Everything the decision depends on. Nothing is read from disk except symbolic links:
 * paths, working directories, team paths and rule patterns are resolved through them.
 */
export interface PermissionDecisionInput {
  /** The agent's permission mode. */
  mode: PermissionMode;
  /** Allow, deny and ask rules (strings like `Bash(git:*)` or parsed rules). */
  rules: Partial<PermissionRuleSet>;
  /** Absolute directories the agent works in; the first is its current directory. */
  workingDirectories: readonly string[];
  /** The team's allowed paths (from the team config). */
  teamAllowedPaths?: readonly TeamAllowedPath[];
  /** Absolute home directory; `~` in paths and rules expands to it. */
  homeDirectory: string;
  /** Relative paths resolve against this; defaults to the first working directory. */
  currentDirectory?: string;
  /** Whether `bypassPermissions` may take effect; when false it falls back to `default`. */
  bypassPermissionsEnabled?: boolean;
  /** The plan file a `plan`-mode agent may write. */
  planFilePath?: string;
  /** The call. */
  call: ToolCall;
}

/** The verdict. */
export type PermissionBehavior = 'allow' | 'deny' | 'ask';

/** Which step decided. */
export type DecisionReasonKind =
  /** A deny rule matched (deny rules win in every mode). */
  | 'denyRule'
  /** An ask rule matched. */
  | 'askRule'
  /** Allow rules covered the call. */
  | 'allowRule'
  /** The mode allowed it (`bypassPermissions`, or `acceptEdits` for an edit in a working directory). */
  | 'mode'
  /** `plan` mode refused a call that is not read-only. */
  | 'planMode'
  /** `plan` mode allowed writing the plan file. */
  | 'planFile'
  /** `delegate` mode allowed a team/task tool or refused any other. */
  | 'delegateMode'
  /** Team and task tools run without asking. */
  | 'coordinationTool'
  /** `dontAsk` mode refused what would otherwise have asked. */
  | 'dontAsk'
  /** The call works under a directory the team approved for this tool. */
  | 'teamAllowedPath'
  /** A read-only call inside the working directories. */
  | 'readOnly'
  /** A path outside the working directories needs approval. */
  | 'outsideWorkingDirectories'
  /** `acceptEdits` does not cover a protected file (`.git/…`, a shell startup file, …). */
  | 'protectedPath'
  /** No rule or mode allowed it: ask. */
  | 'noRule';

/** Why the verdict is what it is. */
export interface DecisionReason {
  kind: DecisionReasonKind;
  /** The rule(s) that decided, formatted (`Bash(git:*)`), when a rule did. */
  rule?: string;
  /** What was checked, for logs and the audit trail. */
  detail: string;
}

/** The decision. */
export interface PermissionDecision {
  behavior: PermissionBehavior;
  reason: DecisionReason;
  /** One sentence for the model or the person deciding. */
  message: string;
  /** The mode actually applied (`default` when `bypassPermissions` was not enabled). */
  effectiveMode: PermissionMode;
}

function absoluteDirectory(directory: string, base: PathBase, label: string): string {
  if (directory.trim() === '') {
    throw new PermissionsError({
      code: 'INVALID_INPUT',
      message: `A ${label} is empty; pass absolute directories.`,
    });
  }
  return realCallPath(directory, base);
}

/**
 * Decides whether a tool call may run, must be asked about, or is refused. The steps, in
 * order (the first that applies decides):
 *
 * 1. a deny rule applies → deny (in every mode, `bypassPermissions` included);
 * 2. `delegate`: team/task tools go on, anything else → deny;
 * 3. `plan`: read-only calls, team/task-list tools and writing the plan file go on,
 *    anything else → deny;
 * 4. an ask rule applies → ask;
 * 5. `bypassPermissions` (only when enabled; otherwise the call is decided as in `default`,
 *    and the reason says so) → allow;
 * 6. writing the plan file in `plan` mode → allow;
 * 7. allow rules cover the call (every command of a shell line, every path) → allow;
 * 8. a team or task tool → allow;
 * 9. every path is under a team allowed path for this tool → allow;
 * 10. `acceptEdits` and an edit whose paths are all inside the working directories → allow,
 *     except a protected file (`.git/…`, `.bashrc`, … see `isProtectedPath`) → ask;
 * 11. a read-only call whose paths are all inside the working directories → allow (for a
 *     shell line read-only-ness is computed here: every command a known reader used as
 *     itself, no file written, every file it names inside the working directories);
 * 12. otherwise → ask; `dontAsk` turns every ask into deny.
 *
 * Paths are compared as real absolute paths (see `realCallPath`: `~` expanded, symbolic links
 * followed, `..` resolved where the walk really is); a path rule's directory part is resolved
 * the same way. Deny and ask rules also match the path as written, so a link cannot hide a
 * denied name either. Malformed rules throw `INVALID_RULE`.
 */
export function decidePermission(options: PermissionDecisionInput): PermissionDecision {
  const rules = parsePermissionRuleSet(options.rules);
  const homeDirectory = normalizePosixPath(options.homeDirectory);
  const provisionalBase: PathBase = { homeDirectory, currentDirectory: homeDirectory };
  const workingDirectories = options.workingDirectories.map((directory) =>
    absoluteDirectory(directory, provisionalBase, 'working directory'),
  );
  const currentDirectory =
    options.currentDirectory !== undefined
      ? absoluteDirectory(options.currentDirectory, provisionalBase, 'current directory')
      : workingDirectories[0];
  if (currentDirectory === undefined) {
    throw new PermissionsError({
      code: 'INVALID_INPUT',
      message: `Cannot decide on ${options.call.toolName}: no working directory and no current directory were given, so relative paths cannot be resolved. Pass workingDirectories (the agent's cwd first).`,
    });
  }
  const base: PathBase = { homeDirectory, currentDirectory };
  const callPaths = pathsOfCall(options.call.toolName, options.call.input);
  const call: PreparedCall = {
    toolName: options.call.toolName,
    input: options.call.input,
    paths: callPaths.map((path) => realCallPath(path, base)),
    lexicalPaths: callPaths.map((path) => normalizeCallPath(path, base)),
    base,
  };
  const shell = prepareShell(call.toolName, call.input);
  if (shell !== undefined) call.shell = shell;

  // A shell line's read-only-ness is computed here, never taken from the caller: every
  // command must be a known reader used as itself, nothing may be written, and the files it
  // names must be inside the working directories (checked with the other paths below).
  const shellReadPaths =
    call.shell === undefined
      ? []
      : call.shell.commands.flatMap((command) =>
          command.readPaths.map((path) => realCallPath(path, base)),
        );
  const readOnly = call.shell === undefined ? options.call.readOnly : call.shell.readOnly;
  const requestedMode = options.mode;
  const bypassUnavailable =
    requestedMode === 'bypassPermissions' && options.bypassPermissionsEnabled !== true;
  const mode: PermissionMode = bypassUnavailable ? 'default' : requestedMode;
  const fallbackNote = bypassUnavailable
    ? ' (bypassPermissions is not enabled for this agent, so the call was decided as in default mode)'
    : '';
  const tool = call.toolName;

  const decide = (
    behavior: PermissionBehavior,
    kind: DecisionReasonKind,
    detail: string,
    message: string,
    rule?: string,
  ): PermissionDecision => {
    if (behavior === 'ask' && mode === 'dontAsk') {
      return {
        behavior: 'deny',
        reason: {
          kind: 'dontAsk',
          ...(rule === undefined ? {} : { rule }),
          detail: `dontAsk mode denies what would otherwise ask: ${detail}`,
        },
        message: `Permission to use ${tool} was denied: the agent runs in dontAsk mode and the call is not pre-approved (${detail}).`,
        effectiveMode: mode,
      };
    }
    return {
      behavior,
      reason: { kind, ...(rule === undefined ? {} : { rule }), detail: detail + fallbackNote },
      message,
      effectiveMode: mode,
    };
  };

  // 1. Deny rules win.
  const denyRule = rules.deny.find((rule) => restrictiveRuleApplies(rule, call));
  if (denyRule !== undefined) {
    const formatted = formatPermissionRule(denyRule);
    return decide(
      'deny',
      'denyRule',
      `the deny rule ${formatted} applies`,
      `Permission to use ${tool} was denied by the rule ${formatted}.`,
      formatted,
    );
  }

  // 2. delegate: coordination only.
  if (mode === 'delegate' && !DELEGATE_MODE_TOOLS.has(tool)) {
    return decide(
      'deny',
      'delegateMode',
      `${tool} is not a team or task tool`,
      `${tool} is not available in delegate mode: only ${[...DELEGATE_MODE_TOOLS].join(', ')} are.`,
    );
  }

  // 3. plan: reads, the task list and the plan file only.
  const planFile =
    options.planFilePath === undefined ? undefined : realCallPath(options.planFilePath, base);
  const writesPlanFile =
    planFile !== undefined &&
    FILE_EDIT_TOOLS.has(tool) &&
    call.paths.length > 0 &&
    call.paths.every((path) => path === planFile);
  if (mode === 'plan' && !writesPlanFile) {
    const planAllowed = readOnly || PLAN_MODE_COORDINATION_TOOLS.has(tool);
    if (!planAllowed) {
      return decide(
        'deny',
        'planMode',
        `${tool} is not read-only and is not a write to the plan file${planFile === undefined ? '' : ` ${planFile}`}`,
        `${tool} is not allowed in plan mode: only read-only tools and writing the plan file are, until the lead approves the plan.`,
      );
    }
  }

  // 4. Ask rules.
  const askRule = rules.ask.find((rule) => restrictiveRuleApplies(rule, call));
  if (askRule !== undefined) {
    const formatted = formatPermissionRule(askRule);
    return decide(
      'ask',
      'askRule',
      `the ask rule ${formatted} applies`,
      `${tool} needs approval: the rule ${formatted} says to ask.`,
      formatted,
    );
  }

  // 5. bypassPermissions.
  if (mode === 'bypassPermissions') {
    return decide(
      'allow',
      'mode',
      'bypassPermissions mode allows every call no deny or ask rule covers',
      `${tool} is allowed: bypassPermissions mode.`,
    );
  }

  // 6. The plan file.
  if (mode === 'plan' && writesPlanFile) {
    return decide(
      'allow',
      'planFile',
      `writing the plan file ${planFile} is allowed in plan mode`,
      `${tool} is allowed: it writes the plan file.`,
    );
  }

  // 7. Allow rules.
  const covering = allowRulesCover(rules.allow, call, [...rules.deny, ...rules.ask]);
  if (covering !== undefined) {
    const formatted = describeRules(covering);
    return decide(
      'allow',
      'allowRule',
      `allowed by ${formatted}`,
      `${tool} is allowed by the rule ${formatted}.`,
      formatted,
    );
  }

  // 8. Team and task tools.
  if (DELEGATE_MODE_TOOLS.has(tool)) {
    return decide(
      'allow',
      mode === 'delegate' ? 'delegateMode' : 'coordinationTool',
      `${tool} is a team or task tool`,
      `${tool} is allowed: team and task tools run without asking.`,
    );
  }

  // 9. Team allowed paths.
  const grants = options.teamAllowedPaths ?? [];
  if (call.paths.length > 0 && grants.length > 0) {
    const used = call.paths.map((path) =>
      grants.find(
        (grant) =>
          ruleToolMatches(grant.toolName, tool) &&
          isPathInside(path, realCallPath(grant.path, base)),
      ),
    );
    if (used.every((grant) => grant !== undefined)) {
      const first = used[0]!;
      return decide(
        'allow',
        'teamAllowedPath',
        `${first.path} was approved for ${first.toolName} for the whole team by ${first.addedBy}`,
        `${tool} is allowed: ${first.path} is approved for the whole team.`,
      );
    }
  }

  const outside = [...call.paths, ...(readOnly ? shellReadPaths : [])].filter(
    (path) => !workingDirectories.some((directory) => isPathInside(path, directory)),
  );

  // 10. acceptEdits (never for files that make later commands run code).
  const protectedPaths = protectedPathsOf(call.paths, workingDirectories);
  if (mode === 'acceptEdits' && FILE_EDIT_TOOLS.has(tool) && protectedPaths.length > 0) {
    return decide(
      'ask',
      'protectedPath',
      `${protectedPaths.join(', ')} ${protectedPaths.length === 1 ? 'is' : 'are'} protected: editing it can make later commands run code (a .git config or hook, a shell startup file), so acceptEdits does not cover it`,
      `${tool} needs approval: it edits a protected file.`,
    );
  }
  if (mode === 'acceptEdits' && FILE_EDIT_TOOLS.has(tool) && call.paths.length > 0) {
    if (outside.length === 0) {
      return decide(
        'allow',
        'mode',
        'acceptEdits mode allows edits inside the working directories',
        `${tool} is allowed: acceptEdits mode, inside the working directories.`,
      );
    }
  }

  // 11. Read-only calls inside the working directories.
  if (readOnly && outside.length === 0) {
    return decide(
      'allow',
      'readOnly',
      call.paths.length === 0
        ? `${tool} only reads`
        : `${tool} only reads inside the working directories`,
      `${tool} is allowed: it only reads.`,
    );
  }

  // 12. Ask.
  if (outside.length > 0) {
    return decide(
      'ask',
      'outsideWorkingDirectories',
      `${outside.join(', ')} ${outside.length === 1 ? 'is' : 'are'} outside the working directories ${workingDirectories.join(', ')}`,
      `${tool} needs approval: it works outside the working directories.`,
    );
  }
  const concerns = shellConcerns(call.shell);
  return decide(
    'ask',
    'noRule',
    concerns.length > 0
      ? `no rule can vouch for this command: ${concerns.join('; ')}`
      : `no rule or mode allows ${tool}`,
    `${tool} needs approval.`,
  );
}
