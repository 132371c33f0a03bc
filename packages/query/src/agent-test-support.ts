// Test support for the loop tests (not exported): an agent whose model is the scripted model
// (a TEST DOUBLE of the Messages API) behind the real SDK and the real model client, tools
// that record what they were called with, and a schema check of every recorded request (R6).
import {
  createScriptedFetch,
  sequence,
  type PromptCache,
  type RequestLog,
  type Script,
  type ScriptedFetch,
} from '@muster/scripted-model';
import { expect } from 'vitest';
import { z } from 'zod';
import { createAgent } from './agent.js';
import type {
  Agent,
  AgentEvent,
  AgentOptions,
  AgentTurn,
  ToolAuthorizer,
  TurnResult,
} from './agent-types.js';
import { createModelClient } from './model-client.js';
import type { ModelClient } from './model-types.js';
import type { AnyTool, ToolContext, ToolResult } from './tool.js';

/** The base URL the scripted fetch answers (no socket). */
export const SCRIPTED_BASE_URL = 'http://scripted-model.invalid';
/** The API key the test client uses (long enough to be redacted). */
export const TEST_API_KEY = 'sk-test-0123456789abcdef';

/** Allows every call. */
export const allowAll: ToolAuthorizer = async () => ({ behavior: 'allow' });

/** An agent over a scripted model, and what the test needs to look at. */
export interface ScriptedAgent {
  agent: Agent;
  client: ModelClient;
  scriptedFetch: ScriptedFetch;
}

/** Options of {@link openScriptedAgent}: any agent option, plus the scripted model's. */
export type ScriptedAgentOptions = Partial<AgentOptions> & {
  cache?: PromptCache;
  log?: RequestLog;
  streamIdleMs?: number;
};

/** Creates an agent (cwd `/tmp` unless given) answered by `script`. */
export function openScriptedAgent(
  script: Script,
  options: ScriptedAgentOptions = {},
): ScriptedAgent {
  const { cache, log, streamIdleMs, ...agentOptions } = options;
  const scriptedFetch = createScriptedFetch({
    script,
    ...(cache === undefined ? {} : { cache }),
    ...(log === undefined ? {} : { log }),
  });
  const client = createModelClient({
    apiKey: TEST_API_KEY,
    baseURL: SCRIPTED_BASE_URL,
    retryBaseMs: 1,
    streamIdleMs: streamIdleMs ?? 10_000,
    fetch: scriptedFetch,
  });
  const cwd = agentOptions.cwd ?? '/tmp';
  const agent = createAgent({
    client,
    model: 'claude-test-model',
    identity: { name: 'tester', id: 'tester@test-team', teamName: 'test-team' },
    system: 'You are a test agent.',
    tools: [],
    cwd,
    roots: () => ({ read: [cwd], write: [cwd] }),
    authorize: allowAll,
    environment: { PATH: '/usr/bin:/bin', ANTHROPIC_API_KEY: TEST_API_KEY },
    ...agentOptions,
  });
  return { agent, client, scriptedFetch };
}

/** Reads every event of a turn, then its result. */
export async function collect(
  turn: AgentTurn,
): Promise<{ events: AgentEvent[]; result: TurnResult }> {
  const events: AgentEvent[] = [];
  for await (const event of turn) events.push(event);
  return { events, result: await turn.result };
}

/** The events of one type. */
export function eventsOf<Type extends AgentEvent['type']>(
  events: readonly AgentEvent[],
  type: Type,
): Array<Extract<AgentEvent, { type: Type }>> {
  return events.filter(
    (event): event is Extract<AgentEvent, { type: Type }> => event.type === type,
  );
}

/** What a recording tool saw. */
export interface ToolCallRecord {
  input: Record<string, unknown>;
  context: ToolContext;
}

