// Compaction against the scripted model (a TEST DOUBLE of the Messages API) through the real SDK.
import type Anthropic from '@anthropic-ai/sdk';
import {
  createPromptCache,
  createRequestLog,
  createScriptedFetch,
  fault,
  text,
  toolUse,
  type Script,
} from '@muster/scripted-model';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ConversationMessage } from './agent-types.js';
import type { ModelClient } from './model-types.js';
import {
  COMPACTION_INSTRUCTION,
  compactConversation,
  type CompactionInput,
  type CompactionResult,
  estimateTokens,
  MAX_COMPACTION_REQUESTS,
  NOT_RUN_BEFORE_COMPACTION,
} from './compaction.js';
import { createModelClient } from './model-client.js';
import { buildRequest } from './request-builder.js';
import { renderSystem, renderTools } from './request-builder-render.js';

const system = renderSystem(
  `You are a careful engineer. ${'Follow the house rules. '.repeat(300)}`,
);
const tools = renderTools([
  {
    name: 'Read',
    description: 'Reads a file.',
    inputSchema: z.strictObject({ file_path: z.string() }),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    call: async () => ({ content: '' }),
  },
]);
const preservedContext = [
  'You are alice (id alice@payments), a teammate in team "payments"; your lead is team-lead.',
  'Your current task is #3 "Add refunds to the ledger".',
].join('\n');

function open(script: Script, withCache = false) {
  const log = createRequestLog();
  const scriptedFetch = createScriptedFetch({
    script,
    log,
    ...(withCache ? { cache: createPromptCache() } : {}),
  });
  const client = createModelClient({
    apiKey: 'test',
    baseURL: 'http://scripted-model.invalid',
    fetch: scriptedFetch,
    retryBaseMs: 1,
  });
  return { client, scriptedFetch, log };
}

/** A conversation of `exchanges` Read round trips, numbered from `first`. */
function conversation(exchanges: number, first = 0): ConversationMessage[] {
  const messages: ConversationMessage[] = [{ role: 'user', content: 'Add refunds to the ledger.' }];
  for (let index = first; index < first + exchanges; index += 1) {
    const id = `toolu_${index}`;
    messages.push({
      role: 'assistant',
      content: [
        { type: 'tool_use', id, name: 'Read', input: { file_path: `/repo/file-${index}.ts` } },
      ],
    });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: id, content: `contents ${'x'.repeat(400)} ${index}` },
      ],
    });
  }
  return messages;
}

function textOf(message: ConversationMessage): string {
  return typeof message.content === 'string'
    ? message.content
    : message.content
        .map((block) => (block.type === 'text' ? block.text : `[${block.type}]`))
        .join('\n');
}

const signal = new AbortController().signal;

/** `compactConversation` with this file's system prompt and tools, model "m" and 500 tokens. */
function compact(
  client: ModelClient,
  messages: readonly ConversationMessage[],
  extra: Partial<CompactionInput> = {},
): Promise<CompactionResult> {
  return compactConversation({
    client,
    model: 'm',
    system,
    tools,
    messages,
    signal,
    maxTokens: 500,
    ...extra,
  });
}

/** The `file-<n>` names in a text, sorted, each once. */
function filesIn(value: string): string[] {
  return [...new Set(value.match(/file-\d+/g) ?? [])].sort();
}

/**
 * A model whose context holds `limit` characters of messages: a longer request is refused as
 * "prompt is too long", a shorter one is answered with the files it names (its own and those of
 * an earlier summary it carries), so a summary covers exactly what its request showed.
 */
function summariser(limit: number): Script {
  return (request) => {
    const shown = JSON.stringify(request.body.messages);
    if (shown.length > limit) {
      return fault('http-error', {
        status: 400,
        errorType: 'invalid_request_error',
        message: `prompt is too long: ${shown.length} characters > ${limit} maximum`,
      });
    }
    return text(`Read ${filesIn(shown).join(', ') || 'nothing'}.`);
  };
}

/** The ids of tool calls in `messages` that no later tool_result answers. */
function unansweredCalls(messages: readonly Anthropic.MessageParam[]): string[] {
  const blocks = messages.flatMap((message) =>
    typeof message.content === 'string' ? [] : message.content,
  );
  const answered = new Set(
    blocks.flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : [])),
  );
  return blocks.flatMap((block) =>
    block.type === 'tool_use' && !answered.has(block.id) ? [block.id] : [],
  );
}

