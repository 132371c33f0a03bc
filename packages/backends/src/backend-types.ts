// The one interface every backend implements (R14): where a team member runs, how the lead
// learns it is ready, how it ends, and how a person can look at it. Backends know nothing
// about models or tools: an in-process member is a function, a process member a command.
import type { BackendType } from '@muster/protocol';

/** How the lead knows a member is ready. */
export type ReadinessSignal =
  /** The member connected back over the lead link and said it read its inbox (muster members). */
  | 'connect-back'
  /**
   * The member's first `idle_notification` in the lead's inbox (a real Claude Code teammate,
   * which does not connect back). The caller resolves it with `handle.markReady()`.
   */
  | 'external';

/** What an in-process member gets: its identity, its lifecycle signal and the lead link's side of it. */
export interface InProcessMemberContext {
  readonly teamName: string;
  readonly agentName: string;
  readonly agentId: string;
  readonly cwd: string;
  /** Aborted when the member is killed or the lead shuts down (the lifecycle signal, R29). */
  readonly signal: AbortSignal;
  /** Call once the member has read its inbox: resolves the lead's `ready`. */
  ready(): void;
  /**
   * Entries to add to the environment of every process the member starts (its tools): the lead
   * run marker `MUSTER_LEAD_RUN=<id>` by which the process reaper ends them when the lead dies,
   * even by SIGKILL. `createInProcessBackend` always sets it (empty only with
   * `processReaper: false` or where no reaper can run); optional for hand-made contexts.
   */
  readonly environment?: Readonly<Record<string, string>>;
}

/** What to start. */
export interface MemberSpec {
  /** The muster root holding the team folder (`<root>/teams/<team>`). */
  root: string;
  teamName: string;
  agentName: string;
  /** `<name>@<team>`. */
  agentId: string;
  /** The member's color in the team config (a UI hint; tmux pane border). */
  color?: string;
  /** The member's working directory (absolute). Never `process.chdir`. */
  cwd: string;
  /** Extra environment for a process member (on top of the lead's, minus model credentials unless given here). */
  environment?: Record<string, string>;
  /** Process backends: the program and its arguments, executed directly (never typed into a shell). */
  command?: { file: string; args: readonly string[] };
  /** In-process backend: the member's body. Its promise settling ends the member. */
  run?: (context: InProcessMemberContext) => Promise<void>;
  /** Default `connect-back`. */
  readiness?: ReadinessSignal;
  /** How long `ready` may take before the member is killed and `ready` rejects (default 15 000 ms). */
  readyTimeoutMs?: number;
}

/** Why a member ended. */
export type MemberExitReason =
  /** It ended by itself (exit code in `code`). */
  | 'exited'
  /** `kill()` ended it. */
  | 'killed'
  /** It threw (in-process) or died from a signal it did not ask for. */
  | 'crashed'
  /** It never became ready within `readyTimeoutMs`. */
  | 'not-ready'
  /** It could not be started at all. */
  | 'spawn-failed'
  /** Its pane or process disappeared without an exit we saw (killed from outside). */
  | 'vanished';

/** How a member ended. */
export interface MemberExit {
  reason: MemberExitReason;
  code: number | null;
  signal: string | null;
  /** One sentence for people (what happened, what to look at). */
  message: string;
  at: number;
}

/** How a person (or `muster doctor`/`watch`) can look at a member. */
export interface MemberView {
  backend: BackendType;
  pid?: number;
  /** tmux `%N` pane id, or iTerm2 session id. */
  paneId?: string;
  /** tmux socket name (`-L`) or path, when private. */
  socket?: string;
  /** A shell command that shows the member (`tmux -L muster-x attach -t …`). */
  attachCommand?: string;
  /** File with the member's output (pty). */
  logFile?: string;
  /** Anything else worth showing. */
  notes?: string[];
}

/** A started member. */
export interface MemberHandle {
  readonly spec: MemberSpec;
  readonly backend: BackendType;
  /** Resolves when the member itself confirmed it is ready; rejects with `BackendError('NOT_READY')` (and the member is killed). */
  readonly ready: Promise<void>;
  /** Resolves once, when the member has ended (never rejects). */
  readonly exited: Promise<MemberExit>;
  /** For `readiness: 'external'`: the caller saw the member's first idle notification. */
  markReady(): void;
  /** Whether it is running now (checked against the process or pane itself, not a cached flag). */
  isAlive(): boolean;
  /**
   * Ends it: graceful (SIGTERM to the process group / pane's process, or the in-process
   * lifecycle signal) then, after `deadlineMs` (default 5 000), forced (SIGKILL of the group and
   * any process of its session; pane killed). Identity is re-verified before any signal is sent
   * (R16): a pid or pane that is no longer the member's is never touched. Idempotent.
   */
  kill(options?: { graceful?: boolean; deadlineMs?: number }): Promise<MemberExit>;
  /** How to look at it. */
  describe(): MemberView;
}

/** Whether a backend can be used here, and if not, why and what to install. */
export type BackendAvailability =
  { available: true; notes?: string[] } | { available: false; reason: string; fix: string };

/** One backend. */
export interface Backend {
  readonly name: BackendType;
  availability(): Promise<BackendAvailability>;
  /** Starts a member. Throws `BackendError('UNAVAILABLE' | 'INVALID_SPEC' | 'SPAWN_FAILED')` naming the cause and the fix. */
  spawn(spec: MemberSpec): Promise<MemberHandle>;
  /** Kills every member it started (allSettled) and releases what it holds (tmux server, helper process). */
  close(): Promise<void>;
}
