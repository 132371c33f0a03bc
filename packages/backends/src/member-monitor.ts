// Liveness of a team's members (R33's "heartbeats" half and the issue's "within 2 s"): the
// monitor records each member's runtime sidecar entry when it is watched, heartbeats it while
// the member lives, and when the member ends (its `exited` resolves, or `isAlive()` turns
// false without an exit, as when a pane is killed from outside) marks it inactive in the team
// config and releases its unfinished tasks, handing the lead the notification to send.
import { parseAgentId } from '@muster/protocol';
import { createTaskStore, type TaskStore, type UnassignResult } from '@muster/tasks';
import { heartbeat, recordMemberRuntime, setMemberActive } from '@muster/teams';
import { BackendError } from './backend-error.js';
import type { MemberExit, MemberHandle } from './backend-types.js';
import { readProcessGroup } from './process-group.js';

/** Options of {@link createMemberMonitor}. */
export interface MemberMonitorOptions {
  /** The muster root holding `teams/<team>` and `tasks/<team>`. */
  root: string;
  teamName: string;
  /** The task list whose tasks a gone member releases (default: the team name). */
  taskListName?: string;
  /** How often `isAlive()` is asked, in ms (default 500). */
  intervalMs?: number;
  /** How often the sidecar heartbeat is written while a member lives, in ms (default 2 000). */
  heartbeatIntervalMs?: number;
  /** Told once per member when it is found gone, after its tasks were released. */
  onMemberGone?: (event: MemberGone) => void;
  /** Told about a failed sidecar, config or task write (the monitor keeps going). Default: ignored. */
  onError?: (error: unknown, agentId: string) => void;
}

/** A member the monitor found gone, and what it did about it. */
export interface MemberGone {
  agentId: string;
  agentName: string;
  /** How it ended: the handle's exit, or a `vanished` exit made up when `isAlive()` turned false first. */
  exit: MemberExit;
  /** Which sign came first. */
  detectedBy: 'exited' | 'is-alive';
  /** When the monitor noticed, epoch ms. */
  detectedAt: number;
  /** Whether `isActive: false` was written to the team config. */
  markedInactive: boolean;
  /** The released tasks and the lead's notification text (undefined when releasing failed). */
  unassigned: UnassignResult | undefined;
}

/** A member being watched. */
export interface WatchedMember {
  agentId: string;
  /** Resolves when the member was found gone and handled (never rejects). */
  gone: Promise<MemberGone>;
}

/** Watches members of one team. */
export interface MemberMonitor {
  /**
   * Records the member's runtime (pid, start time, backend, pane, details { pgid, socket,
   * serverPid, … }) and starts watching it. The member must already be in the team config.
   * Watching an agent id twice returns the first watch.
   */
  watch(handle: MemberHandle): Promise<WatchedMember>;
  /** Stops watching one member (nothing is marked or released). */
  unwatch(agentId: string): void;
  /** Agent ids being watched now. */
  watching(): string[];
  /** Stops every watch and waits for in-flight handling to finish. */
  close(): Promise<void>;
}

const DEFAULT_INTERVAL_MS = 500;
const DEFAULT_HEARTBEAT_INTERVAL_MS = 2_000;
/** After `isAlive()` turns false, how long to wait for the handle's own exit (it says more). */
const EXIT_GRACE_MS = 150;

interface Watch {
  handle: MemberHandle;
  agentName: string;
  timer: NodeJS.Timeout;
  lastHeartbeat: number;
  heartbeating: boolean;
  /** `isAlive()` said false; waiting for the handle's exit or the grace period. */
  confirming: boolean;
  ending: boolean;
  stopped: boolean;
  gone: Promise<MemberGone>;
  resolveGone: (event: MemberGone) => void;
}