describe('compactConversation', () => {
  it('replaces the conversation with one user message: the preserved context word for word, then the summary', async () => {
    const { client, scriptedFetch, log } = open(() =>
      text('Task #3: refunds. Read file-0..5. Next: write the ledger entry.'),
    );
    const messages = conversation(6);
    const before = JSON.stringify(messages);
    const result = await compactConversation({
      client,
      model: 'claude-test',
      system,
      tools,
      messages,
      preservedContext,
      signal,
      maxTokens: 2000,
    });
    expect(JSON.stringify(messages)).toBe(before);
    expect(result.messages).toHaveLength(1);
    expect(result.messages[0]!.role).toBe('user');
    const [preserved, summary] = result.messages[0]!.content as Anthropic.TextBlockParam[];
    expect(preserved!.text).toBe(`<preserved-context>\n${preservedContext}\n</preserved-context>`);
    expect(summary!.text).toContain(
      'Task #3: refunds. Read file-0..5. Next: write the ledger entry.',
    );
    expect(JSON.stringify(result.messages)).not.toMatch(/tool_use|tool_result/);
    expect(result.summary).toBe('Task #3: refunds. Read file-0..5. Next: write the ledger entry.');
    expect(result.tokensBefore).toBe(estimateTokens({ system, tools, messages }));
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    expect(result.usage.output_tokens).toBeGreaterThan(0);

    // The summary request: same tools and system as the agent's requests, the conversation whole,
    // the instruction after the last tool result of the last user message.
    const [request] = scriptedFetch.requests();
    const body = request!.body as unknown as Anthropic.MessageCreateParams;
    expect(body.messages).toHaveLength(messages.length);
    const last = body.messages.at(-1)!.content as Anthropic.ContentBlockParam[];
    expect(last.map((block) => block.type)).toEqual(['tool_result', 'text']);
    expect((last[1] as Anthropic.TextBlockParam).text).toBe(COMPACTION_INSTRUCTION);
    const normal = buildRequest({ model: 'claude-test', maxTokens: 10, system, tools, messages });
    const hashes = createRequestLog();
    await createModelClient({
      apiKey: 'test',
      baseURL: 'http://scripted-model.invalid',
      fetch: createScriptedFetch({ script: () => text('ok'), log: hashes }),
    }).stream(normal.params, { signal });
    expect(log.records()[0]!.toolsSystemHash).toBe(hashes.records()[0]!.toolsSystemHash);
  });

  it('answers a trailing tool call with a "not run" result in the summary request only', async () => {
    const { client, scriptedFetch } = open(() => text('Summary.'));
    const messages: ConversationMessage[] = [
      ...conversation(1),
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading two more.' },
          { type: 'tool_use', id: 'toolu_a', name: 'Read', input: { file_path: '/a' } },
          { type: 'tool_use', id: 'toolu_b', name: 'Read', input: { file_path: '/b' } },
        ],
      },
    ];
    const result = await compact(client, messages);
    const body = scriptedFetch.requests()[0]!.body as unknown as Anthropic.MessageCreateParams;
    expect(body.messages.at(-1)).toMatchObject({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_a',
          is_error: true,
          content: NOT_RUN_BEFORE_COMPACTION,
        },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_b',
          is_error: true,
          content: NOT_RUN_BEFORE_COMPACTION,
        },
        { type: 'text', text: COMPACTION_INSTRUCTION },
      ],
    });
    // No preserved context: just the summary, and nothing of the pending calls.
    expect(result.messages).toHaveLength(1);
    expect(textOf(result.messages[0]!)).toContain('<summary>\nSummary.\n</summary>');
    expect(JSON.stringify(result.messages)).not.toContain('toolu_');
  });

  it('reads the cached conversation: the summary request pays only for what follows the last breakpoint', async () => {
    const { client, log } = open(
      (request) => (request.index === 0 ? text('Working.') : text('Summary.')),
      true,
    );
    const messages = conversation(4);
    const first = buildRequest({ model: 'm', maxTokens: 100, system, tools, messages });
    await client.stream(first.params, { signal });
    await compact(client, messages, { previousBreakpoints: first.breakpoints });
    const [, summaryRequest] = log.records();
    const usage = summaryRequest!.usage;
    const prompt =
      usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
    expect(usage.cache_read_input_tokens).toBe(log.records()[0]!.usage.cache_creation_input_tokens);
    expect(usage.cache_read_input_tokens / prompt).toBeGreaterThan(0.9);
  });

  it('fails with COMPACTION_FAILED when the model answers without text, and passes the client errors on', async () => {
    const { client } = open(() => toolUse('Read', { file_path: '/x' }));
    await expect(compact(client, conversation(1))).rejects.toMatchObject({
      code: 'COMPACTION_FAILED',
      message: expect.stringMatching(/answered with tool_use/),
    });
    const refused = open(() =>
      fault('http-error', { status: 401, errorType: 'authentication_error' }),
    );
    await expect(compact(refused.client, conversation(1))).rejects.toMatchObject({
      code: 'MODEL_REQUEST_REFUSED',
    });
  });

  it('summarises a conversation too long for one request part by part, older first, losing nothing', async () => {
    const limit = 2_500;
    const { client, scriptedFetch } = open(summariser(limit));
    const messages = [
      ...conversation(6),
      { role: 'assistant' as const, content: 'Done with the first part.' },
      { role: 'user' as const, content: 'Now the second part.' },
      ...conversation(6, 10).slice(1),
    ];
    expect(JSON.stringify(messages).length).toBeGreaterThan(3 * limit);
    const result = await compact(client, messages);
    // Every file of the conversation is in the final summary: the older part was not dropped.
    const files = [0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15].map((index) => `file-${index}`);
    expect(filesIn(result.summary)).toEqual(files.sort());
    const bodies = scriptedFetch
      .requests()
      .map((request) => request.body as unknown as Anthropic.MessageCreateParams);
    const answered = bodies.filter((body) => JSON.stringify(body.messages).length <= limit);
    expect(result.requests).toBe(answered.length);
    expect(answered.length).toBeGreaterThan(2);
    // Older first: the first answered request holds the first message; each later one starts
    // with the summary so far, and no request parts a call from its result.
    expect(answered[0]!.messages[0]).toEqual({
      role: 'user',
      content: 'Add refunds to the ledger.',
    });
    for (const body of answered.slice(1)) {
      expect(JSON.stringify(body.messages[0])).toContain('<earlier-summary>');
    }
    for (const body of bodies) expect(unansweredCalls(body.messages)).toEqual([]);
    expect(result.usage.output_tokens).toBeGreaterThan(answered.length);
    expect(textOf(result.messages[0]!)).toContain(result.summary);
  });

  it('fails with COMPACTION_FAILED naming the messages when a part that cannot be cut is too long', async () => {
    const { client, scriptedFetch } = open(summariser(2_000));
    const messages: ConversationMessage[] = [
      { role: 'user', content: 'Read the big file.' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_big', name: 'Read', input: { file_path: '/b' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_big', content: 'y'.repeat(5_000) }],
      },
    ];
    const failure = compact(client, messages);
    await expect(failure).rejects.toMatchObject({
      code: 'COMPACTION_FAILED',
      message: expect.stringMatching(
        /messages 2 to 3 are too long .*cannot be cut further without parting a tool call from its result.*left as it was/,
      ),
      details: { from: 2, to: 3, messages: 3 },
    });
    // The whole, then the first message alone (answered), then the rest with its summary.
    expect(scriptedFetch.requests()).toHaveLength(3);
  });

  it(`stops after ${MAX_COMPACTION_REQUESTS} summary requests with COMPACTION_FAILED`, async () => {
    const { client, scriptedFetch } = open(summariser(1_800));
    await expect(compact(client, conversation(30))).rejects.toMatchObject({
      code: 'COMPACTION_FAILED',
      message: expect.stringContaining(`in ${MAX_COMPACTION_REQUESTS} summary requests`),
    });
    expect(scriptedFetch.requests()).toHaveLength(MAX_COMPACTION_REQUESTS);
  });

  it('refuses bad input', async () => {
    const { client } = open(() => text('x'));
    await expect(
      compactConversation({
        client,
        model: 'm',
        system,
        tools,
        messages: [],
        signal,
        maxTokens: 10,
      }),
    ).rejects.toThrow(/messages must be the non-empty conversation/);
    expect(() => estimateTokens(null as never)).toThrow(/give the messages/);
    expect(estimateTokens([{ role: 'user', content: 'abcd' }])).toBe(
      Math.ceil(JSON.stringify([{ role: 'user', content: 'abcd' }]).length / 4),
    );
  });
});
