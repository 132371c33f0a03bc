// What `runTeammate` takes and gives back, and the check of its options: every problem names
// the option, what was wrong and what to pass instead.
import { isAbsolute } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { LeadTrust, LeadTrustOptions, PermissionContextInput } from '@muster/permissions';
import {
  MusterError,
  PermissionModeSchema,
  type BackendType,
  type PermissionMode,
} from '@muster/protocol';
import type { AnyTool, ModelClient } from '@muster/query';
import type { TaskHooks } from '@muster/tasks';
import type { Hooks } from './hooks.js';
import type { TeamEventSink } from './team-event.js';

/**
 * How the teammate tells its lead's control messages from forgeries: the lead's verify key
 * (a member in its own process, from `--lead-verify-key`), the lead runtime's ledger (an
 * in-process member), or a ready-made `LeadTrust`.
 */
export type TeammateLeadTrust =
  | { verifyKey: string }
  | { ledger: NonNullable<LeadTrustOptions['ledger']> }
  | { trust: LeadTrust };

/** Options of `runTeammate`. */
export interface TeammateOptions {
  /** The muster root holding `teams/` and `tasks/`. */
  root: string;
  /** The team's folder name. */
  teamName: string;
  /** The teammate's name in the team config. */
  agentName: string;
  /** `<agentName>@<teamName>` (checked when given). */
  agentId?: string;
  /** Its color in the team (a UI hint; entries it writes take the config's color). */
  color?: string;
  /** Its working directory (absolute). */
  cwd: string;
  /** The model client (`createModelClient` of @muster/query). */
  client: ModelClient;
  /** Model id or alias. */
  model: string;
  /** The system prompt: its bytes stay the same for the teammate's whole life. */
  systemPrompt: string | Anthropic.TextBlockParam[];
  /** The general tools, already pooled by the caller; the loop adds the team tools (and ExitPlanMode). */
  tools: readonly AnyTool[];
  /** The starting permission mode (default `default`; `plan` when `planModeRequired`). */
  permissionMode?: PermissionMode;
  /** Rules of the teammate's permission context (never wider than the lead's). */
  permissionRules?: PermissionContextInput['rules'];
  /** The teammate must have a plan approved by the lead before it may change anything. */
  planModeRequired?: boolean;
  /** Where a plan-mode teammate writes its plan (default `<root>/plans/<team>-<name>.md`). */
  planFilePath?: string;
  /** The lead's trust material (see {@link TeammateLeadTrust}). */
  leadTrust: TeammateLeadTrust;
  /** The lifecycle signal: aborting it ends the current turn and the loop (R29). */
  signal: AbortSignal;
  /** Receives the teammate's part of the team's event stream. */
  onEvent?: TeamEventSink;
  /** The environment its tools start processes from (credentials are removed by the loop). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Appends its conversation to this JSONL file. */
  transcriptPath?: string;
  /** Compaction; the loop adds the teammate's identity, team, lead and task as preserved context. */
  compaction?: { thresholdTokens: number };
  /**
   * The spawn prompt, when it is handed over in memory (an in-process teammate): it starts turn
   * 1 as a message from the lead. Without it the first turn starts from the inbox.
   */
  prompt?: string;
  /** The spawn's description, shown as the first message's summary. */
  description?: string;
  /** The backend it runs in (written into its `shutdown_approved` and the runtime sidecar). */
  backendType?: BackendType;
  /** Its terminal pane (written into its `shutdown_approved`). */
  paneId?: string;
  /** Called once the teammate reads its inbox (the in-process backend's `context.ready`). */
  onReady?: () => void;
  /** The home directory of its permission context (default `os.homedir()`). */
  homeDirectory?: string;
  /** How long a permission ask waits for the lead (default: the permission client's 5 minutes). */
  permissionTimeoutMs?: number;
  /** Take unclaimed tasks from the team's list while idle (default true). */
  claimTasks?: boolean;
  /**
   * Command hooks (`loadHooks`): `TeammateIdle` runs before each idle notification; a hook that
   * blocks (exit 2) keeps the teammate working, with the hook's stderr as its next message.
   */
  hooks?: Pick<Hooks, 'has' | 'runHook'>;
  /** Task hooks for its task tools (e.g. the `TaskCompleted` command hooks). */
  taskHooks?: TaskHooks;
}

