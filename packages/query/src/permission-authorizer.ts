// The bridge between the loop and @muster/permissions: every tool call is decided in the
// agent's permission context; `ask` goes to a handler the caller supplies (a person at the
// lead's UI, a teammate's escalation to its lead, or a headless policy).
import {
  decideInContext,
  FILE_EDIT_TOOLS,
  realCallPath,
  type AuditSink,
  type PermissionContext,
  type PermissionDecision,
} from '@muster/permissions';
import type { ToolAuthorization, ToolAuthorizer, ToolCallRequest } from './agent-types.js';
import { QueryError } from './query-error.js';
import type { ToolRoots } from './tool.js';

/** What an ask handler answers. */
export interface PermissionAskAnswer {
  behavior: 'allow' | 'deny';
  /** Why it was denied (the model reads it). */
  message?: string;
  /** The input to run with, when the person edited it. */
  input?: Record<string, unknown>;
}

/** Asks someone about a call the permission context could not decide alone. */
export type PermissionAskHandler = (
  request: ToolCallRequest,
  decision: PermissionDecision,
  signal: AbortSignal,
) => Promise<PermissionAskAnswer>;

/** Options of {@link createPermissionAuthorizer}. */
export interface PermissionAuthorizerOptions {
  /** The agent's permission context, read at every call (it changes as rules are approved). */
  context: () => PermissionContext;
  /** Who to ask when the decision is `ask`. Absent: such calls are denied, saying so. */
  ask?: PermissionAskHandler;
  /** Where each decision is recorded (`kind: 'decision'`), with the acting agent's name. */
  audit?: { sink: AuditSink; actor: string };
}

function invalid(message: string): never {
  throw new QueryError({
    code: 'INVALID_OPTIONS',
    message: `createPermissionAuthorizer: ${message}`,
  });
}

function baseOf(context: PermissionContext) {
  return {
    homeDirectory: context.homeDirectory,
    currentDirectory: context.workingDirectories[0] ?? context.homeDirectory,
  };
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}

/** The real paths of a call's paths (relative ones against the first working directory). */
function realPathsOf(context: PermissionContext, paths: readonly string[]): string[] {
  const base = baseOf(context);
  return unique(
    paths
      .filter((path) => typeof path === 'string' && path !== '' && !path.includes('\0'))
      .map((path) => realCallPath(path, base)),
  );
}

/**
 * The directories an agent's tools may touch under a permission context, as real paths:
 * its working directories (read and write), the team's allowed paths (write for file-editing
 * tools, read for the others), and in `plan` mode the plan file is the only writable path.
 */
export function rootsFromPermissionContext(context: PermissionContext): ToolRoots {
  if (
    typeof context !== 'object' ||
    context === null ||
    !Array.isArray(context.workingDirectories)
  ) {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: 'rootsFromPermissionContext: pass a PermissionContext (createPermissionContext).',
    });
  }
  const base = baseOf(context);
  const real = (path: string) => realCallPath(path, base);
  const workingDirectories = context.workingDirectories.map(real);
  const teamRead = context.teamAllowedPaths.map((grant) => real(grant.path));
  const teamWrite = context.teamAllowedPaths
    .filter((grant) => FILE_EDIT_TOOLS.has(grant.toolName))
    .map((grant) => real(grant.path));
  const planFile = context.planFilePath === undefined ? [] : [real(context.planFilePath)];
  const write = context.mode === 'plan' ? planFile : [...workingDirectories, ...teamWrite];
  return {
    read: unique([...workingDirectories, ...teamRead, ...planFile]),
    write: unique(write),
  };
}

