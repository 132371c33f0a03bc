import { describe, expect, it } from 'vitest';
import { createScriptContext } from './script-context.js';
import { fault, reply, sequence, text, thinking, toolUse } from './script-helpers.js';
import type { Fault, ScriptRequest } from './types.js';

function request(index: number, firstUserText: string, tools: string[] = ['Bash']): ScriptRequest {
  return {
    index,
    path: '/v1/messages',
    headers: {},
    receivedAt: 0,
    body: {
      model: 'claude-opus-4-6',
      max_tokens: 1024,
      tools: tools.map((name) => ({ name, input_schema: { type: 'object' } })),
      messages: [{ role: 'user', content: firstUserText }],
    },
  };
}

describe('one-line replies', () => {
  it('text, toolUse and thinking build one block each', () => {
    expect(text('Done.')).toEqual({ content: [{ type: 'text', text: 'Done.' }] });
    expect(toolUse('Read', { file_path: '/a' })).toEqual({
      content: [{ type: 'tool_use', name: 'Read', input: { file_path: '/a' } }],
    });
    expect(toolUse('Read', { file_path: '/a' }, 'toolu_1')).toEqual({
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/a' } }],
    });
    expect(thinking('hmm', 'sig')).toEqual({
      content: [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }],
    });
    expect(text('x', { stopReason: 'refusal' }).stopReason).toBe('refusal');
  });

  it('reply merges strings, blocks and replies in order and keeps options', () => {
    const built = reply({
      content: [
        thinking('plan'),
        'Let me look.',
        toolUse('Read', { file_path: '/a' }),
        toolUse('Read', { file_path: '/b' }),
      ],
      stopReason: 'tool_use',
      outputTokens: 12,
      stream: { chunkBytes: { min: 1, max: 3 } },
    });
    expect(built.content.map((block) => block.type)).toEqual([
      'thinking',
      'text',
      'tool_use',
      'tool_use',
    ]);
    expect(built).toMatchObject({
      stopReason: 'tool_use',
      outputTokens: 12,
      stream: { chunkBytes: { min: 1, max: 3 } },
    });
  });

  it('refuses bad blocks and options with a message naming the field', () => {
    expect(() => toolUse('bad name', {})).toThrow(/content\[0\]\.name must be a tool name/);
    expect(() => toolUse('Read', [] as unknown as Record<string, unknown>)).toThrow(
      /input of tool_use "Read" must be a JSON object/,
    );
    expect(() => toolUse('Read', {}, 'bad id!')).toThrow(/\.id must match/);
    expect(() => reply({ content: [{ type: 'image' } as never] })).toThrow(
      /content\[0\]\.type must be text, tool_use or thinking/,
    );
    expect(() => reply({ stopReason: 'done' as never })).toThrow(/stopReason "done" is not one of/);
    expect(() => reply({ outputTokens: -1 })).toThrow(/outputTokens/);
    expect(() => reply(null as never)).toThrow(/expected an object/);
  });
});

describe('fault()', () => {
  it('builds every fault kind, on an empty text or on a given reply', () => {
    const faults: Fault[] = [
      fault('http-error', {
        status: 529,
        errorType: 'overloaded_error',
        retryAfterSeconds: 1,
        shouldRetry: true,
      }).fault!,
      fault('stream-error', { afterEvents: 3, errorType: 'api_error' }).fault!,
      fault('socket-reset', { afterEvents: 2 }).fault!,
      fault('silence-after-headers').fault!,
      fault('pings-only', { durationMs: 100, intervalMs: 10 }).fault!,
      fault('omit-message-start').fault!,
      fault('omit-message-stop').fault!,
      fault('max-tokens-in-tool-use', { keepInputBytes: 5 }).fault!,
    ];
    expect(faults.map((item) => item.kind)).toEqual([
      'http-error',
      'stream-error',
      'socket-reset',
      'silence-after-headers',
      'pings-only',
      'omit-message-start',
      'omit-message-stop',
      'max-tokens-in-tool-use',
    ]);
    expect(fault('omit-message-stop').content).toEqual([{ type: 'text', text: '' }]);
    const onTool = fault(
      'max-tokens-in-tool-use',
      { keepInputBytes: 4 },
      toolUse('Write', { file_path: '/a', content: 'long' }),
    );
    expect(onTool.content[0]).toMatchObject({ type: 'tool_use', name: 'Write' });
    expect(onTool.fault).toEqual({ kind: 'max-tokens-in-tool-use', keepInputBytes: 4 });
  });

  it('refuses bad fault options with a clear message', () => {
    expect(() => fault('http-error', { status: 200, errorType: 'x' })).toThrow(
      /fault\("http-error"\): status must be an HTTP error status/,
    );
    expect(() => fault('stream-error', { afterEvents: 1, errorType: 'Not A Type' })).toThrow(
      /errorType must be an Anthropic error type/,
    );
    expect(() => fault('socket-reset', { afterEvents: -1 })).toThrow(
      /afterEvents must be a whole number/,
    );
    expect(() => fault('pings-only', { durationMs: 10, intervalMs: 0 })).toThrow(/intervalMs/);
    expect(() => fault('nope' as never, {} as never)).toThrow(/unknown fault kind/);
    expect(() => reply({ fault: { kind: 'socket-reset' } as never })).toThrow(/afterEvents/);
  });
});

describe('sequence()', () => {
  it('gives the nth call of each agent its nth reply, counted per run', async () => {
    const script = sequence([text('one'), (incoming) => text(`two for #${incoming.index}`)]);
    const context = createScriptContext();
    const alice = (index: number) =>
      request(
        index,
        '<teammate-message teammate_id="team-lead">\nYou are alice.\n</teammate-message>',
      );
    const bob = (index: number) =>
      request(
        index,
        '<teammate-message teammate_id="team-lead">\nYou are bob.\n</teammate-message>',
      );
    expect(await script(alice(0), context)).toEqual(text('one'));
    expect(await script(bob(1), context)).toEqual(text('one'));
    expect(await script(alice(2), context)).toEqual(text('two for #2'));
    const otherRun = createScriptContext();
    expect(await script(alice(0), otherRun)).toEqual(text('one'));
  });

  it('throws a clear error when an agent runs past the end', async () => {
    const script = sequence([text('only')], { name: 'greeting' });
    const context = createScriptContext();
    const lead = request(0, 'Build it', ['Task', 'TeamCreate']);
    await script(lead, context);
    expect(() => script({ ...lead, index: 1 }, context)).toThrow(
      'greeting is exhausted: "team-lead" made call 2 but the sequence has only 1 reply (request #1)',
    );
  });

  it('groups by a custom key and refuses an empty or bad list', async () => {
    const script = sequence([text('a'), text('b')], { keyOf: () => 'all' });
    const context = createScriptContext();
    expect((await script(request(0, 'x'), context)).content).toEqual([{ type: 'text', text: 'a' }]);
    expect((await script(request(1, 'y'), context)).content).toEqual([{ type: 'text', text: 'b' }]);
    expect(() => sequence([])).toThrow(/non-empty array/);
    expect(() => sequence([42 as never])).toThrow(/step 0 must be a Reply/);
  });
});
