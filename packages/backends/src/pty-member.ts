// One member on a PTY: its handle (ready, exited, kill, isAlive, describe) plus the PTY extras
// (write, resize, screen). The exit is recorded before anything else happens, so input,
// resizes and kills after it are no-ops (R25), and a kill never signals a pid that is no longer
// the member's (R16: identity by pid and start time).
import { constants } from 'node:os';
import { existsSync, type WriteStream } from 'node:fs';
import { BackendError } from './backend-error.js';
import type { MemberExit, MemberHandle, MemberSpec, MemberView } from './backend-types.js';
import type { LeadLink } from './lead-link.js';
import { isSameProcess, killProcessTree, type ProcessIdentity } from './process-control.js';
import type { PtyHost, PtyHostMemberListener } from './pty-host-client.js';
import {
  checkTerminalSize,
  type TerminalScreen,
  type TerminalScreenSnapshot,
} from './terminal-screen.js';

/** Default time `ready` may take. */
export const DEFAULT_READY_TIMEOUT_MS = 15_000;
/** How long a member's exit waits for a ready it sent just before (see `finish`). */
const READY_IN_FLIGHT_MS = 250;
/** Default grace between SIGTERM and SIGKILL. */
const DEFAULT_KILL_DEADLINE_MS = 5_000;
/** How long after the last signal `kill` waits for node-pty to report the exit. */
const EXIT_REPORT_BOUND_MS = 5_000;

/** A member on a PTY: the common handle plus input, size and screen. */
export interface PtyMemberHandle extends MemberHandle {
  /** Types `data` into the member's terminal. A no-op once the member has exited (R25). */
  write(data: string): void;
  /** Resizes the member's terminal and its screen. A no-op once the member has exited (R25). */
  resize(columns: number, rows: number): void;
  /** What the member's terminal shows now (or showed when it ended). */
  screen(): Promise<TerminalScreenSnapshot>;
  /** The pid of the helper process that holds this member's PTY (R23). */
  readonly hostPid: number;
}

/** What a PTY member is built from (see `pty-backend.ts`). */
export interface PtyMemberParts {
  spec: MemberSpec;
  host: PtyHost;
  logFile: string;
  log: WriteStream;
  screen: TerminalScreen;
  /** The lead link, for `readiness: 'connect-back'`. */
  leadLink: LeadLink | undefined;
  onEnded(): void;
}

/** Without /proc (macOS) no identity can be read: the member's group is signalled by pid. */
const HAS_PROC_FILE_SYSTEM = existsSync('/proc/self/stat');

/** Resolves when `promise` settles or after `ms`, whichever is first. */
async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

function howItEnded(exit: MemberExit): string {
  return exit.signal === null ? `exit code ${String(exit.code)}` : exit.signal;
}

function signalName(signal: number): string {
  const entry = Object.entries(constants.signals).find(([, value]) => value === signal);
  return entry?.[0] ?? `signal ${signal}`;
}

