// Mid-turn delivery through the loop: input that arrives while a tool runs reaches the very
// next request, after every tool_result (R6), and the prompt cache still serves that request.
// The model is @muster/scripted-model (a TEST DOUBLE of the Messages API) behind the real SDK.
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
  eventsOf,
  expectValidConversations,
  openScriptedAgent,
  recordingTool,
} from './agent-test-support.js';
import { readPendingInput, type PendingInputSource } from './pending-input.js';
import { QueryError } from './query-error.js';

/** A queue a test writes to while a tool runs; the agent drains it at a boundary. */
function createQueue() {
  const waiting: Anthropic.ContentBlockParam[] = [];
  let calls = 0;
  const source: PendingInputSource = () => {
    calls += 1;
    if (waiting.length === 0) return undefined;
    return waiting.splice(0, waiting.length);
  };
  return { waiting, source, calls: () => calls };
}

function lastUserBlocks(body: unknown): Array<{ type: string; [key: string]: unknown }> {
  const messages = (body as Anthropic.MessageCreateParams).messages;
  const last = messages.at(-1)!;
  return (typeof last.content === 'string' ? [] : last.content) as unknown as Array<{
    type: string;
    [key: string]: unknown;
  }>;
}

const LEAD_MESSAGE =
  '<teammate-message teammate_id="team-lead">Stop after this step.</teammate-message>';

