// One member in a tmux pane: its readiness, its exit (seen by the backend's reconciler or by
// its own kill), liveness from the pane's process itself, and how a person can look at it.
import { BackendError } from './backend-error.js';
import type {
  MemberExit,
  MemberExitReason,
  MemberHandle,
  MemberSpec,
  MemberView,
} from './backend-types.js';
import {
  guardedKillPane,
  isPaneProcessRunning,
  killTmuxPane,
  sessionMembers,
  signalName,
  type TmuxPaneIdentity,
} from './tmux-identity.js';
import { recoverLostExitStatus } from './tmux-exit-status.js';
import { quoteForShell, TmuxCommandError, type TmuxRunner } from './tmux-runner.js';

/** Reconciler rounds a dead pane may show no status before its exit is reported without one. */
const STATUS_ROUNDS = 6;

/** One pane as the reconciler lists it (`list-panes -a`). */
export interface TmuxPaneState {
  serverPid: number;
  paneId: string;
  panePid: number;
  dead: boolean;
  /** Exit status of a dead pane's process (empty when it died from a signal). */
  status: number | null;
  /** Signal that ended a dead pane's process. */
  signal: string | null;
}

/** The list-panes format the reconciler reads; parse lines with {@link parsePaneStates}. */
export const PANE_STATE_FORMAT =
  '#{pid}\t#{pane_id}\t#{pane_pid}\t#{pane_dead}\t#{pane_dead_status}\t#{pane_dead_signal}';

/** Parses `list-panes -a -F PANE_STATE_FORMAT` into a map keyed by exact pane id (R22). */
export function parsePaneStates(output: string): Map<string, TmuxPaneState> {
  const panes = new Map<string, TmuxPaneState>();
  for (const line of output.split('\n')) {
    const [serverPid, paneId, panePid, dead, status, signal] = line.split('\t');
    if (paneId === undefined || !paneId.startsWith('%')) continue;
    panes.set(paneId, {
      serverPid: Number(serverPid),
      paneId,
      panePid: Number(panePid),
      dead: dead === '1',
      status: status === undefined || status === '' ? null : Number(status),
      signal: signalName(signal),
    });
  }
  return panes;
}

/** What `describe()` says about a tmux member: the view plus what identifies its pane (R16). */
export interface TmuxMemberView extends MemberView {
  /** The tmux server's pid: pane ids only mean something together with it and the socket. */
  serverPid: number;
  /** The window (`@N`) holding the pane. */
  windowId: string;
  /** Start time of the pane's process (clock ticks since boot), where known. */
  paneStartTime?: string;
}

/** What the backend gives a member. */
export interface TmuxMemberSetup {
  spec: MemberSpec;
  runner: TmuxRunner;
  identity: TmuxPaneIdentity;
  windowId: string;
  /** A command that shows the member's pane. */
  attachCommand: string;
  /** `-L name` or the socket path, for people. */
  socketLabel: string;
  notes: string[];
  /** For `connect-back`: resolves when the member said it is ready over the lead link. */
  waitForLink?: (signal: AbortSignal) => Promise<void>;
  /** Called once, when the member has ended (the backend re-applies the layout). */
  onEnded: (member: TmuxMemberHandle) => void;
}

/** A member running in a tmux pane. */
export class TmuxMemberHandle implements MemberHandle {
  readonly spec: MemberSpec;
  readonly backend = 'tmux' as const;
  readonly ready: Promise<void>;
  readonly exited: Promise<MemberExit>;
  /** Socket, server pid, pane id, pane pid and start time: persist these (R16). */
  readonly identity: TmuxPaneIdentity;
  /** The tmux window (`@N`) holding the pane. */
  readonly windowId: string;
  readonly #setup: TmuxMemberSetup;
  #exit: MemberExit | undefined;
  #resolveExit!: (exit: MemberExit) => void;
  #resolveReady!: () => void;
  #rejectReady!: (error: BackendError) => void;
  #isReady = false;
  #ending: Promise<MemberExit> | undefined;
  readonly #readyAbort = new AbortController();
  #readyTimer: NodeJS.Timeout | undefined;
  #statusWaits = 0;

