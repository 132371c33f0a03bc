// The lead's turns: one queue of what waits for its model (the person's prompts, teammates'
// messages, background notifications), one turn at a time, and whatever arrives while a turn
// runs joins it at its next tool-result boundary (mid-turn delivery) instead of waiting.
import type { Agent, AgentOptions, AgentTurn, TokenUsage, TurnResult } from '@muster/query';
import { TEAM_LEAD_NAME } from '@muster/protocol';
import type { TeamEvent } from './team-event.js';
import { TeamRuntimeError } from './team-runtime-options.js';

type PendingInput = NonNullable<AgentOptions['pendingInput']>;

interface QueuedInput {
  text: string;
  /** Runs when a turn took it (read marks). */
  onTaken?: () => void;
  /** Resolves a `prompt()` with the result of the turn that took it. */
  settle?: (result: TurnResult | Error) => void;
}

/** The lead's turn driver. */
export interface LeadTurns {
  /** Queues text for the lead's model and starts a turn when none runs. */
  deliver(text: string, onTaken?: () => void): void;
  /** Queues the person's prompt; resolves with the result of the turn that took it. */
  prompt(text: string): Promise<TurnResult>;
  /** Aborts the running turn; false when none runs. */
  interrupt(): boolean;
  /** True when no turn runs and nothing waits. */
  idle(): boolean;
  /** The last turn's result, if any turn ended. */
  lastResult(): TurnResult | undefined;
  /** Turns started so far. */
  count(): number;
  /** Calls `listener` whenever a turn ends; returns an unsubscribe. */
  onTurnEnd(listener: (result: TurnResult) => void): () => void;
  usage(): TokenUsage;
  /** Refuses new input, aborts the running turn, rejects prompts still waiting. */
  close(): void;
  /** Closes the lead's agent (its background shells end). */
  closeAgent(): Promise<void>;
}

/** Creates the driver; `createAgent` is given the mid-turn input source to pass to the loop. */
export function createLeadTurns(options: {
  emit: (event: TeamEvent) => void;
  createAgent: (pendingInput: PendingInput) => Agent;
  /** More mid-turn input (background agents' notifications). */
  extraInput?: () => ReturnType<PendingInput>;
}): LeadTurns {
  const queue: QueuedInput[] = [];
  let taken: QueuedInput[] = [];
  let running: AgentTurn | undefined;
  let last: TurnResult | undefined;
  let turns = 0;
  let closed = false;
  const listeners = new Set<(result: TurnResult) => void>();

  const take = (): QueuedInput[] => {
    const items = queue.splice(0);
    for (const item of items) item.onTaken?.();
    taken.push(...items);
    return items;
  };
  const joined = (items: readonly QueuedInput[]) => items.map((item) => item.text).join('\n\n');

  const pendingInput: PendingInput = async () => {
    const items = take();
    const extra = (await options.extraInput?.()) ?? [];
    if (items.length === 0 && extra.length === 0) return undefined;
    return [
      ...(items.length === 0 ? [] : [{ type: 'text' as const, text: joined(items) }]),
      ...extra,
    ];
  };
  const agent = options.createAgent(pendingInput);

  const drive = (): void => {
    if (closed || running !== undefined || queue.length === 0) return;
    const items = take();
    const turn = agent.send(joined(items));
    running = turn;
    turns += 1;
    void (async () => {
      for await (const event of turn) {
        options.emit({ type: 'agent', agentName: TEAM_LEAD_NAME, event, at: Date.now() });
        if (event.type === 'usage') {
          options.emit({
            type: 'usage',
            agentName: TEAM_LEAD_NAME,
            usage: event.agent,
            at: Date.now(),
          });
        }
      }
      const result = await turn.result;
      last = result;
      running = undefined;
      const settled = taken;
      taken = [];
      for (const item of settled) item.settle?.(result);
      for (const listener of listeners) listener(result);
      drive();
    })();
  };

  return {
    deliver(text, onTaken) {
      if (closed) return;
      queue.push({ text, ...(onTaken === undefined ? {} : { onTaken }) });
      drive();
    },
    prompt(text) {
      return new Promise<TurnResult>((resolve, reject) => {
        queue.push({
          text,
          settle: (result) => (result instanceof Error ? reject(result) : resolve(result)),
        });
        drive();
      });
    },
    interrupt() {
      if (running === undefined) return false;
      running.abort('Interrupted by the person.');
      return true;
    },
    idle: () => running === undefined && queue.length === 0,
    lastResult: () => last,
    count: () => turns,
    onTurnEnd(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    usage: () => agent.usage(),
    close() {
      if (closed) return;
      closed = true;
      running?.abort('The team session is closing.');
      const error = new TeamRuntimeError({
        code: 'CLOSED',
        message: 'The team session closed before this prompt ran.',
      });
      for (const item of queue.splice(0)) item.settle?.(error);
    },
    closeAgent: () => agent.close('The team session closed.'),
  };
}
