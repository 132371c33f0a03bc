// The states of teammates in their own processes (pty, tmux, iTerm2), as the lead's runtime
// learns them: each such teammate writes its state to the team's member runtime sidecar
// (`details.state`, @muster/teams); the runtime reads it after messages and on its poll and
// turns each change into a `member_state` event, as in-process teammates report theirs.
import type { BackendType } from '@muster/protocol';
import { readMemberRuntime } from '@muster/teams';
import type { MemberState, TeamEvent } from './team-event.js';

const MEMBER_STATES: ReadonlySet<string> = new Set<MemberState>([
  'starting',
  'working',
  'idle',
  'awaiting_plan_approval',
  'stopping',
  'gone',
]);

/** Options of {@link createProcessStateWatch}. */
export interface ProcessStateWatchOptions {
  root: string;
  /** The lead's team now, if any. */
  teamName: () => string | undefined;
  /** The teammates the lead spawned (name and backend). */
  members: () => ReadonlyArray<{ name: string; backendType: BackendType }>;
  emit: (event: TeamEvent) => void;
  /** Poll interval while the team has process members (ms); 0 polls never. */
  intervalMs: number;
}

/** The watch on process teammates' states. */
export interface ProcessStateWatch {
  /** Starts the poll. */
  start(): void;
  /** Reads the sidecar now; emits `member_state` for each change. */
  read(): Promise<void>;
  /** Feeds an event: messages and spawns ask for a read. */
  observe(event: TeamEvent): void;
  /**
   * The member sent an idle notification at `sentAt` (its `timestamp`, epoch ms; it sets its
   * state to idle right after sending one): emits `member_state` idle now, and sidecar states
   * the member set before `sentAt` are stale from now on.
   */
  markIdle(name: string, sentAt: number): void;
  close(): void;
}

/** Creates the watch (idle until `start()`). */
export function createProcessStateWatch(options: ProcessStateWatchOptions): ProcessStateWatch {
  /** Per member: the last state emitted and when it was true (sidecar `stateAt` or the lead's clock). */
  const known = new Map<string, { print: string; at: number }>();
  let running: Promise<void> | undefined;
  let nudged = false;
  let started = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const processMembers = () =>
    options.members().filter((member) => member.backendType !== 'in-process');

  const readOnce = async (): Promise<void> => {
    const teamName = options.teamName();
    const members = processMembers();
    if (teamName === undefined || members.length === 0) return;
    const records = await readMemberRuntime(options.root, teamName);
    for (const { name } of members) {
      const details = records[name]?.details;
      const state = details?.state;
      if (typeof state !== 'string' || !MEMBER_STATES.has(state)) continue;
      const detail = typeof details?.stateDetail === 'string' ? details.stateDetail : undefined;
      const print = `${state}\u0000${detail ?? ''}`;
      const at = typeof details?.stateAt === 'number' ? details.stateAt : Date.now();
      const previous = known.get(name);
      // Older than what was emitted (a read that raced an idle notification): stale.
      if (previous !== undefined && (previous.print === print || at < previous.at)) continue;
      known.set(name, { print, at });
      options.emit({
        type: 'member_state',
        agentName: name,
        state: state as MemberState,
        ...(detail === undefined ? {} : { detail }),
        at: Date.now(),
      });
    }
  };

  const read = (): Promise<void> => {
    // One read at a time; a read asked for meanwhile shares the running one (the poll and the
    // next message bring any later change).
    running ??= readOnce().finally(() => {
      running = undefined;
    });
    return running;
  };

  const nudge = () => {
    if (nudged || closed || !started) return;
    nudged = true;
    setImmediate(() => {
      nudged = false;
      void read().catch((error: unknown) => {
        // A team deleted meanwhile has no sidecar: nothing to report.
        if ((error as { code?: unknown })?.code === 'TEAM_NOT_FOUND') return;
        options.emit({
          type: 'notice',
          level: 'warning',
          text: `Reading the teammates' states (member runtime sidecar) failed: ${(error as Error)?.message ?? String(error)}`,
          at: Date.now(),
        });
      });
    });
  };

  return {
    start() {
      if (started || closed) return;
      started = true;
      if (options.intervalMs > 0) {
        timer = setInterval(() => {
          if (processMembers().length > 0) nudge();
        }, options.intervalMs);
        timer.unref();
      }
    },
    read,
    observe(event) {
      if (event.type === 'message' || event.type === 'spawn' || event.type === 'spawn_end') {
        nudge();
      }
    },
    markIdle(name, sentAt) {
      const print = 'idle\u0000';
      const previous = known.get(name);
      known.set(name, { print, at: Number.isFinite(sentAt) ? sentAt : Date.now() });
      if (previous?.print === print) return;
      options.emit({ type: 'member_state', agentName: name, state: 'idle', at: Date.now() });
    },
    close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
    },
  };
}