/** Starts a monitor for one team's members; see {@link MemberMonitor}. */
export function createMemberMonitor(options: MemberMonitorOptions): MemberMonitor {
  const settings = checkOptions(options);
  const { root, teamName } = settings;
  const tasks: TaskStore = createTaskStore({ root, team: settings.taskListName });
  const watches = new Map<string, Watch>();
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;

  const track = <T>(promise: Promise<T>): Promise<T> => {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise)).catch(() => {});
    return promise;
  };
  const report = (error: unknown, agentId: string) => {
    try {
      settings.onError?.(error, agentId);
    } catch {
      // A failing error listener must not stop the monitor.
    }
  };

  const end = async (watch: Watch, exit: MemberExit, detectedBy: MemberGone['detectedBy']) => {
    if (watch.ending || watch.stopped) return;
    watch.ending = true;
    clearInterval(watch.timer);
    const agentId = watch.handle.spec.agentId;
    const detectedAt = Date.now();
    let markedInactive = false;
    try {
      await setMemberActive(root, teamName, agentId, false);
      markedInactive = true;
    } catch (error) {
      report(error, agentId);
    }
    let unassigned: UnassignResult | undefined;
    try {
      unassigned = await tasks.unassignAgentTasks(watch.agentName, {
        reason: exit.reason === 'exited' ? 'shutdown' : 'terminated',
        agentId,
      });
    } catch (error) {
      report(error, agentId);
    }
    watches.delete(agentId);
    const event: MemberGone = {
      agentId,
      agentName: watch.agentName,
      exit,
      detectedBy,
      detectedAt,
      markedInactive,
      unassigned,
    };
    watch.resolveGone(event);
    try {
      settings.onMemberGone?.(event);
    } catch (error) {
      report(error, agentId);
    }
  };

  const check = (watch: Watch) => {
    if (watch.ending || watch.stopped || watch.confirming) return;
    let alive: boolean;
    try {
      alive = watch.handle.isAlive();
    } catch (error) {
      report(error, watch.handle.spec.agentId);
      return;
    }
    if (!alive) {
      watch.confirming = true;
      // The handle's own exit says more (code, reason); give it a moment before making one up.
      const vanished = new Promise<MemberExit>((resolve) =>
        setTimeout(
          () =>
            resolve({
              reason: 'vanished',
              code: null,
              signal: null,
              message: `${watch.handle.spec.agentId} is no longer running (its ${watch.handle.backend} process or pane is gone) and reported no exit.`,
              at: Date.now(),
            }),
          EXIT_GRACE_MS,
        ).unref(),
      );
      void Promise.race([
        watch.handle.exited.then((exit) => ({ exit, by: 'exited' as const })),
        vanished.then((exit) => ({ exit, by: 'is-alive' as const })),
      ]).then(({ exit, by }) => track(end(watch, exit, by)));
      return;
    }
    const now = Date.now();
    if (!watch.heartbeating && now - watch.lastHeartbeat >= settings.heartbeatIntervalMs) {
      watch.heartbeating = true;
      void track(
        heartbeat(root, teamName, watch.handle.spec.agentId, { now })
          .then(() => {
            watch.lastHeartbeat = now;
          })
          .catch((error: unknown) => report(error, watch.handle.spec.agentId))
          .finally(() => {
            watch.heartbeating = false;
          }),
      );
    }
  };

  return {
    async watch(handle) {
      if (closed) {
        throw new BackendError({
          code: 'CLOSED',
          message: `The member monitor of team "${teamName}" is closed; create a new one to watch ${describeAgent(handle)}.`,
        });
      }
      checkHandle(handle);
      const agentId = handle.spec.agentId;
      const existing = watches.get(agentId);
      if (existing !== undefined) return { agentId, gone: existing.gone };
      await track(recordRuntime(root, teamName, handle));
      const agentName = parseAgentId(agentId)?.agentName ?? handle.spec.agentName;
      let resolveGone!: (event: MemberGone) => void;
      const gone = new Promise<MemberGone>((resolve) => {
        resolveGone = resolve;
      });
      const watch: Watch = {
        handle,
        agentName,
        timer: setInterval(() => check(watch), settings.intervalMs),
        lastHeartbeat: Date.now(),
        heartbeating: false,
        confirming: false,
        ending: false,
        stopped: false,
        gone,
        resolveGone,
      };
      watch.timer.unref();
      watches.set(agentId, watch);
      // Not tracked: close() must not wait for a member that never ends.
      void handle.exited.then((exit) => track(end(watch, exit, 'exited')));
      check(watch);
      return { agentId, gone };
    },
    unwatch(agentId) {
      const watch = watches.get(agentId);
      if (watch === undefined) return;
      watch.stopped = true;
      clearInterval(watch.timer);
      watches.delete(agentId);
    },
    watching: () => [...watches.keys()],
    async close() {
      closed = true;
      for (const watch of watches.values()) {
        watch.stopped = true;
        clearInterval(watch.timer);
      }
      watches.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** Writes the sidecar record: pid and start time, backend, pane, and how to find the rest. */
async function recordRuntime(root: string, teamName: string, handle: MemberHandle): Promise<void> {
  const view = handle.describe();
  const details: Record<string, unknown> = {};
  const pgid = view.pid === undefined ? undefined : readProcessGroup(view.pid);
  if (pgid !== undefined) details.pgid = pgid;
  if (view.socket !== undefined) details.socket = view.socket;
  const serverPid = (view as { serverPid?: unknown }).serverPid;
  if (typeof serverPid === 'number') details.serverPid = serverPid;
  if (view.attachCommand !== undefined) details.attachCommand = view.attachCommand;
  if (view.logFile !== undefined) details.logFile = view.logFile;
  const runtime = {
    backend: handle.backend,
    details,
    ...(view.paneId === undefined ? {} : { paneId: view.paneId }),
  };
  const agentId = handle.spec.agentId;
  if (view.pid !== undefined && handle.isAlive()) {
    try {
      await recordMemberRuntime(root, teamName, agentId, { ...runtime, pid: view.pid });
      return;
    } catch (error) {
      // The process ended between isAlive() and the record: record what is left.
      if (!(error instanceof Error && 'code' in error && error.code === 'INVALID_INPUT')) {
        throw error;
      }
    }
  }
  await recordMemberRuntime(root, teamName, agentId, runtime);
}

function describeAgent(handle: MemberHandle): string {
  return (handle as Partial<MemberHandle> | undefined)?.spec?.agentId ?? 'the member';
}

function checkHandle(handle: MemberHandle): void {
  const fine =
    typeof handle === 'object' &&
    handle !== null &&
    typeof handle.spec?.agentId === 'string' &&
    typeof handle.isAlive === 'function' &&
    typeof handle.describe === 'function' &&
    handle.exited instanceof Promise;
  if (!fine) {
    throw new BackendError({
      code: 'INVALID_SPEC',
      message:
        'watch() needs a MemberHandle returned by a backend spawn() (with spec.agentId, exited, isAlive() and describe()).',
    });
  }
}

function checkOptions(options: MemberMonitorOptions) {
  const problem = (what: string) =>
    new BackendError({ code: 'INVALID_SPEC', message: `createMemberMonitor: ${what}` });
  if (typeof options !== 'object' || options === null) {
    throw problem('pass { root, teamName }.');
  }
  if (typeof options.root !== 'string' || options.root === '') {
    throw problem('root must be the muster root folder (a non-empty path).');
  }
  if (typeof options.teamName !== 'string' || options.teamName === '') {
    throw problem('teamName must be the team folder name (a non-empty string).');
  }
  const positive = (value: number | undefined, name: string, fallback: number) => {
    if (value === undefined) return fallback;
    if (!Number.isFinite(value) || value <= 0) {
      throw problem(`${name} must be a positive number of milliseconds, got ${String(value)}.`);
    }
    return value;
  };
  return {
    ...options,
    taskListName: options.taskListName ?? options.teamName,
    intervalMs: positive(options.intervalMs, 'intervalMs', DEFAULT_INTERVAL_MS),
    heartbeatIntervalMs: positive(
      options.heartbeatIntervalMs,
      'heartbeatIntervalMs',
      DEFAULT_HEARTBEAT_INTERVAL_MS,
    ),
  };
}
