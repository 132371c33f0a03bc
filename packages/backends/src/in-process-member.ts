// One in-process member: its body runs under its own AsyncLocalStorage store (R27) with its own
// lifecycle AbortController (R29), and an error escaping its code ends it alone (R30).
import { BackendError } from './backend-error.js';
import type {
  InProcessMemberContext,
  MemberExit,
  MemberExitReason,
  MemberHandle,
  MemberSpec,
  MemberView,
} from './backend-types.js';
import type { CheckedInProcessSpec } from './in-process-spec.js';
import { checkDuration, DEFAULT_KILL_DEADLINE_MS } from './in-process-spec.js';
import type { MemberCrashOrigin, MemberStore } from './member-context.js';
import { runAsMember, runOutsideMembers } from './member-context.js';

/** Where an error that ended (or outlived) an in-process member came from. */
export type InProcessCrashOrigin = 'run' | MemberCrashOrigin;

/** What the backend learns about a member it started. */
export interface InProcessMemberEvents {
  /** An error escaped the member's code; `afterExit` when the member had already ended. */
  crashed(
    agentId: string,
    error: unknown,
    details: { origin: InProcessCrashOrigin; afterExit: boolean },
  ): void;
  /** The member's `run` settled (it may have been marked ended earlier, by a forced kill). */
  settled(member: InProcessMember): void;
}

/** A started in-process member (the `MemberHandle` of the in-process backend). */
export class InProcessMember implements MemberHandle {
  readonly backend = 'in-process' as const;
  readonly ready: Promise<void>;
  readonly exited: Promise<MemberExit>;
  readonly #lifecycle = new AbortController();
  readonly #events: InProcessMemberEvents;
  #exit: MemberExit | undefined;
  #runSettled = false;
  #killRequested = false;
  #pendingKillReason: MemberExitReason = 'killed';
  #pendingKillWhy = 'was killed';
  readonly #readyTimeoutMs: number;
  #store: MemberStore | undefined;
  #readyPending = true;
  #readyTimer: NodeJS.Timeout | undefined;
  #killTimer: NodeJS.Timeout | undefined;
  #resolveReady!: () => void;
  #rejectReady!: (error: BackendError) => void;
  #resolveExited!: (exit: MemberExit) => void;
  readonly #environment: Readonly<Record<string, string>>;

