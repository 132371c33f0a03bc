// The one event stream of a team: what the lead's runtime, each teammate loop and each
// subagent report, typed, so that a UI (`muster run`), a headless `stream-json` consumer or an
// embedding program sees the whole team through one channel. Owners may add variants (note it
// in the changeset); never rename or remove one.
import type { AgentEvent, TokenUsage } from '@muster/query';
import type { ListedTask, TaskProblem } from '@muster/tasks';

/** A teammate's state, as `muster watch` and `muster run` show it (kept in the runtime sidecar). */
export type MemberState =
  'starting' | 'working' | 'idle' | 'awaiting_plan_approval' | 'stopping' | 'gone';

/** How a spawned agent runs. */
export type SpawnPath = 'subagent' | 'background' | 'fork' | 'teammate';

/** One event of the team's stream. `at` is `Date.now()` when it happened. */
export type TeamEvent =
  /** An event of one agent's model loop (the lead's, a teammate's or a subagent's). */
  | { type: 'agent'; agentName: string; event: AgentEvent; at: number }
  /** A teammate's state changed. */
  | { type: 'member_state'; agentName: string; state: MemberState; detail?: string; at: number }
  /** A message was written to an inbox (plain text or a protocol message's `type`). */
  | {
      type: 'message';
      from: string;
      to: string;
      text: string;
      summary?: string;
      /** The protocol message's `type` when `text` is one (`idle_notification`, …). */
      protocolType?: string;
      at: number;
    }
  /** An agent was started on one of the four paths. */
  | {
      type: 'spawn';
      path: SpawnPath;
      agentName: string;
      agentType: string;
      parentName: string;
      /** The backend of a teammate (`in-process`, `tmux`, …). */
      backendType?: string;
      /** The git worktree of its own a teammate works in (`isolation: 'worktree'`). */
      worktreePath?: string;
      at: number;
    }
  /** A spawned agent ended. */
  | {
      type: 'spawn_end';
      path: SpawnPath;
      agentName: string;
      status: 'completed' | 'failed' | 'killed';
      message?: string;
      at: number;
    }
  /** A permission or plan ask waits for an answer (see the runtime's `answer`). */
  | {
      type: 'ask';
      askId: string;
      kind: 'permission' | 'plan';
      agentName: string;
      /** The tool asked about, for a permission ask. */
      toolName?: string;
      input?: Record<string, unknown>;
      /** One line for the person deciding (or the plan's text for a plan ask). */
      description: string;
      at: number;
    }
  /** An ask was answered (by a person, a rule, or denied because nobody could answer). */
  | {
      type: 'ask_answer';
      askId: string;
      behavior: 'allow' | 'deny';
      by: string;
      message?: string;
      at: number;
    }
  /**
   * Token usage of one agent so far (after each request; for a process teammate, after each
   * turn, from its idle notification).
   */
  | {
      type: 'usage';
      agentName: string;
      usage: TokenUsage;
      /**
       * Its estimated cost so far in US dollars at list prices (`estimateCostUsd` of
       * @muster/query, summed per request); absent when its model has no price.
       */
      costUsd?: number;
      at: number;
    }
  /**
   * The team's task list changed, as the lead's runtime read it (after task tools, messages
   * and state changes, and on a slow poll): the whole list, in id order.
   */
  | {
      type: 'tasks';
      /** The task list's name (the team's). */
      teamName: string;
      /** Tasks in id order, internal tracking tasks left out. */
      tasks: ListedTask[];
      /** Task files that could not be used. */
      problems: TaskProblem[];
      at: number;
    }
  /** Something a person should know (a backend fallback, a bad definition file, a hook's output). */
  | {
      type: 'notice';
      level: 'info' | 'warning' | 'error';
      text: string;
      agentName?: string;
      at: number;
    };

/** Receives the team's events; must not throw (errors are the sink's to handle). */
export type TeamEventSink = (event: TeamEvent) => void;
