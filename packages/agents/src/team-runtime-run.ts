// A headless run of a lead's team session: the prompt, then every turn the teammates' messages
// start, until the lead has nothing left to do and no teammate runs. A team that has gone quiet
// (the lead idle, every live teammate idle with nothing unread) is asked to shut down; a bound
// (`timeoutMs`) or the caller's signal shuts it down too, with a status that says so.
import type { TurnResult } from '@muster/query';
import type { LeadTeam } from './team-runtime-team.js';
import type { LeadTurns } from './team-runtime-turns.js';
import type { RunOutcome, ShutdownReport, TeamMemberStatus } from './team-runtime-options.js';
import type { TeamTaskList } from './team-runtime-tasks.js';

/** How often the run looks at the team between turn ends (member exits and idle notifications). */
const CHECK_INTERVAL_MS = 100;
/** How long a quiet team stays quiet before it is asked to shut down. */
const QUIET_GRACE_MS = 300;

/** What {@link runHeadless} needs from the runtime. */
export interface HeadlessRunOptions {
  prompt: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  turns: LeadTurns;
  team: () => LeadTeam | undefined;
  shutdown: (options?: { deadlineMs?: number; reason?: string }) => Promise<ShutdownReport>;
  /** What is left undone (open tasks, a plan waiting), in words, or undefined when nothing is. */
  openWork?: () => Promise<string | undefined>;
  /** Tells the person something (a `notice` event). */
  notice?: (level: 'info' | 'warning', text: string) => void;
}

/**
 * The work a quiet team leaves undone, in words: tasks not completed (with status and owner)
 * and live teammates still waiting for plan approval; undefined when nothing is left.
 */
export function describeOpenWork(
  list: TeamTaskList | undefined,
  members: readonly TeamMemberStatus[],
): string | undefined {
  const open = (list?.tasks ?? []).filter(
    (listed) => !listed.internal && listed.task.status !== 'completed',
  );
  const waiting = members
    .filter((member) => member.alive && member.state === 'awaiting_plan_approval')
    .map((member) => member.name);
  const parts: string[] = [];
  if (open.length > 0) {
    const named = open.map(
      ({ task }) => `#${task.id} (${task.status}${task.owner ? `, ${task.owner}` : ''})`,
    );
    parts.push(`task${open.length === 1 ? '' : 's'} ${named.join(', ')} not completed`);
  }
  if (waiting.length > 0) parts.push(`${waiting.join(', ')} waiting for plan approval`);
  return parts.length === 0 ? undefined : parts.join('; ');
}

/** Runs the session headless until it completes, fails, times out or is aborted. */
export async function runHeadless(options: HeadlessRunOptions): Promise<RunOutcome> {
  const { turns } = options;
  const startedTurns = turns.count();
  let failed: TurnResult | undefined;
  const stopListening = turns.onTurnEnd((result) => {
    if (result.reason === 'failed' && failed === undefined) failed = result;
  });
  const timeoutAt = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  // The turn starts at once (the count below goes up synchronously); its end is watched above.
  void turns.prompt(options.prompt).catch(() => undefined);
  let quietSince: number | undefined;
  let status: RunOutcome['status'] | undefined;
  let shutdown: ShutdownReport = { approved: [], killed: [] };
  try {
    for (;;) {
      if (options.signal?.aborted === true) {
        status = 'aborted';
        break;
      }
      if (Date.now() >= timeoutAt) {
        status = 'timeout';
        break;
      }
      if (failed !== undefined) {
        status = 'failed';
        break;
      }
      if (turns.idle() && turns.count() > startedTurns) {
        const team = options.team();
        const live = team?.liveMembers() ?? [];
        const unread = (await team?.leadHasUnread()) ?? false;
        if (live.length === 0 && !unread && turns.idle()) {
          status = 'completed';
          break;
        }
        const quiet = (await Promise.all(live.map((member) => team!.isIdle(member)))).every(
          Boolean,
        );
        if (!quiet || unread || !turns.idle()) {
          quietSince = undefined;
        } else if (quietSince === undefined) {
          quietSince = Date.now();
        } else if (Date.now() - quietSince >= QUIET_GRACE_MS) {
          // The lead finished and left idle teammates behind: end them the graceful way. Work
          // left undone is said out loud, so a run that "completed" hides nothing.
          const open = await options.openWork?.().catch(() => undefined);
          options.notice?.(
            open === undefined ? 'info' : 'warning',
            open === undefined
              ? 'The lead has finished and every teammate is idle: asking them to shut down.'
              : `The lead has finished and every teammate is idle, but work is left: ${open}. Asking the team to shut down.`,
          );
          shutdown = await options.shutdown({
            reason: 'The lead has finished; the session is ending.',
            deadlineMs: Math.max(1_000, Math.min(10_000, timeoutAt - Date.now())),
          });
          quietSince = undefined;
          continue;
        }
      } else {
        quietSince = undefined;
      }
      await sleep(CHECK_INTERVAL_MS);
    }
  } finally {
    stopListening();
  }
  if (status !== 'completed') {
    // The session ends here: the running turn is aborted and no new one starts.
    turns.close();
    const more = await options.shutdown({
      reason:
        status === 'timeout'
          ? 'The session reached its time limit.'
          : status === 'aborted'
            ? 'The session was stopped.'
            : 'The lead failed; the session is ending.',
      deadlineMs: 2_000,
    });
    shutdown = {
      approved: [...shutdown.approved, ...more.approved],
      killed: [...shutdown.killed, ...more.killed],
    };
  }
  const last = failed ?? turns.lastResult();
  return {
    status: status ?? 'completed',
    text: last?.text ?? '',
    turns: turns.count() - startedTurns,
    ...(failed?.error === undefined ? {} : { error: failed.error }),
    shutdown,
  };
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