function askUnavailableMessage(request: ToolCallRequest, decision: PermissionDecision): string {
  return `${decision.message} No one could be asked (this agent has no ask handler), so ${request.toolName} was denied. To let it run without asking, add an allow rule for it (for example "${request.toolName}" in permissions.allow) or change the permission mode (now "${decision.effectiveMode}").`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Waits for `promise` or the signal, whichever comes first (`undefined` when aborted). */
async function untilAborted<Value>(
  promise: Promise<Value>,
  signal: AbortSignal,
): Promise<Value | undefined> {
  if (signal.aborted) return undefined;
  let listener: (() => void) | undefined;
  const aborted = new Promise<undefined>((resolve) => {
    listener = () => resolve(undefined);
    signal.addEventListener('abort', listener, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', listener!);
  }
}

/**
 * A `ToolAuthorizer` over a permission context: `allow` runs the call (its paths are added to
 * the call's roots, so a rule that allows a path outside the working directories works);
 * `deny` gives the model the decision's message; `ask` announces the ask (a `permission_ask`
 * event) and waits for `ask`, or denies saying no one could be asked and what to change.
 */
export function createPermissionAuthorizer(options: PermissionAuthorizerOptions): ToolAuthorizer {
  if (typeof options !== 'object' || options === null || typeof options.context !== 'function') {
    invalid('pass { context: () => PermissionContext, ask?, audit? }.');
  }
  if (options.ask !== undefined && typeof options.ask !== 'function') {
    invalid(
      'ask must be a function (request, decision, signal) => Promise<{ behavior, message?, input? }>.',
    );
  }
  if (
    options.audit !== undefined &&
    (typeof options.audit.sink?.append !== 'function' || typeof options.audit.actor !== 'string')
  ) {
    invalid('audit must be { sink: AuditSink, actor: "<agent name>" }.');
  }
  const { ask, audit } = options;

  const record = async (
    request: ToolCallRequest,
    decision: PermissionDecision,
    outcome: string,
  ) => {
    if (audit === undefined) return;
    await audit.sink.append({
      kind: 'decision',
      actor: audit.actor,
      toolName: request.toolName,
      outcome,
      detail: decision.reason.detail,
      data: { toolUseId: request.toolUseId, reason: decision.reason.kind, paths: request.paths },
    });
  };

  return async (request, { signal, announceAsk }): Promise<ToolAuthorization> => {
    const context = options.context();
    const decision = decideInContext(context, {
      toolName: request.toolName,
      input: request.input,
      readOnly: request.readOnly,
    });
    const approvedPaths = () => realPathsOf(context, request.paths);
    if (decision.behavior === 'allow') {
      await record(request, decision, 'allow');
      return { behavior: 'allow', decision, approvedPaths: approvedPaths() };
    }
    if (decision.behavior === 'deny') {
      await record(request, decision, 'deny');
      return { behavior: 'deny', message: decision.message, decision };
    }
    if (ask === undefined) {
      await record(request, decision, 'deny');
      return { behavior: 'deny', message: askUnavailableMessage(request, decision), decision };
    }
    await record(request, decision, 'ask');
    announceAsk(decision);
    let answer: PermissionAskAnswer | undefined;
    try {
      answer = await untilAborted(ask(request, decision, signal), signal);
    } catch (error) {
      return {
        behavior: 'deny',
        asked: true,
        decision,
        message: `${request.toolName} was denied: asking for permission failed (${errorMessage(error)}).`,
      };
    }
    if (answer === undefined) {
      return {
        behavior: 'deny',
        asked: true,
        decision,
        message: `${request.toolName} was not run: the turn was interrupted while waiting for permission.`,
      };
    }
    if (answer?.behavior === 'allow') {
      const allowed: ToolAuthorization = {
        behavior: 'allow',
        asked: true,
        decision,
        approvedPaths: approvedPaths(),
      };
      if (answer.input !== undefined) allowed.input = answer.input;
      return allowed;
    }
    if (answer?.behavior === 'deny') {
      return {
        behavior: 'deny',
        asked: true,
        decision,
        message:
          typeof answer.message === 'string' && answer.message !== ''
            ? answer.message
            : `The user denied permission to use ${request.toolName}; it was not run.`,
      };
    }
    return {
      behavior: 'deny',
      asked: true,
      decision,
      message: `${request.toolName} was denied: the permission handler gave no valid answer (expected { behavior: "allow" | "deny" }).`,
    };
  };
}
