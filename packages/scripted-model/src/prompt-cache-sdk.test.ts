// The prompt cache seen through the real @anthropic-ai/sdk: a 20-turn conversation over both
// transports, checked from the usage the SDK parsed and from the JSONL request log.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalPrompt } from './canonical-segments.js';
import { createPromptCache } from './prompt-cache.js';
import { conversationBody, markLastBlock, totalInput } from './prompt-cache-test-support.js';
import { createRequestLog } from './request-log.js';
import { openScriptedClient, TRANSPORTS, type ScriptedClient } from './transport-test-support.js';
import type { MessagesRequestBody, RequestLogRecord } from './types.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(TRANSPORTS)('a 20-turn conversation through the real SDK over %s', (transport) => {
  it('keeps one tools+system hash, reads ≥ 80% from cache from turn 3, and logs the wire bytes’ hashes', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'scripted-model-sdk-cache-'));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    const file = join(directory, 'requests.jsonl');
    const log = createRequestLog({ file });
    cleanups.push(() => log.close());
    const opened: ScriptedClient = await openScriptedClient(transport, {
      script: (request) => ({ content: [{ type: 'text', text: `Answer ${request.index + 1}.` }] }),
      cache: createPromptCache(),
      log,
    });
    cleanups.push(() => opened.close());

    const messages: Anthropic.MessageParam[] = [];
    const sent: MessagesRequestBody[] = [];
    const shares: number[] = [];
    for (let turn = 1; turn <= 20; turn += 1) {
      messages.push({ role: 'user', content: `Turn ${turn}: continue with the next step.` });
      const body = conversationBody(markLastBlock(messages));
      sent.push(body);
      const params = body as unknown as Anthropic.MessageCreateParamsNonStreaming;
      // Odd turns stream, even turns do not: both paths report the same cache usage.
      const reply =
        turn % 2 === 1
          ? await opened.client.messages.stream(params).finalMessage()
          : await opened.client.messages.create({ ...params, stream: false });
      expect(totalInput(reply.usage)).toBe(canonicalPrompt(body).totalTokens);
      shares.push((reply.usage.cache_read_input_tokens ?? 0) / totalInput(reply.usage));
      const text = reply.content[0]?.type === 'text' ? reply.content[0].text : '';
      messages.push({ role: 'assistant', content: text });
    }
    expect(shares[0]).toBe(0);
    for (const share of shares.slice(2)) expect(share).toBeGreaterThanOrEqual(0.8);

    const counted = await opened.client.messages.countTokens({
      model: sent[19]!.model,
      messages: sent[19]!.messages as Anthropic.MessageParam[],
      system: sent[19]!.system as Anthropic.TextBlockParam[],
      tools: sent[19]!.tools as Anthropic.Tool[],
    });
    expect(counted.input_tokens).toBe(canonicalPrompt(sent[19]!).totalTokens);

    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as RequestLogRecord);
    expect(lines).toHaveLength(20);
    expect(new Set(lines.map((line) => line.toolsSystemHash)).size).toBe(1);
    lines.forEach((line, index) => {
      // The SDK sent the objects' keys in order: the hash of what arrived equals the hash of what was built.
      const segments = canonicalPrompt(sent[index]!).segments;
      expect(line.breakpointHashes).toEqual([segments[segments.length - 1]!.prefixHash]);
      expect(line.toolsSystemHash).toBe(canonicalPrompt(sent[index]!).toolsSystemHash);
      expect(line.stream).toBe(index % 2 === 0);
    });
  });
});
