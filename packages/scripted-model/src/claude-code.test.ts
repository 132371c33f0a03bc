// The real Claude Code 2.1.45 CLI completes one headless turn against the HTTP transport. The team
// run (lead + in-process teammate) is src/claude-code-peer.test.ts; both find and run the CLI
// with the helpers of @muster/test-utils (its claude-code-peer.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClaudeCodeHome,
  findClaudeCode,
  runClaudeCode,
  type ClaudeCodeHome,
  type ClaudeCodeLocation,
} from '@muster/test-utils';
import { startScriptedModel, type ScriptedModelServer } from './http-transport.js';
import { createPromptCache } from './prompt-cache.js';
import { TEST_DOUBLE_MODEL_SUFFIX } from './scripted-model-core.js';

let location: ClaudeCodeLocation;
let home: ClaudeCodeHome | undefined;
let server: ScriptedModelServer | undefined;

beforeAll(async () => {
  location = await findClaudeCode();
  home = await createClaudeCodeHome('scripted-model-claude-code-');
}, 180_000);
afterAll(async () => {
  await server?.close();
  await home?.dispose();
});

describe('the real Claude Code 2.1.45 against the HTTP transport', () => {
  it('completes a headless turn and exits 0, reporting the scripted text', async (context) => {
    if ('unavailable' in location) {
      console.warn(`skipped: Claude Code 2.1.45 is unavailable (${location.unavailable})`);
      context.skip();
      return;
    }
    server = await startScriptedModel({
      script: () => ({ content: [{ type: 'text', text: 'Hello from the scripted test double.' }] }),
      cache: createPromptCache(),
    });
    const run = await runClaudeCode({
      cli: location.cli,
      baseUrl: server.url,
      home: home as ClaudeCodeHome,
      prompt: 'Say hello',
      timeoutMs: 60_000,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const result = run.events.filter((event) => event.type === 'result').at(-1);
    expect(result).toMatchObject({
      subtype: 'success',
      is_error: false,
      result: 'Hello from the scripted test double.',
    });
    const assistant = run.events.find((event) => event.type === 'assistant') as {
      message?: { model?: string };
    };
    expect(assistant.message?.model).toMatch(
      new RegExp(`${TEST_DOUBLE_MODEL_SUFFIX.replace(/[()]/g, '\\$&')}$`),
    );
    const requests = server.requests();
    expect(requests.length).toBeGreaterThanOrEqual(1);
    for (const request of requests) {
      expect(request.path).toBe('/v1/messages?beta=true');
      expect(request.headers['anthropic-version']).toBe('2023-06-01');
      expect(request.headers['x-api-key']).toBe('sk-ant-scripted-test-double');
      expect(request.body.stream).toBe(true);
    }
  });
});
