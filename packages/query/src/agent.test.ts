// createAgent against the scripted model (a TEST DOUBLE) through the real SDK and model
// client: the event stream, the tool round trip (R6), usage (R8), one turn at a time, close.
import {
  createPromptCache,
  createRequestLog,
  sequence,
  text,
  toolUse,
  reply,
  thinking,
} from '@muster/scripted-model';
import { describe, expect, it } from 'vitest';
import {
  collect,
  eventsOf,
  expectValidConversations,
  openScriptedAgent,
  recordingTool,
  TEST_API_KEY,
  withoutMarkers,
} from './agent-test-support.js';
import { RESUMED_UNANSWERED_MESSAGE } from './agent-history.js';
import { QueryError } from './query-error.js';

describe('createAgent', () => {
  it('streams a text turn: events in order, text, usage and the model client used', async () => {
    const { agent, scriptedFetch } = openScriptedAgent(() => text('Hello there.'));
    const { events, result } = await collect(agent.send('Say hello'));
    expect(result.reason).toBe('completed');
    expect(result.stopReason).toBe('end_turn');
    expect(result.text).toBe('Hello there.');
    expect(result.requests).toBe(1);
    const types = events.map((event) => event.type).filter((type) => type !== 'text_delta');
    expect(types).toEqual([
      'turn_start',
      'request_start',
      'response_start',
      'assistant_message',
      'usage',
      'turn_end',
    ]);
    expect(
      eventsOf(events, 'text_delta')
        .map((event) => event.text)
        .join(''),
    ).toBe('Hello there.');
    expect(agent.messages()).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Say hello' }] },
      {
        role: 'assistant',
        content: [expect.objectContaining({ type: 'text', text: 'Hello there.' })],
      },
    ]);
    expect(scriptedFetch.requests()[0]!.body.stream).toBe(true);
    expect(agent.busy).toBe(false);
    await agent.close();
  });

  it('runs a tool round trip: one user message with every tool_result first, in tool_use order (R6)', async () => {
    const echo = recordingTool('Echo');
    const script = sequence(
      [
        reply({
          content: [
            'Two calls.',
            toolUse('Echo', { tag: 'a' }, 'toolu_a'),
            toolUse('Echo', { tag: 'b' }, 'toolu_b'),
            toolUse('Missing', { tag: 'c' }, 'toolu_c'),
          ],
        }),
        text('Both done.'),
      ],
      { keyOf: () => 'agent' },
    );
    const { agent, scriptedFetch } = openScriptedAgent(script, { tools: [echo] });
    const { events, result } = await collect(agent.send('Run them'));
    expect(result).toMatchObject({
      reason: 'completed',
      text: 'Both done.',
      requests: 2,
      toolCalls: 3,
    });
    expect(echo.calls.map((call) => call.input.tag)).toEqual(['a', 'b']);
    const second = withoutMarkers(scriptedFetch.requests()[1]!.body.messages);
    expect(second).toHaveLength(3);
    expect(second[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_a', content: 'Echo ok a' },
        { type: 'tool_result', tool_use_id: 'toolu_b', content: 'Echo ok b' },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_c',
          content: expect.stringMatching(/No tool is named "Missing"\. Available tools: Echo/),
          is_error: true,
        },
      ],
    });
    expect(
      eventsOf(events, 'tool_call_end').map((event) => [
        event.toolUseId,
        event.allowed,
        event.isError,
      ]),
    ).toEqual([
      ['toolu_a', true, false],
      ['toolu_b', true, false],
      ['toolu_c', false, true],
    ]);
    expectValidConversations(scriptedFetch);
    await agent.close();
  });

  it('sends thinking blocks back unmodified', async () => {
    const script = sequence(
      [
        reply({
          content: [thinking('Let me check.', 'sig-123'), toolUse('Echo', { tag: 'x' }, 'toolu_x')],
        }),
        text('Checked.'),
      ],
      { keyOf: () => 'agent' },
    );
    const { agent, scriptedFetch } = openScriptedAgent(script, { tools: [recordingTool('Echo')] });
    await collect(agent.send('Think'));
    const second = withoutMarkers(scriptedFetch.requests()[1]!.body.messages);
    expect((second[1]!.content as unknown[])[0]).toEqual({
      type: 'thinking',
      thinking: 'Let me check.',
      signature: 'sig-123',
    });
    await agent.close();
  });

  it('records usage per request and per agent; the sums equal the scripted model totals (R8)', async () => {
    const log = createRequestLog();
    const long = 'The rules of this agent. '.repeat(300);
    const script = sequence(
      [
        toolUse('Echo', { tag: '1' }, undefined, { outputTokens: 11 }),
        text('one', { outputTokens: 7 }),
        toolUse('Echo', { tag: '2' }, undefined, { outputTokens: 13 }),
        text('two', { outputTokens: 5 }),
      ],
      { keyOf: () => 'agent' },
    );
    const { agent } = openScriptedAgent(script, {
      cache: createPromptCache(),
      log,
      system: long,
      tools: [recordingTool('Echo')],
    });
    const first = await collect(agent.send('first'));
    const second = await collect(agent.send('second'));
    const records = log.records();
    expect(records).toHaveLength(4);
    const scriptedOutputTokens = [11, 7, 13, 5];
    const fromLog = records.map((record, index) => ({
      inputTokens: record.usage.input_tokens,
      cacheCreationInputTokens: record.usage.cache_creation_input_tokens,
      cacheReadInputTokens: record.usage.cache_read_input_tokens,
      outputTokens: scriptedOutputTokens[index]!,
    }));
    expect(agent.requestUsage()).toEqual(fromLog);
    const sum = (key: keyof (typeof fromLog)[number]) =>
      fromLog.reduce((total, usage) => total + usage[key], 0);
    expect(agent.usage()).toEqual({
      inputTokens: sum('inputTokens'),
      cacheCreationInputTokens: sum('cacheCreationInputTokens'),
      cacheReadInputTokens: sum('cacheReadInputTokens'),
      outputTokens: sum('outputTokens'),
    });
    expect(agent.usage().cacheReadInputTokens).toBeGreaterThan(0);
    const usageEvents = [...eventsOf(first.events, 'usage'), ...eventsOf(second.events, 'usage')];
    expect(usageEvents.map((event) => event.request)).toEqual(fromLog);
    expect(usageEvents.at(-1)!.agent).toEqual(agent.usage());
    expect(first.result.usage.inputTokens + second.result.usage.inputTokens).toBe(
      sum('inputTokens'),
    );
    expect(new Set(records.map((record) => record.toolsSystemHash)).size).toBe(1);
    await agent.close();
  });

  it('takes one turn at a time and refuses turns after close', async () => {
    const { agent } = openScriptedAgent(() => text('ok'));
    const turn = agent.send('one');
    expect(agent.busy).toBe(true);
    expect(() => agent.send('two')).toThrow(expect.objectContaining({ code: 'TURN_IN_PROGRESS' }));
    await turn.result;
    expect(agent.busy).toBe(false);
    await collect(agent.send('two'));
    await agent.close();
    expect(() => agent.send('three')).toThrow(QueryError);
    expect(() => agent.send('three')).toThrow(/is closed/);
    await agent.close(); // twice is fine
  });

  it('resumes a conversation whose last tool calls have no results by answering them first', async () => {
    const { agent, scriptedFetch } = openScriptedAgent(() => text('Resumed.'), {
      messages: [
        { role: 'user', content: 'Read it' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_old', name: 'Read', input: {} }],
        },
      ],
    });
    const { result } = await collect(agent.send('Where were we?'));
    expect(result.reason).toBe('completed');
    const sent = withoutMarkers(scriptedFetch.requests()[0]!.body.messages);
    expect(sent[2]!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_old',
        content: RESUMED_UNANSWERED_MESSAGE,
        is_error: true,
      },
      { type: 'text', text: 'Where were we?' },
    ]);
    await agent.close();
  });

  it('lets a turn be iterated once', async () => {
    const { agent } = openScriptedAgent(() => text('ok'));
    const turn = agent.send('go');
    await collect(turn);
    expect(() => turn[Symbol.asyncIterator]()).toThrow(/iterated once/);
    await agent.close();
  });

  it('refuses empty messages and bad options with what to pass', async () => {
    const { agent } = openScriptedAgent(() => text('ok'));
    expect(() => agent.send('')).toThrow(/non-empty string/);
    expect(() => openScriptedAgent(() => text('ok'), { cwd: 'relative/dir' })).toThrow(
      /cwd must be an absolute directory/,
    );
    expect(() => openScriptedAgent(() => text('ok'), { maxTokens: 0 })).toThrow(
      /maxTokens must be an integer ≥ 1/,
    );
    await agent.close();
  });

  it('gives tools a scrubbed environment, the agent identity, one state store and onAgentClose', async () => {
    const disposed: string[] = [];
    const key = Symbol('test state');
    const probe = recordingTool('Probe', {
      async run(_input, context) {
        const counter = context.state.get(key, () => ({ calls: 0 }));
        counter.calls += 1;
        context.onAgentClose(() => {
          disposed.push(context.toolUseId);
        });
        return { content: `calls=${counter.calls}` };
      },
    });
    const script = sequence(
      [
        toolUse('Probe', { tag: '1' }, 'toolu_1'),
        toolUse('Probe', { tag: '2' }, 'toolu_2'),
        text('done'),
      ],
      { keyOf: () => 'agent' },
    );
    const { agent } = openScriptedAgent(script, { tools: [probe] });
    await collect(agent.send('go'));
    const [first, second] = probe.calls;
    expect(first!.context.environment).toEqual({ PATH: '/usr/bin:/bin' });
    expect(JSON.stringify(first!.context.environment)).not.toContain(TEST_API_KEY);
    expect(first!.context.agent).toEqual({
      name: 'tester',
      id: 'tester@test-team',
      teamName: 'test-team',
    });
    expect(first!.context.state).toBe(second!.context.state);
    expect(first!.context.roots).toEqual({ read: ['/tmp'], write: ['/tmp'] });
    expect(disposed).toEqual([]);
    await agent.close();
    expect(disposed.sort()).toEqual(['toolu_1', 'toolu_2']);
  });
});
