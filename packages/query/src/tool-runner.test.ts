// How the loop runs tools, against the scripted model (a TEST DOUBLE) through the real SDK:
// parallel and serial execution, schema failures, denials and failures become is_error results.
import { reply, text, toolUse } from '@muster/scripted-model';
import { describe, expect, it } from 'vitest';
import {
  collect,
  eventsOf,
  expectValidConversations,
  openScriptedAgent,
  recordingTool,
  stepsInOrder,
  withoutMarkers,
} from './agent-test-support.js';
import type { ToolAuthorizer } from './agent-types.js';
import { ToolError } from './query-error.js';
import { MAX_PARALLEL_TOOL_CALLS } from './tool-runner.js';

/** The tool_result blocks of the request after the tools ran. */
function resultsOf(messages: unknown): Array<Record<string, unknown>> {
  const conversation = withoutMarkers(messages);
  return conversation.at(-1)!.content as Array<Record<string, unknown>>;
}

/** A gate several calls wait at until `count` of them arrived (bounded: opens after 2 s anyway). */
function meetingPoint(count: number) {
  let arrived = 0;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const timer = setTimeout(open, 2_000);
  return {
    async arrive(): Promise<boolean> {
      arrived += 1;
      if (arrived >= count) {
        clearTimeout(timer);
        open();
      }
      await opened;
      return arrived >= count;
    },
  };
}

