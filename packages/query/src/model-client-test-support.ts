// Test support for the model client tests: a model client over the scripted model's in-process
// fetch (a TEST DOUBLE of the Messages API; the SDK underneath is the real one).
import { createScriptedFetch, type Script, type ScriptedFetch } from '@muster/scripted-model';
import { createModelClient } from './model-client.js';
import type { ModelClient, ModelClientOptions, StreamObserver } from './model-types.js';

/** The base URL the scripted fetch answers (never resolved: there is no socket). */
export const SCRIPTED_BASE_URL = 'http://scripted-model.invalid';

/** A small request the scripted model answers. */
export const QUESTION = {
  model: 'claude-test-model',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'go' }],
};

/** A model client over a scripted fetch, and that fetch. */
export interface ScriptedModelClient {
  client: ModelClient;
  scriptedFetch: ScriptedFetch;
}

/** Opens a model client whose requests the scripted model answers with `script`. */
export function openScriptedModelClient(
  script: Script,
  options: Omit<ModelClientOptions, 'fetch'> = {},
): ScriptedModelClient {
  const scriptedFetch = createScriptedFetch({ script });
  const client = createModelClient({
    apiKey: 'test',
    baseURL: SCRIPTED_BASE_URL,
    retryBaseMs: 1,
    ...options,
    fetch: scriptedFetch,
  });
  return { client, scriptedFetch };
}

/** An observer that records every call, in order. */
export function recordingObserver(): StreamObserver & { calls: Array<[string, unknown]> } {
  const calls: Array<[string, unknown]> = [];
  return {
    calls,
    onAttempt: (attempt) => calls.push(['attempt', attempt]),
    onRetry: (retry) => calls.push(['retry', retry]),
    onText: (text) => calls.push(['text', text]),
    onThinking: (thinking) => calls.push(['thinking', thinking]),
  };
}

/** The error a promise rejects with (fails when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}