/** Why the teammate's loop ended. */
export interface TeammateExit {
  /**
   * `shutdown`: it approved the lead's shutdown request; `aborted`: the lifecycle signal;
   * `failed`: an error it could not go on after (`message` says which).
   */
  reason: 'shutdown' | 'aborted' | 'failed';
  /** In words, for the lead's log. */
  message: string;
  /** Turns it ran. */
  turns: number;
  /** The shutdown request it approved (reason `shutdown`). */
  shutdownRequestId?: string;
  /** The error (reason `failed`). */
  error?: unknown;
}

/** Codes of {@link TeammateError}. */
export type TeammateErrorCode = 'INVALID_OPTIONS';

/** Problems with `runTeammate`'s options. */
export class TeammateError extends MusterError<TeammateErrorCode> {}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

function invalid(message: string): TeammateError {
  return new TeammateError({ code: 'INVALID_OPTIONS', message: `runTeammate: ${message}` });
}

/** Throws `TeammateError('INVALID_OPTIONS')` naming the first problem of `options`. */
export function checkTeammateOptions(options: TeammateOptions): void {
  if (options === null || typeof options !== 'object') {
    throw invalid('options must be an object ({ root, teamName, agentName, cwd, client, … }).');
  }
  for (const field of ['root', 'teamName', 'model'] as const) {
    if (typeof options[field] !== 'string' || options[field] === '') {
      throw invalid(`${field} must be a non-empty string, got ${JSON.stringify(options[field])}.`);
    }
  }
  if (typeof options.agentName !== 'string' || !NAME.test(options.agentName)) {
    throw invalid(
      `agentName ${JSON.stringify(options.agentName)} is not a member name (letters, digits, ".", "_" or "-", starting with a letter or digit).`,
    );
  }
  if (
    options.agentId !== undefined &&
    options.agentId !== `${options.agentName}@${options.teamName}`
  ) {
    throw invalid(
      `agentId must be "${options.agentName}@${options.teamName}" (<agentName>@<teamName>), got ${JSON.stringify(options.agentId)}.`,
    );
  }
  if (typeof options.cwd !== 'string' || !isAbsolute(options.cwd)) {
    throw invalid(`cwd must be an absolute path, got ${JSON.stringify(options.cwd)}.`);
  }
  if (options.client === null || typeof options.client !== 'object') {
    throw invalid('client must be a model client (createModelClient from @muster/query).');
  }
  const system = options.systemPrompt as unknown;
  if (!(typeof system === 'string' && system !== '') && !Array.isArray(system)) {
    throw invalid('systemPrompt must be a non-empty string or an array of text blocks.');
  }
  if (!Array.isArray(options.tools)) {
    throw invalid('tools must be an array of tools (pass [] for none).');
  }
  if (
    options.permissionMode !== undefined &&
    !PermissionModeSchema.safeParse(options.permissionMode).success
  ) {
    throw invalid(
      `permissionMode ${JSON.stringify(options.permissionMode)} is not a permission mode (default, acceptEdits, plan, bypassPermissions, …).`,
    );
  }
  if (options.planFilePath !== undefined && !isAbsolute(options.planFilePath)) {
    throw invalid(
      `planFilePath must be an absolute path, got ${JSON.stringify(options.planFilePath)}.`,
    );
  }
  const trust = options.leadTrust as Record<string, unknown> | undefined;
  if (
    trust === undefined ||
    trust === null ||
    typeof trust !== 'object' ||
    !('verifyKey' in trust || 'ledger' in trust || 'trust' in trust)
  ) {
    throw invalid(
      'leadTrust is required: { verifyKey } (the --lead-verify-key the lead passed), { ledger } (the in-process lead keyring.ledger) or { trust } (createLeadTrust). Without it the teammate could not tell its lead from a forger.',
    );
  }
  if (!(options.signal instanceof AbortSignal)) {
    throw invalid('signal must be the lifecycle AbortSignal (the backend context.signal).');
  }
  if (
    options.compaction !== undefined &&
    !(Number.isFinite(options.compaction.thresholdTokens) && options.compaction.thresholdTokens > 0)
  ) {
    throw invalid('compaction.thresholdTokens must be a positive number of tokens.');
  }
  if (
    options.prompt !== undefined &&
    (typeof options.prompt !== 'string' || options.prompt === '')
  ) {
    throw invalid('prompt, when given, must be the non-empty spawn prompt.');
  }
}
