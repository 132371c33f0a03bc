// Stop reasons and failures of a turn against the scripted model (a TEST DOUBLE) through the
// real SDK: R3 at the loop level, R5 (truncated tool calls never run), R7 (pause_turn,
// refusal, model_context_window_exceeded), request limits and final errors.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { fault, reply, text, toolUse, type Script } from '@muster/scripted-model';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
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
import type { AnyTool } from './tool.js';

/** A minimal Write tool over a real directory, counting its writes. */
function writeTool(): AnyTool & { writes: string[] } {
  const writes: string[] = [];
  return {
    name: 'Write',
    description: 'Writes a file.',
    inputSchema: z.strictObject({ file_path: z.string(), content: z.string() }),
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    pathsOf: (input: { file_path: string }) => [input.file_path],
    writes,
    async call(input: { file_path: string; content: string }) {
      const { writeFile } = await import('node:fs/promises');
      await writeFile(input.file_path, input.content);
      writes.push(input.file_path);
      return { content: `File created at ${input.file_path}` };
    },
  };
}

describe('a turn', () => {
  it('R5: never runs a tool_use cut off at max_tokens, reports it and answers it first next turn', async () => {
    const directory = await makeTempDirectory();
    const target = path.join(directory, 'passwd.bak');
    const write = writeTool();
    const script = stepsInOrder(
      fault(
        'max-tokens-in-tool-use',
        { keepInputBytes: 40 },
        toolUse(
          'Write',
          { file_path: target, content: 'line1\nline2\nline3\n'.repeat(20) },
          'toolu_cut',
        ),
      ),
      text('Sorry, I will write it in parts.'),
    );
    const { agent, scriptedFetch } = openScriptedAgent(script, { tools: [write], cwd: directory });
    const first = await collect(agent.send('Write the file'));
    expect(first.result.reason).toBe('max_tokens');
    expect(first.result.stopReason).toBe('max_tokens');
    expect(eventsOf(first.events, 'truncated_tool_call')).toEqual([
      {
        type: 'truncated_tool_call',
        toolUseId: 'toolu_cut',
        name: 'Write',
        stopReason: 'max_tokens',
      },
    ]);
    expect(eventsOf(first.events, 'tool_call_start')).toHaveLength(0);
    expect(write.writes).toEqual([]);
    expect(existsSync(target)).toBe(false);
    expect(await readdir(directory)).toEqual([]);

    await collect(agent.send('Go on'));
    const next = withoutMarkers(scriptedFetch.requests()[1]!.body.messages);
    expect(next.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_cut',
          content: expect.stringMatching(/^Not run: the response was cut off at max_tokens/),
          is_error: true,
        },
        { type: 'text', text: 'Go on' },
      ],
    });
    expectValidConversations(scriptedFetch);
    await agent.close();
  });

  it('R5: a tool_use in a refusal is not run either; the turn ends refusal (R7)', async () => {
    const echo = recordingTool('Echo');
    const script = stepsInOrder(
      reply({
        content: ['I will not do that.', toolUse('Echo', { tag: 'x' }, 'toolu_r')],
        stopReason: 'refusal',
      }),
    );
    const { agent } = openScriptedAgent(script, { tools: [echo] });
    const { events, result } = await collect(agent.send('Do something bad'));
    expect(result).toMatchObject({
      reason: 'refusal',
      stopReason: 'refusal',
      text: 'I will not do that.',
    });
    expect(echo.calls).toHaveLength(0);
    expect(eventsOf(events, 'truncated_tool_call')).toHaveLength(1);
    await agent.close();
  });

  it('R7: pause_turn is sent again as is, with no added text', async () => {
    const script = stepsInOrder(
      text('Searching…', { stopReason: 'pause_turn' }),
      text('Found it.'),
    );
    const { agent, scriptedFetch } = openScriptedAgent(script);
    const { result } = await collect(agent.send('Search'));
    expect(result).toMatchObject({ reason: 'completed', text: 'Found it.', requests: 2 });
    const second = withoutMarkers(scriptedFetch.requests()[1]!.body.messages);
    expect(second).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Search' }] },
      {
        role: 'assistant',
        content: [expect.objectContaining({ type: 'text', text: 'Searching…' })],
      },
    ]);
    await agent.close();
  });

  it('R7: pause_turn continues at most maxPauseContinuations times', async () => {
    const { agent, scriptedFetch } = openScriptedAgent(
      () => text('still going', { stopReason: 'pause_turn' }),
      {
        maxPauseContinuations: 5,
      },
    );
    const { result } = await collect(agent.send('Search'));
    expect(result).toMatchObject({ reason: 'max_turns', stopReason: 'pause_turn', requests: 6 });
    expect(scriptedFetch.requests()).toHaveLength(6);
    await agent.close();
  });

  it('R7: model_context_window_exceeded without compaction fails loudly; the next turn works', async () => {
    const script = stepsInOrder(
      text('', { stopReason: 'model_context_window_exceeded' }),
      text('Fresh start.'),
    );
    const { agent, scriptedFetch } = openScriptedAgent(script);
    const { result } = await collect(agent.send('A very long request'));
    expect(result.reason).toBe('failed');
    expect(result.error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED' });
    expect(result.error!.message).toMatch(
      /compaction is not configured: pass `compaction: \{ thresholdTokens \}`/,
    );
    const next = await collect(agent.send('Shorter'));
    expect(next.result.reason).toBe('completed');
    expect(withoutMarkers(scriptedFetch.requests()[1]!.body.messages)).toEqual([
      userTexts('A very long request', 'Shorter'),
    ]);
    await agent.close();
  });

  it('R3: an error mid-stream in the 2nd request of a turn that ran tools is retried; no tool runs twice', async () => {
    const echo = recordingTool('Echo');
    const script: Script = (request) => {
      if (request.index === 0) {
        return reply({ content: [toolUse('Echo', { tag: 'a' }), toolUse('Echo', { tag: 'b' })] });
      }
      if (request.index === 1) {
        return fault(
          'stream-error',
          { afterEvents: 4, errorType: 'overloaded_error' },
          text('half an answer'),
        );
      }
      return text('All done.');
    };
    const { agent, scriptedFetch } = openScriptedAgent(script, { tools: [echo] });
    const { events, result } = await collect(agent.send('go'));
    expect(result).toMatchObject({
      reason: 'completed',
      text: 'All done.',
      requests: 2,
      toolCalls: 2,
    });
    expect(echo.calls).toHaveLength(2);
    expect(eventsOf(events, 'tool_call_start')).toHaveLength(2);
    expect(eventsOf(events, 'retry')).toEqual([
      expect.objectContaining({ type: 'retry', attempt: 1 }),
    ]);
    expect(
      eventsOf(events, 'request_start').map((event) => [event.requestIndex, event.attempt]),
    ).toEqual([
      [0, 0],
      [1, 0],
      [1, 1],
    ]);
    expect(scriptedFetch.requests()).toHaveLength(3);
    expectValidConversations(scriptedFetch);
    await agent.close();
  });

  it('fails the turn on a final API error with its code, and stays usable', async () => {
    const script = stepsInOrder(
      fault('http-error', {
        status: 400,
        errorType: 'invalid_request_error',
        message: 'messages: bad',
      }),
      text('Recovered.'),
    );
    const { agent } = openScriptedAgent(script);
    const { result } = await collect(agent.send('go'));
    expect(result.reason).toBe('failed');
    expect(result.error!.code).toBe('MODEL_REQUEST_REFUSED');
    expect(result.error!.message).toMatch(/messages: bad/);
    expect((await collect(agent.send('again'))).result.reason).toBe('completed');
    await agent.close();
  });

  it('ends with max_turns after maxRequestsPerTurn requests', async () => {
    const { agent } = openScriptedAgent(() => toolUse('Echo', { tag: 'loop' }), {
      tools: [recordingTool('Echo')],
      maxRequestsPerTurn: 3,
    });
    const { result } = await collect(agent.send('loop'));
    expect(result).toMatchObject({ reason: 'max_turns', requests: 3, toolCalls: 3 });
    await agent.close();
  });
});
