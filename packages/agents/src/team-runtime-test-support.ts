// Test support for the lead's team session (not exported): scripted models — @muster/scripted-
// model, a TEST DOUBLE of the Messages API, behind the real SDK and model client — and helpers
// that read what a request shows the model.
import type Anthropic from '@anthropic-ai/sdk';
import { createModelClient, type ModelClient } from '@muster/query';
import { createScriptedFetch, type Script, type ScriptRequest } from '@muster/scripted-model';
import { createInProcessBackend } from '@muster/backends';
import { makeTempDirectory } from '@muster/test-utils';
import { onTestFinished } from 'vitest';
import { createTeamRuntime } from './team-runtime.js';
import type { TeamRuntime, TeamRuntimeOptions } from './team-runtime-options.js';
import type { TeamEvent } from './team-event.js';
import { eventually } from './teammate-test-support.js';

import { say } from './spawn-tool-test-support.js';

export { lastText, say, use as call } from './spawn-tool-test-support.js';

/** A model client answered by `script` (no socket), and the fetch's request log. */
export function scriptedModel(
  script: Script,
  options: { streamIdleMs?: number } = {},
): { client: ModelClient; requests: () => number } {
  const scriptedFetch = createScriptedFetch({ script });
  const client = createModelClient({
    apiKey: 'sk-test-team-runtime-0123456789',
    baseURL: 'http://scripted-model.invalid',
    retryBaseMs: 1,
    streamIdleMs: options.streamIdleMs ?? 10_000,
    fetch: scriptedFetch,
  });
  return { client, requests: () => scriptedFetch.requests().length };
}

/** The name of the tool the model called in its previous message (whose result comes now), if any. */
export function previousTool(request: ScriptRequest): string | undefined {
  const messages = request.body.messages as Anthropic.MessageParam[];
  const assistant = messages.at(-2);
  if (assistant === undefined || typeof assistant.content === 'string') return undefined;
  const call = assistant.content.find((block) => block.type === 'tool_use');
  return call?.type === 'tool_use' ? call.name : undefined;
}

/** Waits (polling, at most `timeoutMs`, default 20 s) until `check` returns a value. */
export function until<Value>(
  what: string,
  check: () => Promise<Value | undefined> | Value | undefined,
  timeoutMs = 20_000,
): Promise<Value> {
  return eventually(what, check, timeoutMs);
}

/** What {@link openTestRuntime} gives a test. */
export interface TestRuntime {
  runtime: TeamRuntime;
  /** Every event of the team, in order. */
  events: TeamEvent[];
  root: string;
  cwd: string;
  /** Every request the teammates' model received. */
  teammateRequests: ScriptRequest[];
}

/**
 * A team runtime for one test: temporary root and project, the lead and in-process teammates
 * answered by scripts, the headless policy unless `options` says otherwise, and `close()` once
 * the test is over (whatever it did).
 */
export async function openTestRuntime(
  lead: Script,
  teammates: Script = () => say('Waiting.'),
  options: Partial<TeamRuntimeOptions> & {
    teammateStreamIdleMs?: number;
    /** Fills the project folder before the runtime opens (it reads agent definitions there). */
    prepareCwd?: (cwd: string) => Promise<void>;
  } = {},
): Promise<TestRuntime> {
  const root = await makeTempDirectory('muster-team-runtime-');
  const cwd = await makeTempDirectory('muster-team-runtime-cwd-');
  const events: TeamEvent[] = [];
  const teammateRequests: ScriptRequest[] = [];
  const { teammateStreamIdleMs, prepareCwd, ...rest } = options;
  await prepareCwd?.(cwd);
  const runtime = await createTeamRuntime({
    root,
    cwd,
    client: scriptedModel(lead).client,
    teammateClient: scriptedModel(
      (request, context) => {
        teammateRequests.push(request);
        return teammates(request, context);
      },
      teammateStreamIdleMs === undefined ? {} : { streamIdleMs: teammateStreamIdleMs },
    ).client,
    model: 'claude-test-model',
    homeDirectory: cwd,
    environment: { PATH: process.env.PATH, HOME: cwd },
    askPolicy: 'headless',
    backends: [createInProcessBackend({ processReaper: false })],
    onEvent: (event) => events.push(event),
    ...rest,
  });
  onTestFinished(() => runtime.close());
  return { runtime, events, root, cwd, teammateRequests };
}
