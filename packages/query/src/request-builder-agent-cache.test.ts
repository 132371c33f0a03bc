// R9/R10 through the loop: an agent (createAgent) over the real model client and SDK, answered
// by the scripted model (a TEST DOUBLE of the Messages API) with its prompt-cache simulation.
import type Anthropic from '@anthropic-ai/sdk';
import {
  createPromptCache,
  createRequestLog,
  text,
  toolUse,
  type Reply,
} from '@muster/scripted-model';
import { describe, expect, it } from 'vitest';
import {
  collect,
  expectValidConversations,
  openScriptedAgent,
  recordingTool,
} from './agent-test-support.js';

const TURNS = 22;

describe('prompt caching through createAgent (scripted model with cache simulation)', () => {
  it('keeps one tools+system hash per agent over 22 turns and reads ≥ 80% of every prompt from turn 3 on', async () => {
    const log = createRequestLog();
    const read = recordingTool('Read', { concurrent: true });
    const grep = recordingTool('Grep', { concurrent: true });
    // Each turn: two parallel calls, then an answer.
    const script = (request: { body: unknown }): Reply => {
      const body = request.body as Anthropic.MessageCreateParams;
      const last = body.messages.at(-1)!;
      const blocks = typeof last.content === 'string' ? [] : last.content;
      if (blocks.some((block) => block.type === 'tool_result')) return text('That step is done.');
      const turn = /turn (\d+)/.exec(JSON.stringify(last.content))?.[1] ?? '?';
      return {
        content: [
          ...toolUse('Read', { tag: `read-${turn}`, path: `src/file-${turn}.ts` }).content,
          ...toolUse('Grep', { tag: `grep-${turn}` }).content,
        ],
      };
    };
    const { agent, scriptedFetch } = openScriptedAgent(script, {
      cache: createPromptCache(),
      log,
      tools: [read, grep],
      // About 2,000 tokens: above the simulated 1,024-token minimum.
      system: `You are a teammate in a test team. ${'Work in small, checked steps. '.repeat(250)}`,
    });
    try {
      const requestTurns: number[] = [];
      for (let turn = 1; turn <= TURNS; turn += 1) {
        const before = log.records().length;
        const { result } = await collect(agent.send(`Please do turn ${turn}.`));
        expect(result.reason).toBe('completed');
        for (let index = before; index < log.records().length; index += 1) requestTurns.push(turn);
      }
      const records = log.records();
      expect(records).toHaveLength(TURNS * 2);
      expect(read.calls).toHaveLength(TURNS);
      expect(new Set(records.map((record) => record.toolsSystemHash)).size).toBe(1);
      expect(
        Math.max(...records.map((record) => record.breakpointHashes.length)),
      ).toBeLessThanOrEqual(4);
      const shares = records.map(({ usage }) => {
        const prompt =
          usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
        return usage.cache_read_input_tokens / prompt;
      });
      const fromTurnThree = shares.filter((_share, index) => requestTurns[index]! >= 3);
      expect(fromTurnThree).toHaveLength((TURNS - 2) * 2);
      expect(Math.min(...fromTurnThree)).toBeGreaterThanOrEqual(0.8);
      // The agent's usage is the scripted model's.
      const cacheRead = records.reduce(
        (sum, record) => sum + record.usage.cache_read_input_tokens,
        0,
      );
      expect(agent.usage().cacheReadInputTokens).toBe(cacheRead);
      expectValidConversations(scriptedFetch);
    } finally {
      await agent.close();
    }
  });
});
