import type { ScriptContext, ScriptRequest, WaitOptions } from './types.js';

/** What a ScriptContext is built from (the same options C's createScriptContext takes). */
export interface ScriptContextOptions {
  state: Map<string, unknown>;
  requests: () => readonly ScriptRequest[];
  signal: AbortSignal;
}

/** A polling ScriptContext used until the script engineer's createScriptContext is wired in. */
export function createFallbackScriptContext(options: ScriptContextOptions): ScriptContext {
  const waitFor = async (
    condition: () => boolean | Promise<boolean>,
    waitOptions: WaitOptions,
  ): Promise<void> => {
    const deadline = Date.now() + waitOptions.timeoutMs;
    for (;;) {
      if (await condition()) return;
      if (options.signal.aborted)
        throw new Error(`stopped waiting for ${waitOptions.description}: the request was aborted`);
      if (Date.now() >= deadline) {
        throw new Error(
          `timed out after ${waitOptions.timeoutMs} ms waiting for ${waitOptions.description}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, waitOptions.pollMs ?? 20));
    }
  };
  return {
    state: options.state,
    get requests() {
      return options.requests();
    },
    waitFor,
    async waitForRequest(predicate, waitOptions) {
      let found: ScriptRequest | undefined;
      await waitFor(() => {
        found = options.requests().find(predicate);
        return found !== undefined;
      }, waitOptions);
      return found as ScriptRequest;
    },
    signal: options.signal,
  };
}
