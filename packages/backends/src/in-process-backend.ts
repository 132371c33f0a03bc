// The in-process backend: a member is a function run inside the lead's Node process, under its
// own AsyncLocalStorage identity (R27), with its own lifecycle signal (R29) and crash
// containment (R30). It shares the process's cwd and environment, so it never changes them
// (R28): the member's directory is `context.cwd`.
import { BackendError } from './backend-error.js';
import { registerCleanup } from './cleanup-registry.js';
import type { Backend, BackendAvailability, MemberHandle, MemberSpec } from './backend-types.js';
import { holdCrashContainment } from './in-process-crash-handler.js';
import type { InProcessCrashOrigin } from './in-process-member.js';
import { describeError, InProcessMember } from './in-process-member.js';
import { checkInProcessSpec, DEFAULT_KILL_DEADLINE_MS } from './in-process-spec.js';
import type { ProcessReaper } from './process-reaper.js';
import { processReaperAvailability, sharedProcessReaper } from './process-reaper.js';

/** Options of `createInProcessBackend`. */
export interface InProcessBackendOptions {
  /**
   * Told about every error that escaped a member's code: the member has been ended
   * (`exited.reason` 'crashed'), or, with `afterExit`, had already ended. Without it, each is
   * reported with `process.emitWarning` so that no crash goes unseen.
   */
  onCrash?(agentId: string, error: unknown, details: InProcessCrashDetails): void;
  /** How long `close()` waits for each member's run to settle after aborting it (default 5 000 ms). */
  closeDeadlineMs?: number;
  /**
   * What ends the members' tool processes if the lead dies without cleanup (SIGKILL). Default:
   * the lead process's shared reaper (`sharedProcessReaper()`), started at the first spawn, whose
   * marker every member gets as `context.environment`. Pass your own `ProcessReaper`, or
   * `false` to run without one (tool processes may then outlive a SIGKILLed lead). Where no
   * reaper can run (no /proc: macOS), members get an empty environment and `availability()`
   * says so.
   */
  processReaper?: ProcessReaper | false;
}

/** Where a contained error came from, and whether its member had already ended. */
export interface InProcessCrashDetails {
  origin: InProcessCrashOrigin;
  afterExit: boolean;
}

/**
 * Creates the in-process backend. `spawn(spec)` runs `spec.run(context)` as a member of the lead
 * process; `ready` resolves when the member calls `context.ready()` (or, for
 * `readiness: 'external'`, when the caller calls `markReady()`); `kill()` aborts
 * `context.signal`, then waits up to the deadline for `run` to settle (graceful) or not at all
 * (forced). While the backend is open, an uncaught exception or unhandled rejection raised in a
 * member's code ends that member only.
 */
