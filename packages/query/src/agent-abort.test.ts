// Two-level abort (R29) against the scripted model (a TEST DOUBLE) through the real SDK: a
// turn's abort ends its stream and tools and leaves the agent ready; the lifecycle signal ends
// the agent; listeners on the lifecycle signal do not grow across turns.
import { getEventListeners } from 'node:events';
import { fault, reply, text, toolUse } from '@muster/scripted-model';
import { describe, expect, it } from 'vitest';
import {
  collect,
  eventsOf,
  expectValidConversations,
  openScriptedAgent,
  recordingTool,
  stepsInOrder,
  userTexts,
  withoutMarkers,
} from './agent-test-support.js';
import type { AgentEvent, AgentTurn } from './agent-types.js';

/** Reads a turn's events, calling `onEvent` for each (to abort at a chosen point). */
async function collectWith(
  turn: AgentTurn,
  onEvent: (event: AgentEvent) => void,
): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of turn) {
    events.push(event);
    onEvent(event);
  }
  return events;
}

/** Resolves when `signal` aborts, or after `boundMs` (so a broken test cannot hang). */
function abortedOrAfter(signal: AbortSignal, boundMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(true);
    const timer = setTimeout(() => resolve(false), boundMs);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      { once: true },
    );
  });
}

describe('two-level abort (R29)', () => {
  it("turn.abort() ends the running tool through the turn signal; calls not run get 'interrupted'; the next turn works", async () => {
    const sawAbort: boolean[] = [];
    const slow = recordingTool('Slow', {
      run: async (_input, context) => {
        sawAbort.push(await abortedOrAfter(context.signal, 5_000));
        return { content: 'slow finished' };
      },
    });
    const after = recordingTool('After');
    const script = stepsInOrder(
      reply({
        content: [
          toolUse('Slow', { tag: '1' }, 'toolu_slow'),
          toolUse('After', { tag: '2' }, 'toolu_after'),
        ],
      }),
      text('Starting over.'),
    );
    const { agent, scriptedFetch } = openScriptedAgent(script, { tools: [slow, after] });
    const turn = agent.send('go');
    const events = await collectWith(turn, (event) => {
      if (event.type === 'tool_call_start' && event.name === 'Slow') turn.abort('user pressed Esc');
    });
    const result = await turn.result;
    expect(result.reason).toBe('aborted');
    expect(sawAbort).toEqual([true]);
    expect(after.calls).toHaveLength(0);
    expect(eventsOf(events, 'tool_call_end').map((event) => [event.name, event.isError])).toEqual([
      ['Slow', true],
      ['After', true],
    ]);
    expect(agent.busy).toBe(false);

    const next = await collect(agent.send('Try again'));
    expect(next.result.reason).toBe('completed');
    const conversation = withoutMarkers(scriptedFetch.requests()[1]!.body.messages);
    expect(conversation.at(-1)!.content).toEqual([
      expect.objectContaining({
        tool_use_id: 'toolu_slow',
        is_error: true,
        content: expect.stringMatching(/^Interrupted/),
      }),
      expect.objectContaining({
        tool_use_id: 'toolu_after',
        is_error: true,
        content: expect.stringMatching(/^Interrupted/),
      }),
      { type: 'text', text: 'Try again' },
    ]);
    expectValidConversations(scriptedFetch);
    await agent.close();
  });

  it('ends the turn promptly even when a tool ignores the signal', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let finished = false;
    const stubborn = recordingTool('Stubborn', {
      run: async () => {
        await Promise.race([released, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        finished = true;
        return { content: 'late' };
      },
    });
    const { agent } = openScriptedAgent(stepsInOrder(toolUse('Stubborn', { tag: 'x' })), {
      tools: [stubborn],
    });
    const turn = agent.send('go');
    await collectWith(turn, (event) => {
      if (event.type === 'tool_call_start') turn.abort();
    });
    expect((await turn.result).reason).toBe('aborted');
    expect(finished).toBe(false);
    release();
    await agent.close();
  });

  it('ends the turn when it is aborted while an authorizer waits for an answer that never comes', async () => {
    const echo = recordingTool('Echo');
    const { agent } = openScriptedAgent(stepsInOrder(toolUse('Echo', { tag: 'x' })), {
      tools: [echo],
      authorize: (_call, { announceAsk }) => {
        announceAsk();
        return new Promise(() => undefined); // no one ever answers, and it ignores the signal
      },
    });
    const turn = agent.send('go');
    const events = await collectWith(turn, (event) => {
      if (event.type === 'permission_ask') turn.abort();
    });
    expect((await turn.result).reason).toBe('aborted');
    expect(echo.calls).toHaveLength(0);
    expect(eventsOf(events, 'tool_call_end')[0]).toMatchObject({ allowed: false, isError: true });
    await agent.close();
  });

  it('turn.abort() ends a stalled stream; the next turn sends both user messages as one', async () => {
    const script = stepsInOrder(fault('silence-after-headers'), text('Here now.'));
    const { agent, scriptedFetch } = openScriptedAgent(script);
    const turn = agent.send('Hello?');
    await collectWith(turn, (event) => {
      if (event.type === 'request_start') setTimeout(() => turn.abort(), 20);
    });
    expect((await turn.result).reason).toBe('aborted');
    expect((await collect(agent.send('Still there?'))).result.text).toBe('Here now.');
    expect(withoutMarkers(scriptedFetch.requests()[1]!.body.messages)).toEqual([
      userTexts('Hello?', 'Still there?'),
    ]);
    await agent.close();
  });

  it('leaves no extra abort listener on the lifecycle signal after 200 turns', async () => {
    const lifecycle = new AbortController();
    const listeners = () => getEventListeners(lifecycle.signal, 'abort').length;
    const { agent } = openScriptedAgent(() => text('ok'), { signal: lifecycle.signal });
    const baseline = listeners();
    expect(baseline).toBe(1); // the agent's own: aborting the lifecycle closes it
    for (let turn = 0; turn < 200; turn += 1) {
      const running = agent.send(`turn ${turn}`);
      if (turn === 0) expect(listeners()).toBe(baseline + 1);
      if (turn % 20 === 0) running.abort();
      await running.result;
    }
    expect(listeners()).toBe(baseline);
    await agent.close();
    expect(listeners()).toBe(0);
  });

  it('aborting the lifecycle signal aborts the turn, runs onAgentClose work and closes the agent', async () => {
    const lifecycle = new AbortController();
    const disposed: string[] = [];
    const sawAbort: boolean[] = [];
    const shell = recordingTool('Shell', {
      run: async (_input, context) => {
        context.onAgentClose(() => {
          disposed.push('background shell killed');
        });
        sawAbort.push(await abortedOrAfter(context.signal, 5_000));
        return { content: 'stopped' };
      },
    });
    const { agent } = openScriptedAgent(stepsInOrder(toolUse('Shell', { tag: 'x' })), {
      tools: [shell],
      signal: lifecycle.signal,
    });
    const turn = agent.send('go');
    await collectWith(turn, (event) => {
      if (event.type === 'tool_call_start') lifecycle.abort();
    });
    expect((await turn.result).reason).toBe('aborted');
    expect(sawAbort).toEqual([true]);
    await agent.close();
    expect(disposed).toEqual(['background shell killed']);
    expect(() => agent.send('more')).toThrow(expect.objectContaining({ code: 'AGENT_CLOSED' }));
  });
});
