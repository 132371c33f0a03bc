// Test support for the spawn tool (not exported): a parent agent of @muster/query whose model
// is @muster/scripted-model — a TEST DOUBLE of the Messages API — behind the real SDK and the
// real model client, offered the spawn tool (and what else a test gives it). Parent and child
// requests go to one scripted fetch; the script tells them apart by their system prompt.
import type Anthropic from '@anthropic-ai/sdk';
import {
  createAgent,
  createModelClient,
  type Agent,
  type AgentEvent,
  type AnyTool,
  type ModelClient,
  type ToolAuthorizer,
  type TurnResult,
} from '@muster/query';
import {
  createScriptedFetch,
  type Reply,
  type Script,
  type ScriptedFetch,
  type ScriptRequest,
} from '@muster/scripted-model';
import type { AgentDefinition } from './agent-definition.js';
import { BUILT_IN_AGENTS } from './built-in-agents.js';
import { createSpawnTool, type SpawnToolOptions } from './spawn-tool.js';
import type { TeamEvent } from './team-event.js';

/** The marker in the parent's system prompt. */
export const PARENT_MARKER = 'You are the scripted parent agent.';
/** The API key the test client sends. */
export const SPAWN_TEST_API_KEY = 'sk-ant-test-spawn-0123456789abcdef';

/** Allows every call. */
export const allowAll: ToolAuthorizer = async () => ({ behavior: 'allow' });

/** A test agent type with a recognisable prompt. */
export const REVIEWER: AgentDefinition = Object.freeze({
  name: 'reviewer',
  description: 'Reviews a change and reports problems.',
  tools: Object.freeze(['Probe']),
  systemPrompt: 'You are the scripted reviewer agent.',
  source: 'caller',
});

/** Whether a request is the parent's (by its system prompt). */
export function isParentRequest(request: ScriptRequest): boolean {
  return JSON.stringify(request.body.system).includes(PARENT_MARKER);
}

/** The last message of a request. */
export function lastMessage(request: ScriptRequest): Anthropic.MessageParam {
  const messages = request.body.messages as Anthropic.MessageParam[];
  return messages.at(-1)!;
}

/** Whether the last message carries a tool_result (the loop continuing after tools). */
export function afterToolResult(request: ScriptRequest): boolean {
  const content = lastMessage(request).content;
  return typeof content !== 'string' && content.some((block) => block.type === 'tool_result');
}

/** The text of every block of the request's last message. */
export function lastText(request: ScriptRequest): string {
  const content = lastMessage(request).content;
  if (typeof content === 'string') return content;
  return content
    .map((block) =>
      block.type === 'text'
        ? block.text
        : block.type === 'tool_result'
          ? JSON.stringify(block.content)
          : '',
    )
    .join('\n');
}

/** A text reply. */
export const say = (text: string): Reply => ({ content: [{ type: 'text', text }] });
/** A reply calling one tool. */
export const use = (name: string, input: Record<string, unknown>): Reply => ({
  content: [{ type: 'tool_use', name, input }],
});

/** A parent, its spawn tool options, and what the test looks at. */
export interface SpawnParent {
  agent: Agent;
  client: ModelClient;
  scriptedFetch: ScriptedFetch;
  events: TeamEvent[];
  run(prompt: string): Promise<{ result: TurnResult; events: AgentEvent[] }>;
  close(): Promise<void>;
}

/** Options: the script, the dialect, extra tools and spawn tool options. */
export interface SpawnParentOptions {
  script: Script;
  cwd: string;
  dialect?: SpawnToolOptions['dialect'];
  tools?: AnyTool[];
  definitions?: readonly AgentDefinition[];
  spawn?: Partial<SpawnToolOptions>;
  pendingInput?: () => Anthropic.ContentBlockParam[] | undefined;
}

/** Creates the parent agent with the spawn tool first, then `tools`. */
export function openSpawnParent(options: SpawnParentOptions): SpawnParent {
  const scriptedFetch = createScriptedFetch({ script: options.script });
  const client = createModelClient({
    apiKey: SPAWN_TEST_API_KEY,
    baseURL: 'http://scripted-model.invalid',
    fetch: scriptedFetch,
    retryBaseMs: 1,
    streamIdleMs: 20_000,
  });
  const events: TeamEvent[] = [];
  const environment = { PATH: '/usr/bin:/bin', ANTHROPIC_API_KEY: SPAWN_TEST_API_KEY };
  const tools: AnyTool[] = [];
  const spawnTool = createSpawnTool({
    dialect: options.dialect ?? '2.1.45',
    definitions: options.definitions ?? [...BUILT_IN_AGENTS, REVIEWER],
    client,
    parentModel: 'claude-test-model',
    parentName: 'team-lead',
    tools: () => tools,
    authorizerFor: () => allowAll,
    environment,
    onEvent: (event) => events.push(event),
    date: '2026-11-24',
    ...options.spawn,
  });
  tools.push(spawnTool, ...(options.tools ?? []));
  const agent = createAgent({
    client,
    model: 'claude-test-model',
    identity: { name: 'team-lead', id: 'team-lead@test' },
    system: `${PARENT_MARKER} (Scripted test.)`,
    tools,
    cwd: options.cwd,
    roots: () => ({ read: [options.cwd], write: [options.cwd] }),
    authorize: allowAll,
    environment,
    ...(options.pendingInput === undefined ? {} : { pendingInput: options.pendingInput }),
  });
  return {
    agent,
    client,
    scriptedFetch,
    events,
    async run(prompt) {
      const turn = agent.send(prompt);
      const seen: AgentEvent[] = [];
      for await (const event of turn) seen.push(event);
      return { result: await turn.result, events: seen };
    },
    async close() {
      await agent.close('test ended');
      scriptedFetch.stop();
    },
  };
}

/** The tool_call_end event of the first call of `name`. */
export function toolEnd(
  events: readonly AgentEvent[],
  name: string,
): Extract<AgentEvent, { type: 'tool_call_end' }> {
  const found = events.find(
    (event): event is Extract<AgentEvent, { type: 'tool_call_end' }> =>
      event.type === 'tool_call_end' && event.name === name,
  );
  if (found === undefined) throw new Error(`no ${name} call ended`);
  return found;
}