/** Options of {@link recordingTool}. */
export interface RecordingToolOptions {
  concurrent?: boolean;
  readOnly?: boolean;
  /** Shared order log: `start:<name>:<tag>` / `end:<name>:<tag>`. */
  order?: string[];
  /** What the call does (default: returns `<name> ok <tag>`). */
  run?: (input: Record<string, unknown>, context: ToolContext) => Promise<ToolResult>;
}

/** A tool `{ tag: string, path?: string }` that records its calls. */
export function recordingTool(
  name: string,
  options: RecordingToolOptions = {},
): AnyTool & { calls: ToolCallRecord[] } {
  const calls: ToolCallRecord[] = [];
  return {
    name,
    description: `Test tool ${name}: records its calls.`,
    inputSchema: z.strictObject({ tag: z.string(), path: z.string().optional() }),
    isReadOnly: () => options.readOnly ?? true,
    isConcurrencySafe: () => options.concurrent ?? false,
    pathsOf: (input: { path?: string }) => (input.path === undefined ? [] : [input.path]),
    calls,
    async call(input: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
      calls.push({ input, context });
      options.order?.push(`start:${name}:${String(input.tag)}`);
      try {
        if (options.run !== undefined) return await options.run(input, context);
        return { content: `${name} ok ${String(input.tag)}` };
      } finally {
        options.order?.push(`end:${name}:${String(input.tag)}`);
      }
    },
  };
}

type Block = { type: string; [key: string]: unknown };

function blocksOf(content: unknown): Block[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : (content as Block[]);
}

/**
 * R6, checked on every recorded request: roles alternate (one user message per assistant
 * message), the first message is a user message, and each assistant message with tool_use
 * blocks is followed by a user message that starts with exactly one tool_result per call, in
 * the calls' order.
 */
export function expectValidConversations(scriptedFetch: ScriptedFetch): void {
  for (const request of scriptedFetch.requests()) {
    const messages = request.body.messages as Array<{ role: string; content: unknown }>;
    expect(messages[0]?.role, `request #${request.index} starts with a user message`).toBe('user');
    messages.forEach((message, index) => {
      if (index > 0) {
        expect(
          message.role,
          `request #${request.index} message ${index} alternates roles`,
        ).not.toBe(messages[index - 1]!.role);
      }
      if (message.role !== 'assistant') return;
      const callIds = blocksOf(message.content)
        .filter((block) => block.type === 'tool_use')
        .map((block) => block.id);
      if (callIds.length === 0) return;
      const next = messages[index + 1];
      if (next === undefined) return; // a pause_turn continuation ends with the assistant message
      const blocks = blocksOf(next.content);
      const leading = blocks.slice(0, callIds.length);
      expect(
        leading.map((block) => [block.type, block.tool_use_id]),
        `request #${request.index}: the results of message ${index} come first, in order`,
      ).toEqual(callIds.map((id) => ['tool_result', id]));
      expect(
        blocks.slice(callIds.length).some((block) => block.type === 'tool_result'),
        `request #${request.index}: no other tool_result after the leading ones`,
      ).toBe(false);
    });
  }
}

/** A request's messages with every `cache_control` marker removed (markers are the builder's business). */
export function withoutMarkers(messages: unknown): Array<{ role: string; content: unknown }> {
  return JSON.parse(JSON.stringify(messages), (key, value: unknown) =>
    key === 'cache_control' ? undefined : value,
  ) as Array<{ role: string; content: unknown }>;
}

/**
 * A script answering the agent's requests with `steps`, one each, in order: one sequence for
 * every request of the test, whatever its conversation.
 */
export function stepsInOrder(...steps: Parameters<typeof sequence>[0]): Script {
  return sequence(steps, { keyOf: () => 'agent' });
}

/** A user message of text blocks, as the agent sends prompts that were merged into one. */
export function userTexts(...texts: string[]): { role: 'user'; content: unknown[] } {
  return { role: 'user', content: texts.map((text) => ({ type: 'text', text })) };
}
