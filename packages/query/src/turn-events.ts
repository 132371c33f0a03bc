// The event channel of one turn: the turn pushes events as they happen, one consumer reads
// them with `for await`. Events are buffered until read, so a consumer may start late.
import type { AgentEvent } from './agent-types.js';

/** A one-consumer async queue of a turn's events. */
export interface TurnEventChannel extends AsyncIterable<AgentEvent> {
  /** Adds an event (ignored after `end`). */
  push(event: AgentEvent): void;
  /** Ends the stream: the consumer's loop finishes after the buffered events. */
  end(): void;
}

/** Creates an empty channel. Iterating it a second time throws a `TypeError`. */
export function createTurnEventChannel(): TurnEventChannel {
  const buffered: AgentEvent[] = [];
  let ended = false;
  let iterated = false;
  let abandoned = false;
  let wake: (() => void) | undefined;

  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };

  return {
    push(event) {
      if (ended || abandoned) return;
      buffered.push(event);
      notify();
    },
    end() {
      ended = true;
      notify();
    },
    [Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
      if (iterated) {
        throw new TypeError(
          'A turn can be iterated once: keep one `for await` loop over it, or await `turn.result`.',
        );
      }
      iterated = true;
      return {
        async next(): Promise<IteratorResult<AgentEvent>> {
          while (buffered.length === 0 && !ended && !abandoned) {
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
          }
          const event = buffered.shift();
          if (event !== undefined) return { value: event, done: false };
          return { value: undefined, done: true };
        },
        async return(): Promise<IteratorResult<AgentEvent>> {
          // The consumer stopped reading: the turn goes on, its events are dropped.
          abandoned = true;
          buffered.length = 0;
          notify();
          return { value: undefined, done: true };
        },
      };
    },
  };
}