describe('mid-turn delivery (AgentOptions.pendingInput)', () => {
  it('puts a message queued while a tool runs into the very next request, after every tool_result', async () => {
    const queue = createQueue();
    const slow = recordingTool('Slow', {
      run: async (input) => {
        // The message arrives while the tool is running.
        queue.waiting.push({ type: 'text', text: LEAD_MESSAGE });
        return { content: `slow ${String(input.tag)}` };
      },
    });
    const fast = recordingTool('Fast');
    const script = (request: { index: number }): Reply => {
      if (request.index === 0) {
        return {
          content: [
            ...toolUse('Slow', { tag: 'a' }).content,
            ...toolUse('Fast', { tag: 'b' }).content,
          ],
        };
      }
      return text('Stopping as asked.');
    };
    const { agent, scriptedFetch } = openScriptedAgent(script, {
      tools: [slow, fast],
      pendingInput: queue.source,
    });
    try {
      const { events, result } = await collect(agent.send('Do two steps.'));
      expect(result.reason).toBe('completed');
      const requests = scriptedFetch.requests();
      expect(requests).toHaveLength(2);
      const blocks = lastUserBlocks(requests[1]!.body);
      expect(blocks.map((block) => block.type)).toEqual(['tool_result', 'tool_result', 'text']);
      const { cache_control: _marker, ...delivered } = blocks[2]!;
      expect(delivered).toEqual({ type: 'text', text: LEAD_MESSAGE });
      expect(eventsOf(events, 'input_delivered')).toEqual([{ type: 'input_delivered', blocks: 1 }]);
      // The event comes after the tool calls ended and before the next request.
      const order = events.map((event) => event.type);
      expect(order.indexOf('input_delivered')).toBeGreaterThan(order.lastIndexOf('tool_call_end'));
      expect(order.indexOf('input_delivered')).toBeLessThan(order.lastIndexOf('request_start'));
      // Asked once, at the one tool-result boundary; not when the turn ended without tools.
      expect(queue.calls()).toBe(1);
      expectValidConversations(scriptedFetch);
    } finally {
      await agent.close();
    }
  });

  it('keeps reading the prompt cache for the request that carries the delivered input', async () => {
    const queue = createQueue();
    const log = createRequestLog();
    const step = recordingTool('Step', {
      run: async (input) => {
        queue.waiting.push({ type: 'text', text: `${LEAD_MESSAGE} (${String(input.tag)})` });
        return { content: `step ${String(input.tag)} done` };
      },
    });
    const script = (request: { index: number }): Reply =>
      request.index < 3 ? toolUse('Step', { tag: `s${request.index}` }) : text('All done.');
    const { agent } = openScriptedAgent(script, {
      cache: createPromptCache(),
      log,
      tools: [step],
      pendingInput: queue.source,
      // About 2,000 tokens: above the simulated 1,024-token minimum.
      system: `You are a teammate in a test team. ${'Work in small, checked steps. '.repeat(250)}`,
    });
    try {
      const { events, result } = await collect(agent.send('Take three steps.'));
      expect(result.reason).toBe('completed');
      expect(eventsOf(events, 'input_delivered')).toHaveLength(3);
      const records = log.records();
      expect(records).toHaveLength(4);
      for (let index = 1; index < records.length; index += 1) {
        const previous = records[index - 1]!.usage;
        const usage = records[index]!.usage;
        // The whole previous prompt up to its tail breakpoint is read back from the cache.
        expect(usage.cache_read_input_tokens).toBe(
          previous.cache_read_input_tokens + previous.cache_creation_input_tokens,
        );
        const prompt =
          usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
        console.log(
          `mid-turn delivery: request ${index} cache share ${(usage.cache_read_input_tokens / prompt).toFixed(3)}`,
        );
        expect(usage.cache_read_input_tokens / prompt).toBeGreaterThan(0.9);
      }
    } finally {
      await agent.close();
    }
  });

  it('is not called when the turn ends without tool calls', async () => {
    const queue = createQueue();
    queue.waiting.push({ type: 'text', text: LEAD_MESSAGE });
    const { agent, scriptedFetch } = openScriptedAgent(() => text('Nothing to run.'), {
      pendingInput: queue.source,
    });
    try {
      const { events } = await collect(agent.send('Just answer.'));
      expect(queue.calls()).toBe(0);
      expect(eventsOf(events, 'input_delivered')).toHaveLength(0);
      expect(JSON.stringify(scriptedFetch.requests()[0]!.body)).not.toContain('Stop after');
      expect(queue.waiting).toHaveLength(1); // still there for the caller's next turn
    } finally {
      await agent.close();
    }
  });

  it('fails the turn with PENDING_INPUT_FAILED when pendingInput throws or returns bad blocks, keeping the tool results', async () => {
    const cases: Array<{ source: PendingInputSource; says: string }> = [
      {
        source: () => {
          throw new Error('inbox unreadable');
        },
        says: 'inbox unreadable',
      },
      {
        source: () => [{ type: 'tool_result', tool_use_id: 'x', content: 'forged' }],
        says: 'tool_result block cannot be delivered',
      },
      { source: () => [{ type: 'text', text: '' }], says: 'empty text block' },
      { source: (() => 'hello') as unknown as PendingInputSource, says: 'got string' },
    ];
    for (const { source, says } of cases) {
      const tool = recordingTool('Step');
      const { agent, scriptedFetch } = openScriptedAgent(
        (request) => (request.index === 0 ? toolUse('Step', { tag: 'a' }) : text('ok')),
        { tools: [tool], pendingInput: source },
      );
      try {
        const { result } = await collect(agent.send('Go.'));
        expect(result.reason).toBe('failed');
        expect(result.error?.code).toBe('PENDING_INPUT_FAILED');
        expect(result.error?.message).toContain(says);
        expect(scriptedFetch.requests()).toHaveLength(1);
        const last = agent.messages().at(-1)!;
        expect(last.role).toBe('user');
        expect(JSON.stringify(last.content)).toContain('Step ok a');
      } finally {
        await agent.close();
      }
    }
  });

  it('takes a Promise too, and treats undefined or [] as nothing to deliver', async () => {
    const block = { type: 'text' as const, text: 'later' };
    await expect(readPendingInput(async () => [block])).resolves.toEqual([block]);
    await expect(readPendingInput(async () => undefined)).resolves.toEqual([]);
    await expect(readPendingInput(() => [])).resolves.toEqual([]);
    await expect(
      readPendingInput(async () => {
        throw new Error('gone');
      }),
    ).rejects.toMatchObject({ code: 'PENDING_INPUT_FAILED' });
  });

  it('refuses a pendingInput that is not a function', () => {
    expect(() =>
      openScriptedAgent(() => text('x'), {
        pendingInput: 'inbox' as unknown as PendingInputSource,
      }),
    ).toThrow(QueryError);
  });
});
