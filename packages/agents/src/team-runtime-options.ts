// What `createTeamRuntime` takes and gives back: the options of a lead's team session, the
// asks it raises, and how a headless run ends. Every problem with the options names the
// option, what was wrong and what to pass instead.
import { isAbsolute } from 'node:path';
import type { Backend } from '@muster/backends';
import type { PermissionContextInput } from '@muster/permissions';
import {
  MusterError,
  PermissionModeSchema,
  type BackendType,
  type PermissionMode,
} from '@muster/protocol';
import type { AnyTool, ModelClient, TokenUsage, TurnResult } from '@muster/query';
import type { SpawnToolDialect } from './spawn-tool-schemas.js';
import type { MemberState, TeamEvent, TeamEventSink } from './team-event.js';
import type { TeamMemberTask, TeamTaskList } from './team-runtime-tasks.js';
import type { TeamMemberView } from './team-runtime-view.js';

/**
 * Who answers permission and plan asks: `person` (each ask is a `TeamEvent` of type `ask`
 * and waits for `answer()`), or `headless` (the lead's rules and mode decide; whatever they
 * do not allow is denied, and the denial is audited and reported as `ask_answer`).
 */
export type AskPolicy = 'person' | 'headless';

/** Options of `createTeamRuntime`. */
export interface TeamRuntimeOptions {
  /** The project directory the lead works in (absolute). */
  cwd: string;
  /** The muster root holding `teams/` and `tasks/` (absolute). */
  root: string;
  /** The lead's model client (`createModelClient` of @muster/query). */
  client: ModelClient;
  /** The in-process teammates' model client (default: `client`). */
  teammateClient?: ModelClient;
  /** The lead's model, an id or an alias (`sonnet`). */
  model: string;
  /** The lead's permission mode (default `default`). Teammates are never given a wider one. */
  permissionMode?: PermissionMode;
  /** The lead's permission rules (`Bash(npm test:*)`, …); teammates are asked under the same rules. */
  permissionRules?: PermissionContextInput['rules'];
  /** Who answers asks (default `person`). */
  askPolicy?: AskPolicy;
  /**
   * Who answers a teammate's plan: `model` (default: the request reaches the lead's model,
   * which answers with SendMessage) or `person` (an `ask` of kind `plan`).
   */
  planApproval?: 'model' | 'person';
  /**
   * Where teammates run: `auto` (tmux when inside tmux, a private tmux server, iTerm2, a PTY,
   * in-process, each fallback announced) or a backend name (default `in-process`). A function
   * chooses per teammate.
   */
  teammateMode?: TeammateMode | ((teammate: { name: string; agentType: string }) => TeammateMode);
  /**
   * The backends this session may use. Default: in-process, pty, tmux and iTerm2 (each says
   * whether it is available here). Closed by `close()`.
   */
  backends?: readonly Backend[];
  /**
   * The model credentials handed to process teammates (`ANTHROPIC_API_KEY` or
   * `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_BASE_URL`). Default: picked from `environment`.
   */
  modelEnvironment?: Record<string, string>;
  /** The command of a process teammate (program and leading arguments); see `spawnTeammate`. */
  teammateCommand?: { file: string; args?: readonly string[] };
  /** The spawn tool's dialect: `2.1.45` offers `Task` (default), `2.1.330` offers `Agent`. */
  dialect?: SpawnToolDialect;
  /** The lead's general tools (default `createBuiltInTools()`); the runtime adds the team, task and spawn tools. */
  tools?: readonly AnyTool[];
  /** A system prompt replacing muster's default lead prompt (the environment section still follows). */
  systemPrompt?: string;
  /** Text appended to the lead's system prompt. */
  appendSystemPrompt?: string;
  /** The most model requests one lead turn may make (default: the loop's own limit). */
  maxTurns?: number;
  /** The environment tools and hooks start from (default `process.env`; model credentials are removed). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** The home directory of permission contexts and definitions (default `os.homedir()`). */
  homeDirectory?: string;
  /** Today as `YYYY-MM-DD` for system prompts (default: the current UTC date). */
  date?: string;
  /** Receives every event of the team (also available through `subscribe`). */
  onEvent?: TeamEventSink;
  /** How long a teammate has to end after its approved shutdown before it is killed (default 5 000 ms). */
  memberExitDeadlineMs?: number;
  /**
   * How often the team's task list is re-read while the lead is in a team (default 1 000 ms;
   * 0: only when an event hints at a change). It is also re-read after task tools, messages
   * and state changes; each change is a `tasks` event.
   */
  taskPollMs?: number;
}

/** Where a teammate runs: `auto` or a backend name. */
export type TeammateMode = 'auto' | BackendType;