  constructor(
    readonly spec: MemberSpec,
    checked: CheckedInProcessSpec,
    events: InProcessMemberEvents,
    /** What the member's tool processes must carry (the lead run marker). */
    environment: Readonly<Record<string, string>> = {},
  ) {
    this.#events = events;
    this.#environment = Object.freeze({ ...environment });
    this.#readyTimeoutMs = checked.readyTimeoutMs;
    this.ready = new Promise<void>((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    // Nobody has to await `ready`: a rejection nobody reads is not an unhandled rejection.
    this.ready.catch(() => undefined);
    this.exited = new Promise<MemberExit>((resolve) => {
      this.#resolveExited = resolve;
    });
    runOutsideMembers(() => {
      this.#readyTimer = setTimeout(
        () => this.#notReadyInTime(checked.readyTimeoutMs),
        checked.readyTimeoutMs,
      );
    });
    this.#start(checked.run);
  }

  /** The lifecycle signal handed to the member (aborted by `kill`, `close` or a crash). */
  get signal(): AbortSignal {
    return this.#lifecycle.signal;
  }

  /** Whether the member's `run` has settled (after a forced kill it may still be going). */
  get runSettled(): boolean {
    return this.#runSettled;
  }

  markReady(): void {
    this.#becomeReady();
  }

  isAlive(): boolean {
    return this.#exit === undefined;
  }

  kill(options: { graceful?: boolean; deadlineMs?: number } = {}): Promise<MemberExit> {
    let deadlineMs: number;
    try {
      deadlineMs = checkDuration(
        options.deadlineMs ?? DEFAULT_KILL_DEADLINE_MS,
        'kill deadlineMs',
        this.spec.agentId,
      );
    } catch (error) {
      return Promise.reject(error as Error);
    }
    this.#terminate('killed', options.graceful ?? true, deadlineMs);
    return this.exited;
  }

  describe(): MemberView {
    const notes = [
      `${this.spec.agentId} runs inside the lead process (pid ${process.pid}); it has no pid or pane of its own.`,
    ];
    if (this.#exit !== undefined) notes.push(`ended (${this.#exit.reason}): ${this.#exit.message}`);
    if (this.#exit !== undefined && !this.#runSettled) {
      notes.push(
        'its run has not settled yet: it keeps going until it observes its aborted lifecycle signal.',
      );
    }
    if (this.spec.environment !== undefined) {
      notes.push(
        'spec.environment is not applied: process.env is shared by the whole lead process (R28).',
      );
    }
    return { backend: 'in-process', notes };
  }

  /** Ends the member because `error` escaped its code (the store's crash sink). */
  crash(error: unknown, origin: InProcessCrashOrigin): void {
    const afterExit = this.#exit !== undefined;
    if (afterExit) {
      this.#events.crashed(this.spec.agentId, error, { origin, afterExit });
      return;
    }
    const where =
      origin === 'run'
        ? 'its run rejected'
        : `an ${origin === 'uncaughtException' ? 'uncaught exception' : 'unhandled rejection'} in its code`;
    this.#abort(`it crashed (${where})`);
    this.#finish(
      'crashed',
      `${this.spec.agentId} crashed: ${where}: ${describeError(error)}. The lead and the other members keep running; fix the cause and start the member again.`,
    );
    // Reported once the member has ended: `onCrash` sees it dead and its exit resolved.
    this.#events.crashed(this.spec.agentId, error, { origin, afterExit });
  }

  #start(run: CheckedInProcessSpec['run']): void {
    const store: MemberStore = (this.#store = {
      identity: Object.freeze({
        agentId: this.spec.agentId,
        agentName: this.spec.agentName,
        teamName: this.spec.teamName,
      }),
      crash: (error, origin) => this.crash(error, origin),
    });
    const context: InProcessMemberContext = Object.freeze({
      teamName: this.spec.teamName,
      agentName: this.spec.agentName,
      agentId: this.spec.agentId,
      cwd: this.spec.cwd,
      signal: this.#lifecycle.signal,
      ready: () => this.#becomeReady(),
      environment: this.#environment,
    });
    // The body starts on a microtask inside the member's store: spawn returns at once, and a
    // synchronous throw in `run` becomes a rejection like any other.
    const running = runAsMember(store, () => Promise.resolve().then(() => run(context)));
    running.then(
      () => this.#runEnded(undefined),
      (error: unknown) => this.#runEnded({ error }),
    );
  }

  #runEnded(failure: { error: unknown } | undefined): void {
    this.#runSettled = true;
    clearTimeout(this.#killTimer);
    this.#events.settled(this);
    if (this.#exit !== undefined) return;
    if (this.#killRequested) {
      this.#finish(
        this.#pendingKillReason,
        `${this.spec.agentId} ${this.#pendingKillWhy}; its run settled${failure === undefined ? '' : ` (${describeError(failure.error)})`}.`,
      );
      return;
    }
    if (failure !== undefined) {
      this.crash(failure.error, 'run');
      return;
    }
    this.#finish('exited', `${this.spec.agentId} ended by itself: its run resolved.`, 0);
  }

  #terminate(reason: 'killed' | 'not-ready', graceful: boolean, deadlineMs: number): void {
    if (this.#exit !== undefined) return;
    if (!this.#killRequested) {
      this.#killRequested = true;
      this.#pendingKillReason = reason;
      this.#pendingKillWhy =
        reason === 'killed'
          ? 'was killed: its lifecycle signal was aborted'
          : `did not call context.ready() within ${String(this.#readyTimeoutMs)} ms and was killed`;
      this.#abort(reason === 'killed' ? 'it was killed' : 'it did not become ready in time');
    }
    if (!graceful) {
      this.#finish(
        reason,
        `${this.spec.agentId} ${this.#pendingKillWhy} (forced: the lead stopped waiting for its run to settle).`,
      );
      return;
    }
    if (this.#killTimer !== undefined) return;
    runOutsideMembers(() => {
      this.#killTimer = setTimeout(() => {
        this.#finish(
          reason,
          `${this.spec.agentId} ${this.#pendingKillWhy}, and its run did not settle within ${String(deadlineMs)} ms; it is marked ended and keeps going only until it observes its signal.`,
        );
      }, deadlineMs);
    });
  }

  #abort(why: string): void {
    if (this.#lifecycle.signal.aborted) return;
    const reason = new DOMException(`${this.spec.agentId}: ${why}.`, 'AbortError');
    // The abort is the member's own event: its listeners (which end its turn and its tools) run
    // as the member, and an error they throw is the member's, whoever called kill().
    const abort = () => this.#lifecycle.abort(reason);
    if (this.#store === undefined) abort();
    else runAsMember(this.#store, abort);
  }

  #becomeReady(): void {
    // A member being killed is not ready, even if it says so while it winds down.
    if (!this.#readyPending || this.#exit !== undefined || this.#killRequested) return;
    this.#readyPending = false;
    clearTimeout(this.#readyTimer);
    this.#resolveReady();
  }

  #notReadyInTime(timeoutMs: number): void {
    if (!this.#readyPending || this.#exit !== undefined) return;
    this.#failReady(
      `${this.spec.agentId} did not call context.ready() within ${String(timeoutMs)} ms and was killed; make its run call context.ready() once it has read its inbox, or raise readyTimeoutMs.`,
    );
    this.#terminate('not-ready', true, DEFAULT_KILL_DEADLINE_MS);
  }

  #failReady(message: string): void {
    if (!this.#readyPending) return;
    this.#readyPending = false;
    clearTimeout(this.#readyTimer);
    this.#rejectReady(
      new BackendError({ code: 'NOT_READY', message, details: { agentId: this.spec.agentId } }),
    );
  }

  #finish(reason: MemberExitReason, message: string, code: number | null = null): void {
    if (this.#exit !== undefined) return;
    const exit: MemberExit = { reason, code, signal: null, message, at: Date.now() };
    this.#exit = exit;
    clearTimeout(this.#readyTimer);
    clearTimeout(this.#killTimer);
    this.#failReady(`${this.spec.agentId} ended before it said ready: ${message}`);
    this.#resolveExited(exit);
  }
}

/** One line for an error of any kind (name and message, or the value itself). */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
