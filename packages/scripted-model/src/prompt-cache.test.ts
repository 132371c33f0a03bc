import { describe, expect, it } from 'vitest';
import { canonicalPrompt } from './canonical-segments.js';
import { createPromptCache } from './prompt-cache.js';
import {
  TEST_MODEL,
  conversationBody,
  markLastBlock,
  stableSystem,
  stableTools,
  totalInput,
} from './prompt-cache-test-support.js';
import { ScriptedModelError } from './scripted-model-error.js';
import type { MessagesRequestBody } from './types.js';

function fakeClock(start = 1_700_000_000_000): {
  now: () => number;
  advance: (ms: number) => void;
} {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

function userTurn(turn: number): { role: string; content: unknown } {
  return { role: 'user', content: `Turn ${turn}: please continue with the next step of the task.` };
}

function assistantTurn(turn: number): { role: string; content: unknown } {
  return {
    role: 'assistant',
    content: [
      { type: 'text', text: `Working on step ${turn}.` },
      {
        type: 'tool_use',
        id: `toolu_${turn}`,
        name: 'Read',
        input: { file_path: `/repo/file-${turn}.ts` },
      },
    ],
  };
}

describe('createPromptCache: a growing conversation', () => {
  it('keeps one tools+system hash over 20 turns and reads at least 80% from cache from turn 3', () => {
    const cache = createPromptCache({ clock: fakeClock().now });
    const messages: unknown[] = [];
    const hashes = new Set<string>();
    const shares: number[] = [];
    for (let turn = 1; turn <= 20; turn += 1) {
      if (turn > 1) messages.push(assistantTurn(turn - 1));
      messages.push(userTurn(turn));
      const account = cache.account(conversationBody(markLastBlock(messages)));
      account.publish();
      hashes.add(account.toolsSystemHash);
      const total = totalInput(account.usage);
      shares.push(account.usage.cache_read_input_tokens / total);
      expect(total).toBe(canonicalPrompt(conversationBody(messages)).totalTokens);
      expect(account.breakpoints).toHaveLength(1);
      // Everything up to the breakpoint on the last block is cached: no uncached remainder.
      expect(account.usage.input_tokens).toBe(0);
    }
    expect(hashes.size).toBe(1);
    expect(shares[0]).toBe(0);
    for (const share of shares.slice(2)) expect(share).toBeGreaterThanOrEqual(0.8);
  });

  it('misses the previous entry when a turn appends more than 20 blocks (look-back limit)', () => {
    const cache = createPromptCache({ clock: fakeClock().now });
    const first = [userTurn(1)];
    cache.account(conversationBody(markLastBlock(first))).publish();
    const toolPairs = Array.from({ length: 11 }, (_, index) => [
      assistantTurn(index + 2),
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${index + 2}`, content: 'ok' }],
      },
    ]).flat();
    // 11 pairs = 33 new blocks after the stored breakpoint: beyond the 20-block look-back.
    const far = cache.account(conversationBody(markLastBlock([...first, ...toolPairs])));
    expect(far.usage.cache_read_input_tokens).toBe(0);
    // Three pairs = 9 new blocks: within reach.
    const near = cache.account(
      conversationBody(markLastBlock([...first, ...toolPairs.slice(0, 6)])),
    );
    expect(near.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });
});

describe('createPromptCache: visibility', () => {
  const shared = [{ role: 'user', content: 'Shared parent context. '.repeat(20) }];
  const child = (name: string): MessagesRequestBody =>
    conversationBody([
      ...markLastBlock(shared),
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: `Directive for ${name}.` },
    ]);

  it('three requests accounted before any publish read nothing from each other', () => {
    const cache = createPromptCache({ clock: fakeClock().now });
    const accounts = ['a', 'b', 'c'].map((name) => cache.account(child(name)));
    for (const account of accounts) {
      expect(account.usage.cache_read_input_tokens).toBe(0);
      expect(account.usage.cache_creation_input_tokens).toBeGreaterThan(1024);
    }
    for (const account of accounts) account.publish();
    expect(new Set(accounts.map((account) => account.breakpoints[0]!.hash)).size).toBe(1);
  });

  it('requests accounted after the first one publishes read its prefix', () => {
    const cache = createPromptCache({ clock: fakeClock().now });
    const first = cache.account(child('a'));
    const beforePublish = cache.account(child('b'));
    expect(beforePublish.usage.cache_read_input_tokens).toBe(0);
    first.publish();
    const second = cache.account(child('b'));
    const third = cache.account(child('c'));
    for (const account of [second, third]) {
      expect(account.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
      expect(account.usage.cache_creation_input_tokens).toBe(0);
      expect(account.usage.input_tokens).toBeGreaterThan(0);
    }
  });

  it('an account never published writes nothing (a request that failed before message_start)', () => {
    const cache = createPromptCache({ clock: fakeClock().now });
    cache.account(child('a'));
    expect(cache.account(child('b')).usage.cache_read_input_tokens).toBe(0);
  });
});

describe('createPromptCache: TTL', () => {
  const body = (ttl?: '5m' | '1h'): MessagesRequestBody =>
    conversationBody(markLastBlock([userTurn(1)], ttl));

  it('a 5m entry expires after five minutes unless read', () => {
    const clock = fakeClock();
    const cache = createPromptCache({ clock: clock.now });
    cache.account(body()).publish();
    clock.advance(5 * 60_000 - 1);
    expect(cache.account(body()).usage.cache_read_input_tokens).toBeGreaterThan(0);
    // That read refreshed the entry: 4 more minutes later it is still there.
    clock.advance(4 * 60_000);
    expect(cache.account(body()).usage.cache_read_input_tokens).toBeGreaterThan(0);
    clock.advance(5 * 60_000);
    const expired = cache.account(body());
    expect(expired.usage.cache_read_input_tokens).toBe(0);
    expect(expired.usage.cache_creation.ephemeral_5m_input_tokens).toBe(
      expired.usage.cache_creation_input_tokens,
    );
  });

  it('a 1h entry outlives five minutes and is charged as a 1h write', () => {
    const clock = fakeClock();
    const cache = createPromptCache({ clock: clock.now });
    const write = cache.account(body('1h'));
    write.publish();
    expect(write.usage.cache_creation.ephemeral_1h_input_tokens).toBe(
      write.usage.cache_creation_input_tokens,
    );
    expect(write.usage.cache_creation.ephemeral_5m_input_tokens).toBe(0);
    expect(write.breakpoints[0]!.ttl).toBe('1h');
    clock.advance(59 * 60_000);
    expect(cache.account(body('1h')).usage.cache_read_input_tokens).toBeGreaterThan(0);
    clock.advance(61 * 60_000);
    expect(cache.account(body('1h')).usage.cache_read_input_tokens).toBe(0);
  });

  it('splits writes by TTL when a 1h breakpoint precedes a 5m one', () => {
    const cache = createPromptCache({ clock: fakeClock().now });
    const system = stableSystem() as Record<string, unknown>[];
    system[1]!.cache_control = { type: 'ephemeral', ttl: '1h' };
    const account = cache.account({ ...conversationBody(markLastBlock([userTurn(1)])), system });
    const { cache_creation: split } = account.usage;
    expect(split.ephemeral_1h_input_tokens).toBe(account.breakpoints[0]!.tokens);
    expect(split.ephemeral_5m_input_tokens).toBe(
      account.breakpoints[1]!.tokens - account.breakpoints[0]!.tokens,
    );
  });
});

describe('createPromptCache: minimum length and model scoping', () => {
  const small: MessagesRequestBody = {
    model: TEST_MODEL,
    max_tokens: 100,
    system: [{ type: 'text', text: 'short', cache_control: { type: 'ephemeral' } }],
    messages: [{ role: 'user', content: 'hello' }],
  };

  it('does not cache a prefix shorter than the minimum: all of it is input_tokens', () => {
    const cache = createPromptCache({ clock: fakeClock().now });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const account = cache.account(small);
      account.publish();
      expect(account.usage.cache_creation_input_tokens).toBe(0);
      expect(account.usage.cache_read_input_tokens).toBe(0);
      expect(account.usage.input_tokens).toBe(canonicalPrompt(small).totalTokens);
    }
  });

  it('takes a per-model minimum', () => {
    const cache = createPromptCache({
      clock: fakeClock().now,
      minimumTokens: (model) => (model === 'tiny' ? 1 : 4096),
    });
    const tiny = cache.account({ ...small, model: 'tiny' });
    tiny.publish();
    expect(tiny.usage.cache_creation_input_tokens).toBe(tiny.breakpoints[0]!.tokens);
    expect(cache.account({ ...small, model: 'tiny' }).usage.cache_read_input_tokens).toBe(
      tiny.breakpoints[0]!.tokens,
    );
    const large = cache.account(conversationBody(markLastBlock([userTurn(1)])));
    expect(large.usage.cache_creation_input_tokens).toBe(0);
    expect(() => createPromptCache({ minimumTokens: -1 })).toThrow(/non-negative integer/);
  });

  it('scopes entries per model: the same prefix on another model reads nothing', () => {
    const cache = createPromptCache({ clock: fakeClock().now });
    const messages = markLastBlock([userTurn(1)]);
    cache.account(conversationBody(messages, 'model-a')).publish();
    const other = cache.account(conversationBody(messages, 'model-b'));
    expect(other.usage.cache_read_input_tokens).toBe(0);
    expect(other.breakpoints[0]!.hash).toBe(
      cache.account(conversationBody(messages, 'model-a')).breakpoints[0]!.hash,
    );
    expect(
      cache.account(conversationBody(messages, 'model-a')).usage.cache_read_input_tokens,
    ).toBeGreaterThan(0);
  });
});

describe('createPromptCache: breakpoints', () => {
  const withMarkers = (count: number): MessagesRequestBody => {
    const tools = stableTools() as Record<string, unknown>[];
    const system = stableSystem() as Record<string, unknown>[];
    const marked = [...tools, ...system].slice(0, count);
    for (const block of marked) block.cache_control = { type: 'ephemeral' };
    return {
      model: TEST_MODEL,
      max_tokens: 10,
      tools,
      system,
      messages: markLastBlock([userTurn(1)]),
    };
  };

  it('accepts 4 breakpoints and refuses 5 with a 400 invalid_request_error naming them', () => {
    const cache = createPromptCache();
    expect(cache.account(withMarkers(3)).breakpoints).toHaveLength(4);
    let caught: unknown;
    try {
      cache.account(withMarkers(4));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ScriptedModelError);
    const error = caught as ScriptedModelError;
    expect(error.status).toBe(400);
    expect(error.errorType).toBe('invalid_request_error');
    expect(error.message).toMatch(
      /maximum of 4 blocks with cache_control.*Found 5.*tools\[0\].*messages\[0\]\.content\[0\]/,
    );
  });

  it('counts a top-level cache_control (automatic caching) as one of the 4 slots', () => {
    const cache = createPromptCache();
    const automatic = {
      ...withMarkers(3),
      messages: [userTurn(1)],
      cache_control: { type: 'ephemeral' },
    };
    expect(cache.account(automatic).breakpoints).toHaveLength(4);
    expect(() =>
      cache.account({ ...withMarkers(3), cache_control: { type: 'ephemeral', ttl: '1h' } }),
    ).toThrow(/already carries cache_control with ttl 5m/);
    expect(() =>
      cache.account({
        ...withMarkers(4),
        messages: [userTurn(1)],
        cache_control: { type: 'ephemeral' },
      }),
    ).toThrow(/Found 5/);
  });

  it('refuses a malformed marker and a 1h breakpoint after a 5m one', () => {
    const cache = createPromptCache();
    const bad = {
      ...withMarkers(0),
      system: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '10m' } }],
    };
    expect(() => cache.account(bad)).toThrow(
      /system\[0\]\.cache_control\.ttl: expected "5m" or "1h"/,
    );
    const order = withMarkers(1);
    order.messages = markLastBlock([userTurn(1)], '1h');
    expect(() => cache.account(order)).toThrow(
      /ttl "1h" breakpoint \(messages\[0\]\.content\[0\]\) must not come after/,
    );
  });

  it('ignores cache_control placement: moving the marker keeps every segment hash, and a later breakpoint reads the earlier entry', () => {
    const messages = [userTurn(1), assistantTurn(1), userTurn(2)];
    const early = structuredClone(messages) as { content: unknown }[];
    early[0]!.content = [
      { type: 'text', text: userTurn(1).content, cache_control: { type: 'ephemeral' } },
    ];
    const late = markLastBlock([
      ...messages.slice(0, 2),
      { role: 'user', content: [{ type: 'text', text: userTurn(2).content }] },
    ]);
    const unmarked = [
      ...messages.slice(0, 2),
      { role: 'user', content: [{ type: 'text', text: userTurn(2).content }] },
    ];
    const earlyHashes = canonicalPrompt(conversationBody(early)).segments.map(
      (segment) => segment.prefixHash,
    );
    const lateHashes = canonicalPrompt(conversationBody(late)).segments.map(
      (segment) => segment.prefixHash,
    );
    expect(lateHashes).toEqual(earlyHashes);
    expect(
      canonicalPrompt(conversationBody(unmarked)).segments.map((segment) => segment.prefixHash),
    ).toEqual(earlyHashes);

    const cache = createPromptCache({ clock: fakeClock().now });
    const first = cache.account(conversationBody(early));
    first.publish();
    const second = cache.account(conversationBody(late));
    expect(second.usage.cache_read_input_tokens).toBe(first.breakpoints[0]!.tokens);
    expect(second.usage.cache_creation_input_tokens).toBe(
      second.breakpoints[0]!.tokens - first.breakpoints[0]!.tokens,
    );
  });

  it('counts everything after the last breakpoint as input_tokens', () => {
    const cache = createPromptCache();
    const system = stableSystem() as Record<string, unknown>[];
    system[1]!.cache_control = { type: 'ephemeral' };
    const body: MessagesRequestBody = {
      ...conversationBody([userTurn(1), assistantTurn(1), userTurn(2)]),
      system,
    };
    const account = cache.account(body);
    const total = canonicalPrompt(body).totalTokens;
    expect(account.usage.cache_creation_input_tokens).toBe(account.breakpoints[0]!.tokens);
    expect(account.usage.input_tokens).toBe(total - account.breakpoints[0]!.tokens);
  });

  it('refuses a body without a model with a 400 naming the field', () => {
    const cache = createPromptCache();
    expect(() =>
      cache.account({ max_tokens: 1, messages: [] } as unknown as MessagesRequestBody),
    ).toThrow(/model: expected a non-empty string/);
  });
});
