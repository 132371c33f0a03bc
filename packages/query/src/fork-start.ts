// Fan-out of fork children (R12): child 1 is sent first; children 2..N only after child 1's
// response started streaming, since the API makes a prompt readable from the cache only then.
// Sent all at once, every child would pay for the whole shared prefix.
import type { Agent, AgentTurn } from './agent-types.js';
import {
  checkForkSource,
  forkDirectiveBlock,
  isInForkChild,
  nestedForkError,
  type ForkOptions,
  type ForkSource,
} from './fork.js';
import { QueryError } from './query-error.js';

/** One started fork child. */
export interface StartedFork {
  /** The child's directive. */
  directive: string;
  /** The child agent (close it when its turn has ended). */
  agent: Agent;
  /** Its first turn, already running: iterate it or await `result`. */
  turn: AgentTurn;
}

/** Makes a fork child: `createAgent({ ...yourOptions, fork })` (its index among the directives). */
export type ForkChildFactory = (fork: ForkOptions, index: number) => Agent | Promise<Agent>;

/**
 * Starts one fork child per directive from one source: child 1 at once, the others when child
 * 1's first response has started streaming (`turn.responseStarted`), or when its turn ended
 * without one. Every child's first turn is `send()` without content (its directive is already
 * its first message). Throws `NESTED_FORK` for a source taken inside a fork child and
 * `INVALID_OPTIONS` for an empty directive list; when `createChild` throws, the children already
 * started are closed and the error is thrown.
 */
export async function startForks(
  source: ForkSource,
  directives: readonly string[],
  createChild: ForkChildFactory,
  options: { notice?: string } = {},
): Promise<StartedFork[]> {
  checkForkSource(source);
  if (isInForkChild(source.messages)) throw nestedForkError(source.parent.name);
  if (!Array.isArray(directives) || directives.length === 0) {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: 'startForks: give at least one directive (one fork child is started per directive).',
    });
  }
  // Refuse a bad directive before any child starts.
  for (const directive of directives) forkDirectiveBlock(directive, options.notice);
  if (typeof createChild !== 'function') {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message:
        'startForks: createChild must be a function (fork, index) => createAgent({ …, fork }).',
    });
  }
  const started: StartedFork[] = new Array<StartedFork>(directives.length);
  const start = async (index: number): Promise<StartedFork> => {
    const directive = directives[index]!;
    const fork: ForkOptions = { source, directive };
    if (options.notice !== undefined) fork.notice = options.notice;
    const agent = await createChild(fork, index);
    const turn = agent.send();
    const launched = { directive, agent, turn };
    started[index] = launched;
    return launched;
  };
  try {
    const first = await start(0);
    await first.turn.responseStarted;
    const rest = await Promise.allSettled(
      directives.slice(1).map((_directive, offset) => start(offset + 1)),
    );
    const failed = rest.find((outcome) => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  } catch (error) {
    await Promise.allSettled(
      started.filter(Boolean).map((fork) => fork.agent.close('startForks failed.')),
    );
    throw error;
  }
  return started;
}
