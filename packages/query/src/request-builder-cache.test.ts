// R9/R10 at the request level: requests built by buildRequest, sent through the real model client
// to the scripted model (a TEST DOUBLE of the Messages API) with its prompt-cache simulation.
import type Anthropic from '@anthropic-ai/sdk';
import {
  createPromptCache,
  createRequestLog,
  createScriptedFetch,
  text,
  type Reply,
} from '@muster/scripted-model';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ConversationMessage } from './agent-types.js';
import { createModelClient } from './model-client.js';
import { buildRequest, type BreakpointState } from './request-builder.js';
import { renderSystem, renderTools } from './request-builder-render.js';

const signal = new AbortController().signal;
const tools = renderTools(
  ['Read', 'Grep', 'Glob'].map((name) => ({
    name,
    description: `${name} files in the repository.`,
    inputSchema: z.strictObject({ path: z.string().describe('Where to look') }),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    call: async () => ({ content: '' }),
  })),
);
// About 1,900 tokens: above the simulated 1,024-token minimum.
const system = renderSystem(`You are a teammate. ${'Work in small, checked steps. '.repeat(250)}`);

/** Plays `turns` user turns; in turn t the model makes `callsIn(t)` parallel calls, then answers. */
async function playLoop(options: {
  turns: number;
  callsIn: (turn: number) => number;
  keepBreakpoints: boolean;
}) {
  const log = createRequestLog();
  const script = (request: { body: unknown }): Reply => {
    const body = request.body as Anthropic.MessageCreateParams;
    const last = body.messages.at(-1)!;
    const answeringTools =
      Array.isArray(last.content) && last.content.some((block) => block.type === 'tool_result');
    if (answeringTools) return text('Done with that step.');
    const turn = Number(/turn (\d+)/.exec(JSON.stringify(last.content))?.[1]);
    const calls = options.callsIn(turn);
    if (calls === 0) return text(`Answer to turn ${turn}.`);
    return {
      content: Array.from({ length: calls }, (_unused, call) => ({
        type: 'tool_use' as const,
        name: 'Read',
        input: { path: `src/file-${turn}-${call}.ts` },
      })),
    };
  };
  const client = createModelClient({
    apiKey: 'test',
    baseURL: 'http://scripted-model.invalid',
    fetch: createScriptedFetch({ script, cache: createPromptCache(), log }),
  });
  const messages: ConversationMessage[] = [];
  let breakpoints: BreakpointState | undefined;
  const requestTurns: number[] = [];
  for (let turn = 1; turn <= options.turns; turn += 1) {
    messages.push({ role: 'user', content: `Please do turn ${turn}.` });
    for (;;) {
      const built = buildRequest({
        model: 'claude-test-model',
        maxTokens: 1000,
        system,
        tools,
        messages,
        ...(options.keepBreakpoints && breakpoints ? { previousBreakpoints: breakpoints } : {}),
      });
      breakpoints = built.breakpoints;
      const { message } = await client.stream(built.params, { signal });
      requestTurns.push(turn);
      messages.push({
        role: 'assistant',
        content: message.content as Anthropic.ContentBlockParam[],
      });
      if (message.stop_reason !== 'tool_use') break;
      messages.push({
        role: 'user',
        content: message.content
          .filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use')
          .map((block) => ({
            type: 'tool_result' as const,
            tool_use_id: block.id,
            content: `contents of ${JSON.stringify(block.input)}`,
          })),
      });
    }
  }
  const shares = log.records().map((record) => {
    const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens } = record.usage;
    return (
      cache_read_input_tokens /
      (input_tokens + cache_creation_input_tokens + cache_read_input_tokens)
    );
  });
  return { log, shares, requestTurns };
}

describe('prompt caching of requests built by buildRequest (scripted model with cache simulation)', () => {
  it('keeps one tools+system hash over 24 turns, at most 4 markers, and reads ≥ 80% of every prompt from turn 3 on', async () => {
    const { log, shares, requestTurns } = await playLoop({
      turns: 24,
      callsIn: (turn) => turn % 3, // 0, 1 or 2 parallel calls
      keepBreakpoints: true,
    });
    const records = log.records();
    expect(records.length).toBeGreaterThanOrEqual(40);
    expect(records.every((record) => record.status === 200)).toBe(true);
    expect(new Set(records.map((record) => record.toolsSystemHash)).size).toBe(1);
    expect(
      Math.max(...records.map((record) => record.breakpointHashes.length)),
    ).toBeLessThanOrEqual(4);
    const fromTurnThree = shares.filter((_share, index) => requestTurns[index]! >= 3);
    expect(Math.min(...fromTurnThree)).toBeGreaterThanOrEqual(0.8);
  });

  it('still reads the cache after a turn of 12 parallel calls (the intermediate breakpoint); without it, that request misses', async () => {
    const callsIn = (turn: number): number => (turn === 4 ? 12 : 1);
    const kept = await playLoop({ turns: 5, callsIn, keepBreakpoints: true });
    const lost = await playLoop({ turns: 5, callsIn, keepBreakpoints: false });
    // The request that answers the 12 calls: 24 blocks after the previous breakpoint.
    const index = kept.requestTurns.findIndex((turn) => turn === 4) + 1;
    expect(kept.log.records()[index]!.breakpointHashes).toHaveLength(3);
    // Kept: everything the previous request cached is read.
    const previous = kept.log.records()[index - 1]!.usage;
    const usage = kept.log.records()[index]!.usage;
    expect(usage.cache_read_input_tokens).toBe(
      previous.cache_read_input_tokens + previous.cache_creation_input_tokens,
    );
    // Lost: the tail looks back only 20 blocks and finds nothing; only tools+system are read.
    expect(lost.log.records()[index]!.breakpointHashes).toHaveLength(2);
    const lostUsage = lost.log.records()[index]!.usage;
    expect(lostUsage.cache_read_input_tokens).toBeLessThan(usage.cache_read_input_tokens);
    expect(lostUsage.cache_creation_input_tokens).toBeGreaterThan(
      usage.cache_creation_input_tokens,
    );
    expect(lost.shares[index]).toBeLessThan(kept.shares[index]!);
  });
});
