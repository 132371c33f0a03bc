// One agent's tool state: the store tools keep things in between calls (which files were
// read, background shells, …), and the work to undo when the agent closes.
import type { ToolStateStore } from './tool.js';

/** Creates an empty per-agent store. Values are created on first use and kept for the agent's life. */
export function createToolStateStore(): ToolStateStore {
  const values = new Map<symbol, unknown>();
  return {
    get<Value>(key: symbol, create: () => Value): Value {
      if (typeof key !== 'symbol') {
        throw new TypeError(
          `ToolStateStore.get needs a symbol key (got ${typeof key}); create one with Symbol('<tool> state') per tool.`,
        );
      }
      if (values.has(key)) return values.get(key) as Value;
      const value = create();
      values.set(key, value);
      return value;
    },
  };
}

/** The disposers an agent runs when it closes (`ToolContext.onAgentClose`). */
export interface AgentDisposers {
  /** Registers `dispose`; returns the function that unregisters it. After `runAll`, runs `dispose` at once. */
  register(dispose: () => void | Promise<void>): () => void;
  /** Runs every registered disposer once, together (`Promise.allSettled`); returns the failures. */
  runAll(): Promise<unknown[]>;
  /** How many disposers are registered. */
  readonly size: number;
}

/** Creates the disposer list of one agent. */
export function createAgentDisposers(): AgentDisposers {
  const registered = new Set<() => void | Promise<void>>();
  let ran = false;
  const runOne = async (dispose: () => void | Promise<void>): Promise<void> => {
    await dispose();
  };
  return {
    register(dispose) {
      if (typeof dispose !== 'function') {
        throw new TypeError('onAgentClose needs a function to call when the agent closes.');
      }
      if (ran) {
        // The agent is already closed: undo the work now rather than leaving it behind.
        void runOne(dispose).catch(() => undefined);
        return () => undefined;
      }
      const entry = () => dispose();
      registered.add(entry);
      return () => {
        registered.delete(entry);
      };
    },
    async runAll() {
      ran = true;
      const pending = [...registered];
      registered.clear();
      const outcomes = await Promise.allSettled(pending.map((dispose) => runOne(dispose)));
      return outcomes
        .filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
        .map((outcome) => outcome.reason);
    },
    get size() {
      return registered.size;
    },
  };
}