/** An ask waiting for an answer (the `ask` event's fields). */
export type TeamAsk = Omit<Extract<TeamEvent, { type: 'ask' }>, 'type'>;

/** The answer to an ask. */
export interface AskAnswer {
  behavior: 'allow' | 'deny';
  /** Why it was denied (the asking agent's model reads it), or a plan's feedback. */
  message?: string;
  /**
   * `once` (default) or `always`: a teammate's permission approved with its own suggested
   * rules kept for the rest of the session (its mode, and the lead's, never widen).
   */
  scope?: 'once' | 'always';
  /** Who answered (default `person`). */
  by?: string;
}

/** How a headless run ended. */
export interface RunOutcome {
  /**
   * `completed`: the lead finished and every teammate shut down; `failed`: a lead turn failed;
   * `timeout`: the bound passed and the team was shut down; `aborted`: the caller's signal.
   */
  status: 'completed' | 'failed' | 'timeout' | 'aborted';
  /** The lead's last reply. */
  text: string;
  /** Lead turns run. */
  turns: number;
  /** The failed turn's error (status `failed`). */
  error?: { code: string; message: string };
  /** What the shutdown at the end did. */
  shutdown: ShutdownReport;
}

/** What `shutdown()` did, per teammate. */
export interface ShutdownReport {
  /** Teammates that approved a shutdown request and ended. */
  approved: string[];
  /** Teammates that were killed (no answer before the deadline, or a refusal). */
  killed: string[];
}

/** A teammate as the runtime sees it. */
export interface TeamMemberStatus {
  name: string;
  agentId: string;
  backendType: BackendType;
  /** Its color in the team config (`blue`, `green`, …): show its name in it. */
  color: string;
  /** Its agent type (`general-purpose`, a definition's name). */
  agentType: string;
  /** The model id it runs, when known. */
  model?: string;
  /** Whether its process or in-process run is still going. */
  alive: boolean;
  /**
   * Its latest state: the last `member_state` event (in-process members), else `idle` after an
   * idle notification (process members).
   */
  state?: MemberState | 'idle';
  /** Its usage so far (every backend: a process teammate reports it in its idle notifications). */
  usage?: TokenUsage;
  /**
   * Its estimated cost so far in US dollars at list prices (`estimateCostUsd` of @muster/query,
   * summed per request); absent when its model has no price (show "cost unknown").
   */
  costUsd?: number;
  /**
   * The task it works on: the lowest-id task of the team's list with `owner` = its name and
   * status `in_progress`, as of the runtime's latest read of the list (see `tasks()`).
   */
  currentTask?: TeamMemberTask;
  /** How a person can look at it: a transcript, a screen, or an attach command. */
  view: TeamMemberView;
}

/** The session's line for a status bar (`TeamRuntime.status()`). */
export interface TeamRuntimeStatus {
  /** The lead's model id. */
  model: string;
  /** The lead's permission mode now. */
  permissionMode: PermissionMode;
  /** The team the lead leads now, if any. */
  teamName?: string;
  /** The lead's usage so far. */
  leadUsage: TokenUsage;
  /** The lead's estimated cost (USD); absent when its model has no price. */
  leadCostUsd?: number;
  /**
   * The estimated cost of every agent of the session added up (USD): the lead, its teammates
   * and the subagents whose requests reached the event stream; absent when none is priced.
   */
  totalCostUsd?: number;
  /** Agents with usage but no price (unknown model): `totalCostUsd` leaves them out. */
  unpricedAgents: string[];
}

