// Test support for the lead's team session (not exported): scripted models — @muster/scripted-
// model, a TEST DOUBLE of the Messages API, behind the real SDK and model client — and helpers
// that read what a request shows the model.
import type Anthropic from '@anthropic-ai/sdk';
import { createModelClient, type ModelClient } from '@muster/query';
import { createScriptedFetch, type Script, type ScriptRequest } from '@muster/scripted-model';
import { eventually } from './teammate-test-support.js';

export { lastText, say, use as call } from './spawn-tool-test-support.js';

/** A model client answered by `script` (no socket), and the fetch's request log. */
export function scriptedModel(
  script: Script,
  options: { streamIdleMs?: number } = {},
): { client: ModelClient; requests: () => number } {
  const scriptedFetch = createScriptedFetch({ script });
  const client = createModelClient({
    apiKey: 'sk-test-team-runtime-0123456789',
    baseURL: 'http://scripted-model.invalid',
    retryBaseMs: 1,
    streamIdleMs: options.streamIdleMs ?? 10_000,
    fetch: scriptedFetch,
  });
  return { client, requests: () => scriptedFetch.requests().length };
}

/** The name of the tool the model called in its previous message (whose result comes now), if any. */
export function previousTool(request: ScriptRequest): string | undefined {
  const messages = request.body.messages as Anthropic.MessageParam[];
  const assistant = messages.at(-2);
  if (assistant === undefined || typeof assistant.content === 'string') return undefined;
  const call = assistant.content.find((block) => block.type === 'tool_use');
  return call?.type === 'tool_use' ? call.name : undefined;
}

/** Waits (polling, at most `timeoutMs`, default 20 s) until `check` returns a value. */
export function until<Value>(
  what: string,
  check: () => Promise<Value | undefined> | Value | undefined,
  timeoutMs = 20_000,
): Promise<Value> {
  return eventually(what, check, timeoutMs);
}
