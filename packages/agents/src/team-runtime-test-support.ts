// Test support for the lead's team session (not exported): scripted models — @muster/scripted-
// model, a TEST DOUBLE of the Messages API, behind the real SDK and model client — and helpers
// that read what a request shows the model.
import type Anthropic from '@anthropic-ai/sdk';
import { createModelClient, type ModelClient } from '@muster/query';
import {
  createScriptedFetch,
  type Reply,
  type Script,
  type ScriptRequest,
} from '@muster/scripted-model';

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

/** The text of the request's last message: text blocks and tool results (as JSON). */
export function lastText(request: ScriptRequest): string {
  const messages = request.body.messages as Anthropic.MessageParam[];
  const content = messages.at(-1)!.content;
  if (typeof content === 'string') return content;
  return content
    .map((block) =>
      block.type === 'text'
        ? block.text
        : block.type === 'tool_result'
          ? JSON.stringify(block.content)
          : '',
    )
    .join('\n');
}

/** The name of the tool the model called in its previous message (whose result comes now), if any. */
export function previousTool(request: ScriptRequest): string | undefined {
  const messages = request.body.messages as Anthropic.MessageParam[];
  const assistant = messages.at(-2);
  if (assistant === undefined || typeof assistant.content === 'string') return undefined;
  const call = assistant.content.find((block) => block.type === 'tool_use');
  return call?.type === 'tool_use' ? call.name : undefined;
}

/** A text reply. */
export const say = (text: string): Reply => ({ content: [{ type: 'text', text }] });

/** A reply calling one tool. */
export const call = (name: string, input: Record<string, unknown>): Reply => ({
  content: [{ type: 'tool_use', name, input }],
});

/** Waits (polling every 20 ms, at most `timeoutMs`) until `check` returns a value. */
export async function until<Value>(
  what: string,
  check: () => Promise<Value | undefined> | Value | undefined,
  timeoutMs = 20_000,
): Promise<Value> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
