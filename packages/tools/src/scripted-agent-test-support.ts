// Test support (not exported): one real agent of @muster/query with muster's built-in tools,
// answered by @muster/scripted-model — a TEST DOUBLE of the Messages API — through the real
// @anthropic-ai/sdk and the real model client. Used by the end-to-end tests of this package.
import { homedir } from 'node:os';
import path from 'node:path';
import { createPermissionContext, type PermissionContextInput } from '@muster/permissions';
import {
  createAgent,
  createModelClient,
  createPermissionAuthorizer,
  rootsFromPermissionContext,
  type Agent,
  type AgentEvent,
  type AnyTool,
  type TurnResult,
} from '@muster/query';
import { createScriptedFetch, type Script, type ScriptedFetch } from '@muster/scripted-model';
import { createBuiltInTools } from './built-in-tools.js';

/** The API key the test client sends; the tests check it is never written anywhere. */
export const SCRIPTED_API_KEY = 'sk-ant-test-e2e-0123456789abcdef';

/** An agent in `cwd` with the built-in tools, and the handles a test looks at. */
export interface ScriptedToolAgent {
  agent: Agent;
  scriptedFetch: ScriptedFetch;
  transcriptPath: string;
  /** Sends `prompt` and collects every event of the turn. */
  run(prompt: string): Promise<{ result: TurnResult; events: AgentEvent[] }>;
}

/** Options: the working directory, where the transcript goes, and the permission context. */
export interface ScriptedToolAgentOptions {
  cwd: string;
  transcriptDirectory: string;
  permissions?: Partial<PermissionContextInput>;
  tools?: AnyTool[];
  /** Replaces the permission authorizer (e.g. to allow everything and test the tools' own guards). */
  allowEverything?: boolean;
}

/** Creates the agent. The caller closes it (`agent.close()`). */
export function openScriptedToolAgent(
  script: Script,
  options: ScriptedToolAgentOptions,
): ScriptedToolAgent {
  const scriptedFetch = createScriptedFetch({ script });
  const client = createModelClient({
    apiKey: SCRIPTED_API_KEY,
    baseURL: 'http://scripted-model.invalid',
    fetch: scriptedFetch,
    retryBaseMs: 1,
    streamIdleMs: 20_000,
  });
  const context = createPermissionContext({
    mode: 'acceptEdits',
    workingDirectories: [options.cwd],
    homeDirectory: homedir(),
    ...options.permissions,
  });
  const transcriptPath = path.join(options.transcriptDirectory, 'agent.jsonl');
  const agent = createAgent({
    client,
    model: 'claude-sonnet-5-5',
    identity: { name: 'solo', id: 'solo@e2e' },
    system: 'You are a coding agent working in a small repository. (Scripted test.)',
    tools: options.tools ?? createBuiltInTools(),
    cwd: options.cwd,
    roots: () => rootsFromPermissionContext(context),
    authorize: options.allowEverything
      ? async () => ({ behavior: 'allow' })
      : createPermissionAuthorizer({ context: () => context }),
    transcriptPath,
    environment: { ...process.env, ANTHROPIC_API_KEY: SCRIPTED_API_KEY },
  });
  return {
    agent,
    scriptedFetch,
    transcriptPath,
    async run(prompt) {
      const turn = agent.send(prompt);
      const events: AgentEvent[] = [];
      for await (const event of turn) events.push(event);
      return { result: await turn.result, events };
    },
  };
}

/** The `tool_call_end` events of a turn, in order. */
export function toolCallEnds(events: AgentEvent[]) {
  return events.filter(
    (event): event is Extract<AgentEvent, { type: 'tool_call_end' }> =>
      event.type === 'tool_call_end',
  );
}