  constructor(setup: TmuxMemberSetup) {
    this.#setup = setup;
    this.spec = setup.spec;
    this.identity = setup.identity;
    this.windowId = setup.windowId;
    this.exited = new Promise((resolve) => (this.#resolveExit = resolve));
    this.ready = new Promise<void>((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    this.ready.catch(() => undefined);
    const timeoutMs = setup.spec.readyTimeoutMs ?? 15_000;
    this.#readyTimer = setTimeout(() => void this.#notReady(timeoutMs), timeoutMs);
    this.#readyTimer.unref();
    if (
      (setup.spec.readiness ?? 'connect-back') === 'connect-back' &&
      setup.waitForLink !== undefined
    ) {
      setup.waitForLink(this.#readyAbort.signal).then(
        () => this.#confirmReady(),
        () => undefined, // the timer above reports it
      );
    }
  }

  /** For `readiness: 'external'`: the caller saw the member's first idle notification. */
  markReady(): void {
    this.#confirmReady();
  }

  /** True while the pane's own process runs (pid and start time checked in /proc). */
  isAlive(): boolean {
    if (this.#exit !== undefined) return false;
    if (this.identity.paneStartTime !== undefined) return isPaneProcessRunning(this.identity);
    try {
      const output = this.#setup.runner.runSync([
        'display-message',
        '-p',
        '-t',
        this.identity.paneId,
        '#{pid} #{pane_pid} #{pane_dead}',
      ]);
      return output.trim() === `${this.identity.serverPid} ${this.identity.panePid} 0`;
    } catch {
      return false;
    }
  }

  /** Ends the member (group SIGTERM, deadline, SIGKILL of its session, `kill-pane`), re-verifying its identity first. */
  kill(options: { graceful?: boolean; deadlineMs?: number } = {}): Promise<MemberExit> {
    return this.#end('killed', options);
  }

  /**
   * The synchronous last pass (the lead is exiting): SIGKILL to the pane's process group and
   * session after checking the process is still the member's, then `kill-pane`.
   */
  killNow(): void {
    if (this.#exit !== undefined) return;
    if (isPaneProcessRunning(this.identity)) {
      for (const pid of [-this.identity.panePid, ...sessionMembers(this.identity.panePid)]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }
    try {
      this.#setup.runner.runSync(guardedKillPane(this.identity));
    } catch {
      // The pane or its server is gone.
    }
  }

  /** How to look at the member. */
  describe(): TmuxMemberView {
    return {
      backend: 'tmux',
      serverPid: this.identity.serverPid,
      windowId: this.windowId,
      ...(this.identity.paneStartTime === undefined
        ? {}
        : { paneStartTime: this.identity.paneStartTime }),
      pid: this.identity.panePid,
      paneId: this.identity.paneId,
      socket: this.identity.socketPath,
      attachCommand: this.#setup.attachCommand,
      notes: [
        `tmux server pid ${this.identity.serverPid}, window ${this.windowId}`,
        ...this.#setup.notes,
        ...(this.#exit === undefined ? [] : [this.#exit.message]),
      ],
    };
  }

  /** True once the member has ended or is being ended by `kill`. */
  get settling(): boolean {
    return this.#exit !== undefined || this.#ending !== undefined;
  }

  /**
   * Compares the member with the server's pane list (exact id match, R22) and records its
   * exit when its process ended or its pane vanished. Returns true when a clean exit's pane
   * (status 0) should now be closed.
   */
  reconcile(panes: Map<string, TmuxPaneState> | undefined, why?: string): boolean {
    if (this.settling) return false;
    const pane = panes?.get(this.identity.paneId);
    const sameServer = pane !== undefined && pane.serverPid === this.identity.serverPid;
    if (pane === undefined || !sameServer || pane.panePid !== this.identity.panePid) {
      this.finish('vanished', null, null, why ?? `its pane ${this.identity.paneId} disappeared`);
      return false;
    }
    if (!pane.dead) return false;
    // tmux marks the pane dead when its terminal closes, which can come before it has reaped
    // the process, and tmux < 3.5 can miss the process's SIGCHLD altogether
    // (tmux-exit-status.ts): then the server is told to reap it, and the status is read on the
    // next round. Only when that fails for several rounds is the exit reported without a code.
    if (pane.status === null && pane.signal === null && this.#statusWaits < STATUS_ROUNDS) {
      this.#statusWaits += 1;
      recoverLostExitStatus(this.identity);
      return false;
    }
    const reason: MemberExitReason = pane.signal === null ? 'exited' : 'crashed';
    this.finish(reason, pane.status, pane.signal);
    return pane.status === 0 && pane.signal === null;
  }

  /** Records the exit once (later calls are ignored) and settles `ready` and `exited`. */
  finish(
    reason: MemberExitReason,
    code: number | null,
    signal: string | null,
    detail?: string,
  ): MemberExit {
    if (this.#exit !== undefined) return this.#exit;
    const exit: MemberExit = {
      reason,
      code,
      signal,
      message: this.#message(reason, code, signal, detail),
      at: Date.now(),
    };
    this.#exit = exit;
    clearTimeout(this.#readyTimer);
    this.#readyAbort.abort();
    if (!this.#isReady) {
      this.#rejectReady(
        new BackendError({
          code: 'NOT_READY',
          message: `${this.spec.agentId} never confirmed it was ready: ${exit.message}`,
          details: { agentId: this.spec.agentId, exit },
        }),
      );
    }
    this.#resolveExit(exit);
    this.#setup.onEnded(this);
    return exit;
  }

  #confirmReady(): void {
    if (this.#isReady || this.#exit !== undefined) return;
    this.#isReady = true;
    clearTimeout(this.#readyTimer);
    this.#resolveReady();
  }

  async #notReady(timeoutMs: number): Promise<void> {
    if (this.#isReady || this.#exit !== undefined) return;
    await this.#end(
      'not-ready',
      { graceful: true, deadlineMs: 2_000 },
      `it did not confirm it was ready within ${timeoutMs} ms`,
    );
  }

  #end(
    reason: MemberExitReason,
    options: { graceful?: boolean; deadlineMs?: number },
    detail?: string,
  ): Promise<MemberExit> {
    if (this.#exit !== undefined) return Promise.resolve(this.#exit);
    this.#ending ??= this.#endNow(reason, options, detail);
    return this.#ending;
  }

  async #endNow(
    reason: MemberExitReason,
    options: { graceful?: boolean; deadlineMs?: number },
    detail?: string,
  ): Promise<MemberExit> {
    try {
      const result = await killTmuxPane(this.identity, {
        ...options,
        tmuxPath: this.#setup.runner.tmuxPath,
      });
      if (result.state === 'gone') return this.finish('vanished', null, null, result.reason);
      return this.finish(reason, result.code, result.signal ?? result.sent, detail);
    } catch (error) {
      if (BackendError.hasCode(error, 'IDENTITY_CHANGED')) {
        return this.finish('vanished', null, null, `${error.message}`);
      }
      const said = error instanceof TmuxCommandError ? error.stderr.trim() : String(error);
      return this.finish(
        'vanished',
        null,
        null,
        `ending it failed (${said}); check the pane yourself`,
      );
    }
  }

  #message(
    reason: MemberExitReason,
    code: number | null,
    signal: string | null,
    detail?: string,
  ): string {
    const who = this.spec.agentId;
    const pane = this.identity.paneId;
    const kept = `its pane ${pane} is kept for inspection (\`${this.#setup.attachCommand}\`; close it with \`tmux ${this.#setup.socketLabel} kill-pane -t ${pane}\`)`;
    switch (reason) {
      case 'exited':
        if (code === null) {
          // Reached only when tmux did not record the status even after being told to reap
          // the process (tmux-exit-status.ts).
          return `${who} ended, but tmux recorded no exit status for it (not even after a SIGCHLD to its server made it reap its ended children); ${kept}.`;
        }
        return code === 0
          ? `${who} exited with code 0; its pane ${pane} was closed.`
          : `${who} exited with code ${String(code)}; ${kept}.`;
      case 'crashed':
        return `${who} died from ${String(signal)}; ${kept}.`;
      case 'killed':
        return `${who} was killed${signal === null ? '' : ` (${signal})`} and its pane ${pane} closed.`;
      case 'not-ready':
        return `${who} was killed because ${detail ?? 'it never confirmed it was ready'}.`;
      case 'vanished':
        return `${who} is gone without an exit muster saw: ${detail ?? `pane ${pane} disappeared`}.`;
      default:
        return `${who} ended (${reason})${detail === undefined ? '' : `: ${detail}`}.`;
    }
  }
}

/** `tmux -L name` or `tmux -S path`, quoted for a shell (shown to people). */
export function socketLabelFor(runner: TmuxRunner): string {
  const address = runner.address;
  return 'socketName' in address
    ? `-L ${quoteForShell(address.socketName)}`
    : `-S ${quoteForShell(address.socketPath)}`;
}