/** A lead's team session. */
export interface TeamRuntime {
  /** The lead's name in its team (`team-lead`). */
  readonly leadName: string;
  /** The team the lead leads now (after TeamCreate), or undefined. */
  teamName(): string | undefined;
  /** Adds a listener for every team event; returns an unsubscribe function. */
  subscribe(sink: TeamEventSink): () => void;
  /**
   * Sends the person's message to the lead: it starts a turn, or, while a turn runs, joins it
   * at its next tool-result boundary. Resolves with the result of the turn that took it.
   */
  prompt(text: string): Promise<TurnResult>;
  /** Aborts the lead's current turn only; teammates go on. False when no turn ran. */
  interrupt(): boolean;
  /** Asks waiting for an answer, oldest first. */
  pendingAsks(): TeamAsk[];
  /** Answers an ask. Throws `UNKNOWN_ASK` for an ask that is not waiting. */
  answer(askId: string, answer: AskAnswer): Promise<void>;
  /** Writes the person's message to a teammate's inbox, from the lead. */
  messageTeammate(name: string, text: string, summary?: string): Promise<void>;
  /**
   * The teammates this session spawned, at once (no I/O). `currentTask` comes from the latest
   * read of the task list (the runtime re-reads it after task events and on a poll; `tasks()`
   * reads it now).
   */
  members(): TeamMemberStatus[];
  /**
   * Reads the team's task list now (cheap: unchanged files are not parsed again) and refreshes
   * the members' `currentTask`; undefined while the lead is in no team. A change is also a
   * `tasks` event.
   */
  tasks(): Promise<TeamTaskList | undefined>;
  /** Model, permission mode, team and costs, for a status line (no I/O). */
  status(): TeamRuntimeStatus;
  /** Usage of the lead's model so far. */
  leadUsage(): TokenUsage;
  /**
   * Headless: sends `prompt`, then lets the lead take every teammate message as a new turn
   * until the lead has nothing left to do and every teammate has ended; an idle team is asked
   * to shut down. `timeoutMs` bounds it (then the team is shut down, status `timeout`). After a
   * run that did not complete the lead takes no more prompts: `close()` the runtime.
   */
  run(prompt: string, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<RunOutcome>;
  /**
   * Asks every live teammate to shut down (signed `shutdown_request`), waits up to
   * `deadlineMs` (default 10 000) for them to end, then kills the rest.
   */
  shutdown(options?: { deadlineMs?: number; reason?: string }): Promise<ShutdownReport>;
  /** Ends everything at once: the lead's turn, every teammate (killed), the backends. Idempotent. */
  close(): Promise<void>;
}

/** Codes of {@link TeamRuntimeError}. */
export type TeamRuntimeErrorCode = 'INVALID_OPTIONS' | 'UNKNOWN_ASK' | 'CLOSED' | 'NOT_IN_TEAM';

/** Problems with the team runtime's options or calls. */
export class TeamRuntimeError extends MusterError<TeamRuntimeErrorCode> {}

function invalid(message: string): TeamRuntimeError {
  return new TeamRuntimeError({
    code: 'INVALID_OPTIONS',
    message: `createTeamRuntime: ${message}`,
  });
}

/** Throws `TeamRuntimeError('INVALID_OPTIONS')` naming the first problem of `options`. */
export function checkTeamRuntimeOptions(options: TeamRuntimeOptions): void {
  if (options === null || typeof options !== 'object') {
    throw invalid('options must be an object ({ cwd, root, client, model, … }).');
  }
  for (const key of ['cwd', 'root'] as const) {
    const value = options[key];
    if (typeof value !== 'string' || !isAbsolute(value)) {
      throw invalid(`${key} must be an absolute path, not ${JSON.stringify(value)}.`);
    }
  }
  if (options.client === null || typeof options.client !== 'object') {
    throw invalid('client must be a model client (createModelClient from @muster/query).');
  }
  if (typeof options.model !== 'string' || options.model.trim() === '') {
    throw invalid(
      `model must be a model id or alias (e.g. "sonnet"), not ${JSON.stringify(options.model)}.`,
    );
  }
  if (
    options.permissionMode !== undefined &&
    !PermissionModeSchema.safeParse(options.permissionMode).success
  ) {
    throw invalid(
      `permissionMode ${JSON.stringify(options.permissionMode)} is not a permission mode (${PermissionModeSchema.options.join(', ')}).`,
    );
  }
  if (
    options.askPolicy !== undefined &&
    options.askPolicy !== 'person' &&
    options.askPolicy !== 'headless'
  ) {
    throw invalid(
      `askPolicy must be "person" or "headless", not ${JSON.stringify(options.askPolicy)}.`,
    );
  }
  if (
    options.planApproval !== undefined &&
    options.planApproval !== 'model' &&
    options.planApproval !== 'person'
  ) {
    throw invalid(
      `planApproval must be "model" or "person", not ${JSON.stringify(options.planApproval)}.`,
    );
  }
  if (
    options.dialect !== undefined &&
    options.dialect !== '2.1.45' &&
    options.dialect !== '2.1.330'
  ) {
    throw invalid(`dialect must be "2.1.45" or "2.1.330", not ${JSON.stringify(options.dialect)}.`);
  }
  if (
    options.maxTurns !== undefined &&
    (!Number.isInteger(options.maxTurns) || options.maxTurns < 1)
  ) {
    throw invalid(
      `maxTurns must be a whole number of at least 1, not ${JSON.stringify(options.maxTurns)}.`,
    );
  }
  if (
    options.taskPollMs !== undefined &&
    (!Number.isInteger(options.taskPollMs) || options.taskPollMs < 0)
  ) {
    throw invalid(
      `taskPollMs must be a whole number of milliseconds (0 or more), not ${JSON.stringify(options.taskPollMs)}.`,
    );
  }
  if (options.backends !== undefined && !Array.isArray(options.backends)) {
    throw invalid(
      'backends must be a list of backends (createInProcessBackend(), createPtyBackend(…), …).',
    );
  }
}
