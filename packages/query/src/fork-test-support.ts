// Test support for the fork tests (not exported): a parent agent over the scripted model (a
// TEST DOUBLE of the Messages API) whose Fork tool takes a ForkSource while it runs, and fork
// children on their own scripted model with a fresh prompt-cache simulation.
import {
  createPromptCache,
  createRequestLog,
  createScriptedFetch,
  text,
  type PromptCache,
  type RequestLog,
  type Reply,
  type Script,
  type ScriptedFetch,
} from '@muster/scripted-model';
import { createAgent } from './agent.js';
import type { Agent } from './agent-types.js';
import { FORK_BOILERPLATE_TAG, type ForkOptions, type ForkSource } from './fork.js';
import { createModelClient } from './model-client.js';
import type { ModelClient } from './model-types.js';
import type { AnyTool } from './tool.js';
import {
  allowAll,
  openScriptedAgent,
  recordingTool,
  SCRIPTED_BASE_URL,
  TEST_API_KEY,
  type ScriptedAgent,
} from './agent-test-support.js';

/** About 2,000 tokens: above the simulated 1,024-token cache minimum. */
export const LONG_SYSTEM = `You are the lead of a test team. ${'Plan the work, then split it. '.repeat(250)}`;

/** A tool that takes a fork source each time it runs (what the Task tool does). */
export function forkTool(sources: ForkSource[]): AnyTool & { errors: unknown[] } {
  const errors: unknown[] = [];
  const tool = recordingTool('Fork', {
    run: async (_input, context) => {
      try {
        sources.push(context.forkSource!());
      } catch (error) {
        errors.push(error);
        throw error;
      }
      return { content: 'forked' };
    },
  });
  return Object.assign(tool, { errors });
}

/** The parent: a long system prompt, tools Fork, Read and Grep; its one turn forks. */
export interface ForkingParent extends ScriptedAgent {
  sources: ForkSource[];
  tools: AnyTool[];
}

/**
 * Runs a parent whose second request answers with a text block, a Fork call and a Read call
 * (two tool_use blocks, so each child gets two placeholders), then ends its turn. With
 * `thinking`, that answer starts with a thinking block (signed by the double).
 */
export async function runForkingParent(
  options: { thinking?: boolean } = {},
): Promise<ForkingParent> {
  const sources: ForkSource[] = [];
  const tools = [forkTool(sources), recordingTool('Read'), recordingTool('Grep')];
  const script: Script = (request): Reply => {
    if (request.index === 0)
      return { content: [{ type: 'tool_use', name: 'Read', input: { tag: 'look' } }] };
    if (request.index === 1) {
      return {
        content: [
          ...(options.thinking === true
            ? [{ type: 'thinking' as const, thinking: 'Two parts; fork one, read the other.' }]
            : []),
          { type: 'text', text: 'I will split this between forks.' },
          { type: 'tool_use', name: 'Fork', input: { tag: 'split' } },
          { type: 'tool_use', name: 'Read', input: { tag: 'meanwhile', path: 'a.ts' } },
        ],
      };
    }
    return text('The forks are running.');
  };
  const parent = openScriptedAgent(script, { tools, system: LONG_SYSTEM });
  const turn = parent.agent.send('Refactor the three modules.');
  for await (const _event of turn) {
    // drain
  }
  const result = await turn.result;
  if (result.reason !== 'completed') throw new Error(`parent turn ended with ${result.reason}`);
  return { ...parent, sources, tools };
}

/** Children's model: a fresh scripted model and prompt cache, and the request log. */
export interface ChildModel {
  client: ModelClient;
  scriptedFetch: ScriptedFetch;
  log: RequestLog;
  cache: PromptCache;
}

/** Whether a request is a fork child's (its messages hold the boilerplate tag). */
export function isForkRequest(body: unknown): boolean {
  return JSON.stringify(body).includes(`<${FORK_BOILERPLATE_TAG}>`);
}

/**
 * A scripted model for children. With `barrier`, no fork request is answered before `barrier`
 * fork requests have arrived (so none can read another's cache entry: "sent all at once").
 */
export function openChildModel(options: { barrier?: number; script?: Script } = {}): ChildModel {
  const log = createRequestLog();
  const cache = createPromptCache();
  const script: Script =
    options.script ??
    (async (request, context) => {
      if (options.barrier !== undefined) {
        await context.waitFor(
          () =>
            context.requests.filter((seen) => isForkRequest(seen.body)).length >= options.barrier!,
          { timeoutMs: 10_000, description: `${options.barrier} fork requests` },
        );
      }
      return text(`Child report for request ${request.index}.`);
    });
  const scriptedFetch = createScriptedFetch({ script, cache, log });
  const client = createModelClient({
    apiKey: TEST_API_KEY,
    baseURL: SCRIPTED_BASE_URL,
    retryBaseMs: 1,
    streamIdleMs: 10_000,
    fetch: scriptedFetch,
  });
  return { client, scriptedFetch, log, cache };
}

/** A fork child on `model` that may run `tools` (default: none). */
export function createChild(
  model: ChildModel,
  fork: ForkOptions,
  index: number,
  tools: readonly AnyTool[] = [],
): Agent {
  return createAgent({
    client: model.client,
    identity: { name: `fork-${index + 1}`, id: `fork-${index + 1}@test-team` },
    tools,
    cwd: '/tmp',
    roots: () => ({ read: ['/tmp'], write: ['/tmp'] }),
    authorize: allowAll,
    environment: { PATH: '/usr/bin:/bin' },
    fork,
  });
}