describe('the tool runner', () => {
  it('runs consecutive concurrency-safe calls together and the others one by one, results in tool_use order', async () => {
    const order: string[] = [];
    const gate = meetingPoint(3);
    const met: boolean[] = [];
    const run = async (input: Record<string, unknown>) => {
      met.push(await gate.arrive());
      return { content: `read ${String(input.tag)}` };
    };
    const read = recordingTool('Look', { concurrent: true, order, run });
    const write = recordingTool('Change', { concurrent: false, readOnly: false, order });
    const script = stepsInOrder(
      reply({
        content: [
          toolUse('Look', { tag: '1' }, 'toolu_1'),
          toolUse('Look', { tag: '2' }, 'toolu_2'),
          toolUse('Look', { tag: '3' }, 'toolu_3'),
          toolUse('Change', { tag: '4' }, 'toolu_4'),
          toolUse('Change', { tag: '5' }, 'toolu_5'),
        ],
      }),
      text('done'),
    );
    const { agent, scriptedFetch } = openScriptedAgent(script, { tools: [read, write] });
    const { result } = await collect(agent.send('go'));
    expect(result.reason).toBe('completed');
    // The three reads overlapped: each started before any of them ended.
    expect(met).toEqual([true, true, true]);
    expect(order.slice(0, 3).sort()).toEqual(['start:Look:1', 'start:Look:2', 'start:Look:3']);
    expect(order.slice(6)).toEqual([
      'start:Change:4',
      'end:Change:4',
      'start:Change:5',
      'end:Change:5',
    ]);
    expect(
      resultsOf(scriptedFetch.requests()[1]!.body.messages).map((block) => block.tool_use_id),
    ).toEqual(['toolu_1', 'toolu_2', 'toolu_3', 'toolu_4', 'toolu_5']);
    expectValidConversations(scriptedFetch);
    await agent.close();
  });

  it('runs at most MAX_PARALLEL_TOOL_CALLS concurrency-safe calls at once', async () => {
    let running = 0;
    let most = 0;
    const look = recordingTool('Look', {
      concurrent: true,
      run: async (input) => {
        running += 1;
        most = Math.max(most, running);
        for (let tick = 0; tick < 5; tick += 1)
          await new Promise((resolve) => setImmediate(resolve));
        running -= 1;
        return { content: `looked ${String(input.tag)}` };
      },
    });
    const calls = Array.from({ length: MAX_PARALLEL_TOOL_CALLS + 5 }, (_, index) =>
      toolUse('Look', { tag: String(index) }, `toolu_${index}`),
    );
    const { agent, scriptedFetch } = openScriptedAgent(
      stepsInOrder(reply({ content: calls }), text('done')),
      {
        tools: [look],
      },
    );
    await collect(agent.send('go'));
    expect(most).toBe(MAX_PARALLEL_TOOL_CALLS);
    expect(look.calls).toHaveLength(MAX_PARALLEL_TOOL_CALLS + 5);
    expect(
      resultsOf(scriptedFetch.requests()[1]!.body.messages).map((block) => block.content),
    ).toEqual(calls.map((_, index) => `looked ${index}`));
    await agent.close();
  });

  it('never overlaps calls that are not concurrency-safe', async () => {
    const order: string[] = [];
    const change = recordingTool('Change', { order });
    const script = stepsInOrder(
      reply({ content: [toolUse('Change', { tag: 'a' }), toolUse('Change', { tag: 'b' })] }),
      text('done'),
    );
    const { agent } = openScriptedAgent(script, { tools: [change] });
    await collect(agent.send('go'));
    expect(order).toEqual(['start:Change:a', 'end:Change:a', 'start:Change:b', 'end:Change:b']);
    await agent.close();
  });

  it('answers input that fails the schema with an is_error naming each issue; the tool never runs', async () => {
    const echo = recordingTool('Echo');
    const script = stepsInOrder(
      toolUse('Echo', { tag: 42, extra: true }, 'toolu_bad'),
      text('sorry'),
    );
    const { agent, scriptedFetch } = openScriptedAgent(script, { tools: [echo] });
    const { events, result } = await collect(agent.send('go'));
    expect(result.reason).toBe('completed');
    expect(echo.calls).toHaveLength(0);
    const [block] = resultsOf(scriptedFetch.requests()[1]!.body.messages);
    expect(block).toMatchObject({ tool_use_id: 'toolu_bad', is_error: true });
    expect(block!.content).toMatch(/input of Echo is invalid/);
    expect(block!.content).toMatch(/- tag: .*expected string/i);
    expect(block!.content).toMatch(/extra/);
    expect(eventsOf(events, 'tool_call_end')[0]).toMatchObject({ allowed: false, isError: true });
    await agent.close();
  });

  it('gives the model the denial message as is; the tool never runs', async () => {
    const echo = recordingTool('Echo');
    const authorize: ToolAuthorizer = async (call) => ({
      behavior: 'deny',
      message: `No ${call.toolName} on ${call.paths.join(',')} today.`,
    });
    const script = stepsInOrder(
      toolUse('Echo', { tag: 'x', path: 'notes.txt' }, 'toolu_d'),
      text('ok'),
    );
    const { agent, scriptedFetch } = openScriptedAgent(script, { tools: [echo], authorize });
    const { events } = await collect(agent.send('go'));
    expect(echo.calls).toHaveLength(0);
    expect(resultsOf(scriptedFetch.requests()[1]!.body.messages)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_d',
        content: 'No Echo on notes.txt today.',
        is_error: true,
      },
    ]);
    expect(eventsOf(events, 'tool_call_end')[0]).toMatchObject({
      allowed: false,
      isError: true,
      resultText: 'No Echo on notes.txt today.',
    });
    await agent.close();
  });

  it('announces asks, runs with the input a person edited and adds approved paths to the roots', async () => {
    const echo = recordingTool('Echo', { readOnly: false });
    const authorize: ToolAuthorizer = async (call, { announceAsk }) => {
      announceAsk();
      return {
        behavior: 'allow',
        input: { ...call.input, tag: 'edited' },
        approvedPaths: ['/srv/shared'],
        asked: true,
      };
    };
    const script = stepsInOrder(toolUse('Echo', { tag: 'original' }, 'toolu_e'), text('ok'));
    const { agent } = openScriptedAgent(script, { tools: [echo], authorize });
    const { events } = await collect(agent.send('go'));
    expect(eventsOf(events, 'permission_ask')).toEqual([
      { type: 'permission_ask', toolUseId: 'toolu_e', name: 'Echo', input: { tag: 'original' } },
    ]);
    expect(echo.calls[0]!.input).toEqual({ tag: 'edited' });
    expect(echo.calls[0]!.context.roots).toEqual({
      read: ['/tmp', '/srv/shared'],
      write: ['/tmp', '/srv/shared'],
    });
    await agent.close();
  });

  it('turns a ToolError into its message and any other exception into "<Tool> failed: …"', async () => {
    const strict = recordingTool('Strict', {
      run: async () => {
        throw new ToolError(
          'The file changed since it was read; Read it again first.',
          'STALE_READ',
        );
      },
    });
    const broken = recordingTool('Broken', {
      run: async () => {
        throw new RangeError('index out of range');
      },
    });
    const script = stepsInOrder(
      reply({
        content: [
          toolUse('Strict', { tag: 's' }, 'toolu_s'),
          toolUse('Broken', { tag: 'b' }, 'toolu_b'),
        ],
      }),
      text('noted'),
    );
    const { agent, scriptedFetch } = openScriptedAgent(script, { tools: [strict, broken] });
    const { result } = await collect(agent.send('go'));
    expect(result.reason).toBe('completed');
    expect(resultsOf(scriptedFetch.requests()[1]!.body.messages)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_s',
        content: 'The file changed since it was read; Read it again first.',
        is_error: true,
      },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_b',
        content: 'Broken failed: index out of range',
        is_error: true,
      },
    ]);
    await agent.close();
  });

  it('keeps a failing authorizer from crashing the turn', async () => {
    const echo = recordingTool('Echo');
    const authorize: ToolAuthorizer = async () => {
      throw new Error('rules file unreadable');
    };
    const script = stepsInOrder(toolUse('Echo', { tag: 'x' }, 'toolu_x'), text('ok'));
    const { agent, scriptedFetch } = openScriptedAgent(script, { tools: [echo], authorize });
    const { result } = await collect(agent.send('go'));
    expect(result.reason).toBe('completed');
    expect(echo.calls).toHaveLength(0);
    expect(resultsOf(scriptedFetch.requests()[1]!.body.messages)[0]!.content).toMatch(
      /deciding its permission failed \(rules file unreadable\)/,
    );
    await agent.close();
  });
});