/** Wires a started PTY (`start` resolves with its host id, pid and identity) into a handle. */
export function createPtyMember(
  parts: PtyMemberParts,
  start: (
    listener: PtyHostMemberListener,
  ) => Promise<{ id: number; pid: number; identity: ProcessIdentity | undefined }>,
): Promise<PtyMemberHandle> {
  const { spec, host, logFile, log, screen } = parts;
  let exit: MemberExit | undefined;
  let resolveExited!: (exit: MemberExit) => void;
  const exited = new Promise<MemberExit>((resolve) => {
    resolveExited = resolve;
  });
  let endCause: 'killed' | 'not-ready' | undefined;
  const readiness = new AbortController();
  let started: { id: number; pid: number; identity: ProcessIdentity | undefined } | undefined;
  let killing: Promise<MemberExit> | undefined;

  function finish(result: Omit<MemberExit, 'at'>): void {
    if (exit !== undefined) return;
    exit = { ...result, at: Date.now() };
    // A member may say ready and exit at once: its ready (the lead link's socket) and its exit
    // (the PTY host's pipe) travel different channels, so a ready in flight is still taken.
    setTimeout(() => readiness.abort(), READY_IN_FLIGHT_MS);
    const recorded = exit;
    void screen
      .snapshot()
      .then(() => screen.dispose())
      .finally(() => {
        log.end(() => {
          parts.onEnded();
          resolveExited(recorded);
        });
      });
  }

  function onExit(exitCode: number, signal: number): void {
    const how = signal > 0 ? signalName(signal) : `exit code ${exitCode}`;
    if (endCause !== undefined) {
      finish({
        reason: endCause,
        code: signal > 0 ? null : exitCode,
        signal: signal > 0 ? signalName(signal) : null,
        message:
          endCause === 'killed'
            ? `Member ${spec.agentId} was killed (${how}).`
            : `Member ${spec.agentId} did not say it was ready in time and was killed (${how}); its output is in ${logFile}.`,
      });
    } else if (signal > 0) {
      finish({
        reason: 'crashed',
        code: null,
        signal: signalName(signal),
        message: `Member ${spec.agentId} died from ${how}, which muster did not send; its output is in ${logFile}.`,
      });
    } else {
      finish({
        reason: 'exited',
        code: exitCode,
        signal: null,
        message: `Member ${spec.agentId} exited with code ${exitCode}${exitCode === 0 ? '' : `; its output is in ${logFile}`}.`,
      });
    }
  }

  const listener = {
    onData(data: string) {
      // Output that arrives after the exit was recorded still reaches the screen, not the closed log.
      if (!log.writableEnded) log.write(data);
      screen.write(data);
    },
    onExit,
    onHostEnded(reason: string) {
      // Nobody will report this member's exit: make sure it is gone, then say so.
      const identity = started?.identity;
      const cleanup =
        identity === undefined ? Promise.resolve() : killProcessTree(identity, { graceMs: 0 });
      void cleanup
        .catch(() => undefined)
        .finally(() => {
          finish({
            reason: endCause ?? 'vanished',
            code: null,
            signal: null,
            message: `Member ${spec.agentId} was ended because ${reason}; its output is in ${logFile}.`,
          });
        });
    },
  };

  async function kill(
    options: { graceful?: boolean; deadlineMs?: number } = {},
  ): Promise<MemberExit> {
    if (exit !== undefined) return exit;
    const deadlineMs = options.deadlineMs ?? DEFAULT_KILL_DEADLINE_MS;
    if (!Number.isFinite(deadlineMs) || deadlineMs < 0) {
      throw new BackendError({
        code: 'INVALID_SPEC',
        message: `kill of member ${spec.agentId}: deadlineMs must be a number ≥ 0, got ${String(options.deadlineMs)}`,
      });
    }
    endCause ??= 'killed';
    killing ??= (async () => {
      const identity = started?.identity;
      const graceMs = options.graceful === false ? 0 : deadlineMs;
      if (identity !== undefined) {
        try {
          await killProcessTree(identity, { graceMs });
        } catch (error) {
          // IDENTITY_CHANGED: the pid is no longer the member's, so it already ended and
          // nothing was sent; its exit report is on the way.
          if (!BackendError.hasCode(error, 'IDENTITY_CHANGED')) throw error;
        }
      } else if (!HAS_PROC_FILE_SYSTEM && started !== undefined) {
        // No /proc: the host has not reported the exit, so the pid (a session leader that
        // node-pty has not reaped) is still the member's.
        if (graceMs > 0) {
          signalGroup(started.pid, 'SIGTERM');
          await waitAtMost(exited, graceMs);
        }
        if (exit === undefined) signalGroup(started.pid, 'SIGKILL');
      }
      await waitAtMost(exited, EXIT_REPORT_BOUND_MS);
      finish({
        reason: 'killed',
        code: null,
        signal: null,
        message: `Member ${spec.agentId} was killed, but its PTY host did not report the exit within ${EXIT_REPORT_BOUND_MS} ms.`,
      });
      return exited;
    })();
    return killing;
  }

  function failReady(why: string, cause?: unknown): BackendError {
    return new BackendError({
      code: 'NOT_READY',
      message: `Member ${spec.agentId} (pty) is not ready: ${why}; its output is in ${logFile}.`,
      details: { agentId: spec.agentId, logFile },
      cause,
    });
  }

  let markReady: () => void = () => undefined;
  const timeoutMs = spec.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;

  async function waitUntilReady(): Promise<void> {
    const ended = exited.then(async (result) => {
      await new Promise((resolve) => setTimeout(resolve, READY_IN_FLIGHT_MS));
      throw failReady(`it ended before it said so (${howItEnded(result)})`);
    });
    // Once the member is ready this rejects at its exit with nobody left listening.
    ended.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const confirmation =
      (spec.readiness ?? 'connect-back') === 'connect-back'
        ? (parts.leadLink as LeadLink).waitForReady(spec.agentId, {
            timeoutMs,
            signal: readiness.signal,
          })
        : new Promise<void>((resolve, reject) => {
            markReady = resolve;
            timer = setTimeout(
              () => reject(failReady(`markReady() was not called within ${timeoutMs} ms`)),
              timeoutMs,
            );
          });
    const waitStarted = Date.now();
    try {
      await Promise.race([confirmation, ended]);
    } catch (error) {
      const timedOut = Date.now() - waitStarted >= timeoutMs;
      // The link gave up early (the member hung up): its exit report is probably on the way.
      if (exit === undefined && !timedOut) await waitAtMost(exited, 1_000);
      if (exit === undefined) {
        endCause ??= 'not-ready';
        await kill({ graceful: true, deadlineMs: 1_000 });
      }
      if (exit !== undefined && exit.reason !== 'not-ready') {
        throw failReady(`it ended before it said so (${howItEnded(exit)})`, error);
      }
      throw failReady(
        timedOut
          ? `no confirmation within ${timeoutMs} ms`
          : `the lead link gave up waiting (${(error as Error).message})`,
        error,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  return start(listener).then((result) => {
    started = result;
    const ready = waitUntilReady();
    // Nobody has to listen to `ready`: a rejection nobody awaited must not crash the lead.
    ready.catch(() => undefined);
    const handle: PtyMemberHandle = {
      spec,
      backend: 'pty',
      ready,
      exited,
      markReady: () => markReady(),
      isAlive() {
        if (exit !== undefined) return false;
        if (started?.identity !== undefined) return isSameProcess(started.identity);
        if (HAS_PROC_FILE_SYSTEM || started === undefined) return false;
        try {
          process.kill(started.pid, 0);
          return true;
        } catch {
          return false;
        }
      },
      kill,
      describe(): MemberView {
        return {
          backend: 'pty',
          pid: result.pid,
          logFile,
          notes: [
            `PTY host pid ${host.pid}`,
            exit === undefined ? 'running' : `ended: ${exit.message}`,
          ],
        };
      },
      write(data) {
        if (typeof data !== 'string') {
          throw new BackendError({
            code: 'INVALID_SPEC',
            message: `write to member ${spec.agentId}: data must be a string, got ${typeof data}`,
          });
        }
        if (exit === undefined) host.write(result.id, data);
      },
      resize(columns, rows) {
        checkTerminalSize(columns, rows, `resize of member ${spec.agentId}`);
        if (exit !== undefined) return;
        host.resize(result.id, columns, rows);
        screen.resize(columns, rows);
      },
      screen: () => screen.snapshot(),
      hostPid: host.pid,
    };
    return handle;
  });
}