export function createInProcessBackend(options: InProcessBackendOptions = {}): Backend {
  if (options.onCrash !== undefined && typeof options.onCrash !== 'function') {
    throw new BackendError({
      code: 'INVALID_SPEC',
      message:
        'createInProcessBackend: onCrash must be a function (agentId, error, details) => void.',
    });
  }
  const reaperOption = options.processReaper;
  if (
    reaperOption !== undefined &&
    reaperOption !== false &&
    (typeof reaperOption !== 'object' ||
      reaperOption === null ||
      typeof reaperOption.environment !== 'object')
  ) {
    throw new BackendError({
      code: 'INVALID_SPEC',
      message:
        'createInProcessBackend: processReaper must be a ProcessReaper (from startProcessReaper()) or false.',
    });
  }
  const closeDeadlineMs = options.closeDeadlineMs ?? DEFAULT_KILL_DEADLINE_MS;
  if (!Number.isFinite(closeDeadlineMs) || closeDeadlineMs < 0) {
    throw new BackendError({
      code: 'INVALID_SPEC',
      message: `createInProcessBackend: closeDeadlineMs must be a finite number of milliseconds ≥ 0, got ${String(closeDeadlineMs)}.`,
    });
  }
  /** Members whose run has not settled yet: they keep the crash listeners installed. */
  const running = new Set<InProcessMember>();
  /** Members not yet ended, by agent id. */
  const alive = new Map<string, InProcessMember>();
  let releaseBackendHold: (() => void) | undefined;
  let closed = false;
  let closing: Promise<void> | undefined;
  const memberHolds = new WeakMap<InProcessMember, () => void>();

  const reportCrash = (agentId: string, error: unknown, details: InProcessCrashDetails): void => {
    if (options.onCrash === undefined) {
      process.emitWarning(
        `In-process member ${agentId} crashed${details.afterExit ? ' after it had ended' : ''} (${details.origin}): ${describeError(error)}`,
        { code: 'MUSTER_MEMBER_CRASHED' },
      );
      return;
    }
    try {
      options.onCrash(agentId, error, details);
    } catch (callbackError) {
      process.emitWarning(
        `onCrash threw while reporting in-process member ${agentId}: ${describeError(callbackError)}`,
        { code: 'MUSTER_ON_CRASH_FAILED' },
      );
    }
  };

  const reaperAvailability = processReaperAvailability();
  /** The marker a member's tool processes must carry; starts the shared reaper at first use. */
  const markerEnvironment = async (agentId: string): Promise<Readonly<Record<string, string>>> => {
    if (reaperOption === false) return {};
    if (reaperOption !== undefined) {
      if (reaperOption.isRunning()) return reaperOption.environment;
      throw new BackendError({
        code: 'UNAVAILABLE',
        message: `In-process member ${agentId}: the process reaper given to createInProcessBackend (pid ${reaperOption.pid}) has ended, so nothing would end this member's tool processes if the lead died; start a new one with startProcessReaper() and a new backend.`,
        details: { agentId },
      });
    }
    if (!reaperAvailability.available) return {};
    try {
      return (await sharedProcessReaper()).environment;
    } catch (error) {
      throw new BackendError({
        code: 'UNAVAILABLE',
        message: `In-process member ${agentId}: ${(error as Error).message} Without it, tool processes of members could outlive a SIGKILLed lead; fix the cause, or pass processReaper: false to createInProcessBackend to run without.`,
        details: { agentId },
        cause: error,
      });
    }
  };

  return {
    name: 'in-process',

    availability(): Promise<BackendAvailability> {
      const notes = [
        `members run inside this Node process (pid ${process.pid}): they share its CPU, working directory and environment, so a CPU-bound tool must run in a child process or worker.`,
      ];
      if (reaperOption === false) {
        notes.push(
          'no process reaper (processReaper: false): tool processes of members may outlive a SIGKILLed lead.',
        );
      } else if (reaperOption === undefined && !reaperAvailability.available) {
        notes.push(
          `no process reaper: ${reaperAvailability.reason}; tool processes of members may outlive a SIGKILLed lead.`,
        );
      }
      return Promise.resolve({ available: true, notes });
    },

    async spawn(spec: MemberSpec): Promise<MemberHandle> {
      const refuseClosed = (): void => {
        if (!closed) return;
        throw new BackendError({
          code: 'CLOSED',
          message: `In-process member ${String(spec?.agentId)}: the in-process backend was closed; create a new one with createInProcessBackend().`,
        });
      };
      try {
        refuseClosed();
        const checked = checkInProcessSpec(spec);
        const environment = await markerEnvironment(spec.agentId);
        refuseClosed();
        if (alive.has(spec.agentId)) {
          throw new BackendError({
            code: 'INVALID_SPEC',
            message: `In-process member ${spec.agentId} is already running in this backend; kill it (and await its exit) before starting it again.`,
            details: { agentId: spec.agentId },
          });
        }
        releaseBackendHold ??= holdCrashContainment();
        const memberHold = holdCrashContainment();
        const member = new InProcessMember(
          spec,
          checked,
          {
            crashed: reportCrash,
            settled: (settledMember) => {
              running.delete(settledMember);
              memberHolds.get(settledMember)?.();
            },
          },
          environment,
        );
        memberHolds.set(member, memberHold);
        running.add(member);
        alive.set(spec.agentId, member);
        // R32: if the lead ends by a signal or a crash, the member's signal is aborted first, so
        // that what it started (tool process groups) is ended by the member itself.
        const unregisterCleanup = registerCleanup(`in-process member ${spec.agentId}`, async () => {
          await member.kill({ graceful: true, deadlineMs: closeDeadlineMs });
        });
        void member.exited.then(() => {
          unregisterCleanup();
          if (alive.get(spec.agentId) === member) alive.delete(spec.agentId);
        });
        return member;
      } catch (error) {
        throw error instanceof Error ? error : new Error(String(error));
      }
    },

    close(): Promise<void> {
      closed = true;
      closing ??= (async () => {
        await Promise.allSettled(
          [...alive.values()].map((member) =>
            member.kill({ graceful: true, deadlineMs: closeDeadlineMs }),
          ),
        );
        // Members whose run is still going hold their own listeners until it settles.
        releaseBackendHold?.();
      })();
      return closing;
    },
  };
}
