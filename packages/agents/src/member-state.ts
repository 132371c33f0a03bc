// A teammate's state (starting, working, idle, awaiting_plan_approval, stopping, gone): kept in
// the member runtime sidecar of @muster/teams (`details.state`, for `muster watch`) and emitted
// on the team's event stream as `member_state`.
import type { BackendType } from '@muster/protocol';
import { readMemberRuntime, recordMemberRuntime } from '@muster/teams';
import type { MemberState, TeamEventSink } from './team-event.js';

/** Options of {@link createMemberStateRecorder}. */
export interface MemberStateRecorderOptions {
  /** The muster root. */
  root: string;
  /** The team's folder name. */
  teamName: string;
  /** The member's name in the team. */
  agentName: string;
  /** The backend it runs in, written into a new sidecar record. */
  backendType?: BackendType;
  /** Receives a `member_state` event per change (and a `notice` when the sidecar cannot be written). */
  onEvent?: TeamEventSink;
}

const ignore = () => undefined;

/** Records one member's state changes, in order. */
export interface MemberStateRecorder {
  /** The last state set. */
  current(): MemberState | undefined;
  /** Sets the state: emits `member_state` at once and queues the sidecar write. */
  set(state: MemberState, detail?: string): void;
  /**
   * Holds the sidecar writes queued from now on until `until` settles (the state events are
   * still emitted at once): a teammate keeps file work off the path of its next model request.
   */
  holdWritesUntil(until: Promise<unknown>): void;
  /** Resolves once every queued sidecar write is done (failures were reported as notices). */
  flush(): Promise<void>;
}

/**
 * Creates the recorder. A sidecar write keeps what the record held (pid, pane, backend, other
 * details) and replaces `details.state`, `details.stateDetail` and `details.stateAt`. A write
 * that fails (the team was deleted, the member is not in the config) is reported as a
 * `notice` naming the file's team and member; the teammate goes on.
 */
export function createMemberStateRecorder(
  options: MemberStateRecorderOptions,
): MemberStateRecorder {
  for (const field of ['root', 'teamName', 'agentName'] as const) {
    if (typeof options[field] !== 'string' || options[field] === '') {
      throw new TypeError(
        `createMemberStateRecorder: ${field} must be a non-empty string, got ${JSON.stringify(options[field])}.`,
      );
    }
  }
  let state: MemberState | undefined;
  let writes: Promise<void> = Promise.resolve();
  const emit = options.onEvent ?? (() => undefined);

  const write = async (next: MemberState, detail: string | undefined, at: number) => {
    const records = await readMemberRuntime(options.root, options.teamName);
    const existing = records[options.agentName];
    const details: Record<string, unknown> = { ...existing?.details, state: next, stateAt: at };
    if (detail === undefined) delete details.stateDetail;
    else details.stateDetail = detail;
    const backend = existing?.backend ?? options.backendType;
    await recordMemberRuntime(options.root, options.teamName, options.agentName, {
      ...(existing?.pid === undefined ? {} : { pid: existing.pid }),
      ...(backend === undefined ? {} : { backend }),
      ...(existing?.paneId === undefined ? {} : { paneId: existing.paneId }),
      details,
      now: at,
    });
  };

  return {
    current: () => state,
    set(next, detail) {
      if (next === state && detail === undefined) return;
      state = next;
      const at = Date.now();
      emit({
        type: 'member_state',
        agentName: options.agentName,
        state: next,
        ...(detail === undefined ? {} : { detail }),
        at,
      });
      writes = writes.then(async () => {
        try {
          await write(next, detail, at);
        } catch (error) {
          emit({
            type: 'notice',
            level: 'warning',
            agentName: options.agentName,
            text: `Could not record ${options.agentName}'s state "${next}" in the runtime sidecar of team "${options.teamName}": ${(error as Error)?.message ?? String(error)}. \`muster watch\` shows the state it derives from the inboxes instead.`,
            at: Date.now(),
          });
        }
      });
    },
    holdWritesUntil(until) {
      writes = writes.then(() => until.then(ignore, ignore));
    },
    flush: () => writes,
  };
}
