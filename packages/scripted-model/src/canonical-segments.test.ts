import { describe, expect, it } from 'vitest';
import { ROOT_PREFIX_HASH, canonicalPrompt, estimateTokens } from './canonical-segments.js';
import { ScriptedModelError } from './scripted-model-error.js';
import type { MessagesRequestBody } from './types.js';

const body = (overrides: Partial<MessagesRequestBody> = {}): MessagesRequestBody => ({
  model: 'claude-sonnet-4-6',
  max_tokens: 100,
  tools: [{ name: 'Read', input_schema: { type: 'object', properties: {} } }],
  system: 'You are a test.',
  messages: [{ role: 'user', content: 'hello' }],
  ...overrides,
});

describe('estimateTokens', () => {
  it('charges ⌈UTF-8 bytes / 4⌉', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    // "é" is 2 bytes and "😀" is 4 in UTF-8: 2 + 4 = 6 bytes -> 2 tokens (UTF-16 length is 3).
    expect(estimateTokens('é😀')).toBe(2);
  });
});

describe('canonicalPrompt', () => {
  it('renders tools, then system, then message blocks, each as JSON without cache_control', () => {
    const prompt = canonicalPrompt(
      body({
        system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        messages: [
          {
            role: 'user',
            content: [{ type: 'text', cache_control: { type: 'ephemeral' }, text: 'hi' }],
          },
        ],
      }),
    );
    expect(
      prompt.segments.map((segment) => [segment.section, segment.location, segment.text]),
    ).toEqual([
      ['tools', 'tools[0]', '{"name":"Read","input_schema":{"type":"object","properties":{}}}'],
      ['system', 'system[0]', '{"type":"text","text":"sys"}'],
      ['messages', 'messages[0].content[0]', '{"type":"text","text":"hi"}'],
    ]);
    expect(prompt.segments.map((segment) => segment.marker)).toEqual([
      undefined,
      { ttl: '1h' },
      { ttl: '5m' },
    ]);
    expect(prompt.totalTokens).toBe(
      prompt.segments.reduce((sum, segment) => sum + segment.tokens, 0),
    );
    expect(prompt.segments[2]!.prefixTokens).toBe(prompt.totalTokens);
  });

  it('treats a string system and string content as one text block', () => {
    const asStrings = canonicalPrompt(body());
    const asBlocks = canonicalPrompt(
      body({
        system: [{ type: 'text', text: 'You are a test.' }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
      }),
    );
    expect(asStrings.segments.map((segment) => segment.prefixHash)).toEqual(
      asBlocks.segments.map((segment) => segment.prefixHash),
    );
  });

  it('keeps received key order: the same fields in another order are another prefix', () => {
    const reordered = canonicalPrompt(
      body({ tools: [{ input_schema: { type: 'object', properties: {} }, name: 'Read' }] }),
    );
    expect(reordered.segments[0]!.prefixHash).not.toBe(
      canonicalPrompt(body()).segments[0]!.prefixHash,
    );
    expect(reordered.toolsSystemHash).not.toBe(canonicalPrompt(body()).toolsSystemHash);
  });

  it('keeps toolsSystemHash when messages, tool_choice or thinking change, and changes the message hashes', () => {
    const base = canonicalPrompt(body());
    for (const changed of [
      body({ messages: [{ role: 'user', content: 'bye' }] }),
      body({ tool_choice: { type: 'any' } }),
      body({ thinking: { type: 'enabled', budget_tokens: 2000 } }),
      body({ messages: [{ role: 'assistant', content: 'hello' }] }),
    ]) {
      const prompt = canonicalPrompt(changed);
      expect(prompt.toolsSystemHash).toBe(base.toolsSystemHash);
      expect(prompt.segments[1]!.prefixHash).toBe(base.segments[1]!.prefixHash);
      expect(prompt.segments[2]!.prefixHash).not.toBe(base.segments[2]!.prefixHash);
    }
    expect(canonicalPrompt(body({ system: 'Another.' })).toolsSystemHash).not.toBe(
      base.toolsSystemHash,
    );
  });

  it('tells a message boundary from two blocks of one message', () => {
    const split = canonicalPrompt(
      body({
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      }),
    );
    const joined = canonicalPrompt(
      body({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
          },
        ],
      }),
    );
    expect(split.segments[3]!.prefixHash).not.toBe(joined.segments[3]!.prefixHash);
  });

  it('hashes an empty tools+system as the root hash', () => {
    expect(canonicalPrompt({ model: 'm', max_tokens: 1, messages: [] }).toolsSystemHash).toBe(
      ROOT_PREFIX_HASH,
    );
  });

  it('refuses malformed parts with a 400 naming the field', () => {
    const cases: [Partial<MessagesRequestBody>, RegExp][] = [
      [{ tools: {} as unknown[] }, /^tools: expected an array/],
      [{ system: 5 as unknown as string }, /^system: expected a string or an array/],
      [
        { messages: [{ role: 'user', content: 3 }] },
        /^messages\[0\]\.content: expected a string or an array/,
      ],
      [{ messages: [{ content: 'x' }] }, /^messages\[0\]\.role: expected a string/],
      [
        { messages: [{ role: 'user', content: ['x'] }] },
        /^messages\[0\]\.content\[0\]: expected an object, got string/,
      ],
      [
        { tools: [{ name: 'x', cache_control: { type: 'persistent' } }] },
        /^tools\[0\]\.cache_control: expected/,
      ],
    ];
    for (const [overrides, pattern] of cases) {
      let caught: unknown;
      try {
        canonicalPrompt(body(overrides));
      } catch (error) {
        caught = error;
      }
      expect(caught, String(pattern)).toBeInstanceOf(ScriptedModelError);
      expect((caught as ScriptedModelError).status).toBe(400);
      expect((caught as ScriptedModelError).message).toMatch(pattern);
    }
  });
});
