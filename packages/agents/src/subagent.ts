// A subagent: a fresh conversation started from an agent definition (its tool pool, system
// prompt and model through A1's chains), with its own tool state, an abort linked to whoever
// started it, and SubagentStart/SubagentStop hooks around it. The synchronous path awaits it
// inside the Task/Agent tool call; the background path runs the same thing detached.
import type { PermissionMode } from '@muster/protocol';
import {
  createAgent,
  type AgentEvent,
  type AnyTool,
  type ModelClient,
  type TokenUsage,
  type ToolAuthorizer,
  type ToolRoots,
  type TurnEndReason,
} from '@muster/query';
import type { AgentDefinition } from './agent-definition.js';
import { resolveAgentModel } from './agent-model.js';
import type { Hooks } from './hooks.js';
import { buildSystemPrompt } from './system-prompt.js';
import { DEFAULT_AGENT_PROMPT } from './system-prompt-defaults.js';
import type { TeamEventSink } from './team-event.js';
import { effectiveMode } from './spawn-tool-modes.js';
import { resolveToolPool } from './tool-pool.js';

/** How many times a blocking SubagentStop hook may send the subagent back to work. */
export const MAXIMUM_STOP_HOOK_CONTINUATIONS = 3;

/** What a subagent runs with. */
export interface SubagentOptions {
  /** The agent type. */
  definition: AgentDefinition;
  /** The task, sent as its first message. */
  prompt: string;
  /** This run's id (`a<hex>`), used in hook payloads and result texts. */
  agentId: string;
  /** The spawning agent's name (for events). */
  parentName: string;
  /** The team the parent is in, if any (the subagent's identity carries it). */
  teamName?: string;
  client: ModelClient;
  /** The parent's model (the model chain's last link). */
  parentModel: string;
  /** The tool call's `model` parameter. */
  toolModel?: string;
  /** The parent's tools: the pool is chosen from these. */
  availableTools: readonly AnyTool[];
  /** A background agent (async tool layer). */
  async: boolean;
  cwd: string;
  roots: () => ToolRoots;
  /** The authorizer for the subagent's permission mode (undefined: the parent's own). */
  authorizerFor: (mode: PermissionMode | undefined) => ToolAuthorizer;
  /** The parent's permission mode: the definition's mode is never wider (default `default`). */
  parentMode?: PermissionMode;
  /** Model chain variables and the tool processes' environment. */
  environment: Readonly<Record<string, string | undefined>>;
  /** Aborting it aborts the subagent (the parent's turn, or a background kill). */
  signal: AbortSignal;
  hooks?: Hooks;
  onEvent?: TeamEventSink;
  /** Every event of the subagent's loop (progress of a background agent). */
  onAgentEvent?: (event: AgentEvent) => void;
  transcriptPath?: string;
  /** Requests before the run ends with `max_turns` (the tool's `max_turns`). */
  maxTurns?: number;
  /** Today as `YYYY-MM-DD` (default: the current UTC date). */
  date?: string;
  /** Appended to the system prompt (a worktree notice). */
  appendPrompt?: string;
}

/** How a subagent run ended. */
export interface SubagentOutcome {
  /** Its last reply's text. */
  text: string;
  reason: TurnEndReason;
  error?: { code: string; message: string };
  toolUses: number;
  durationMs: number;
  /** Usage over the whole run. */
  usage: TokenUsage;
  /** The last request's prompt plus output tokens (what Claude Code reports as `total_tokens`). */
  totalTokens: number;
  model: string;
}

function totalOf(usage: TokenUsage | undefined): number {
  if (usage === undefined) return 0;
  return (
    usage.inputTokens +
    usage.cacheCreationInputTokens +
    usage.cacheReadInputTokens +
    usage.outputTokens
  );
}

function notice(options: SubagentOptions, level: 'info' | 'warning', text: string): void {
  options.onEvent?.({ type: 'notice', level, text, agentName: options.agentId, at: Date.now() });
}

/** Runs a subagent to the end of its work and reports how it went (never rejects for a model error). */
export async function runSubagent(options: SubagentOptions): Promise<SubagentOutcome> {
  const { definition } = options;
  const started = Date.now();
  const { model } = resolveAgentModel({
    environment: options.environment,
    ...(options.toolModel === undefined ? {} : { toolModel: options.toolModel }),
    definition,
    parentModel: options.parentModel,
  });
  const pool = resolveToolPool({
    available: options.availableTools,
    definition,
    async: options.async,
    teammate: false,
  });
  for (const text of pool.notices) notice(options, 'warning', text);
  const system = buildSystemPrompt({
    agentPrompt: definition.systemPrompt,
    defaultPrompt: DEFAULT_AGENT_PROMPT,
    ...(options.appendPrompt === undefined ? {} : { append: options.appendPrompt }),
    environment: {
      cwd: options.cwd,
      model,
      toolNames: pool.tools.map((tool) => tool.name),
      platform: process.platform,
      date: options.date ?? new Date().toISOString().slice(0, 10),
    },
  });
  const { mode, notice: modeNotice } = effectiveMode(
    definition.permissionMode,
    options.parentMode ?? 'default',
    `The agent definition "${definition.name}"`,
  );
  if (modeNotice !== undefined) notice(options, 'warning', modeNotice);
  let prompt = options.prompt;
  if (options.hooks?.has('SubagentStart') === true) {
    const ran = await options.hooks.runHook(
      'SubagentStart',
      { agent_id: options.agentId, agent_type: definition.name },
      { signal: options.signal, cwd: options.cwd, environment: options.environment },
    );
    for (const text of ran.notices) notice(options, 'warning', text);
    const context = ran.outputs.map((output) => output.trim()).filter((output) => output !== '');
    if (context.length > 0) prompt = `${prompt}\n\n${context.join('\n\n')}`;
  }
  const agent = createAgent({
    client: options.client,
    model,
    identity: {
      name: options.agentId,
      id: options.agentId,
      ...(options.teamName === undefined ? {} : { teamName: options.teamName }),
    },
    system,
    tools: pool.tools,
    cwd: options.cwd,
    roots: options.roots,
    authorize: options.authorizerFor(mode),
    environment: options.environment,
    signal: options.signal,
    ...(options.transcriptPath === undefined ? {} : { transcriptPath: options.transcriptPath }),
    ...(options.maxTurns === undefined ? {} : { maxRequestsPerTurn: options.maxTurns }),
  });
  let toolUses = 0;
  try {
    let next: string | undefined = prompt;
    let continuations = 0;
    let last: Awaited<ReturnType<typeof agent.send>['result']> | undefined;
    while (next !== undefined) {
      const turn = agent.send(next);
      for await (const event of turn) {
        options.onAgentEvent?.(event);
        options.onEvent?.({ type: 'agent', agentName: options.agentId, event, at: Date.now() });
      }
      last = await turn.result;
      toolUses += last.toolCalls;
      next = undefined;
      if (last.reason !== 'completed' || options.hooks?.has('SubagentStop') !== true) break;
      const stopped = await options.hooks.runHook(
        'SubagentStop',
        {
          agent_id: options.agentId,
          agent_type: definition.name,
          agent_transcript_path: options.transcriptPath ?? '',
        },
        { signal: options.signal, cwd: options.cwd, environment: options.environment },
      );
      for (const text of stopped.notices) notice(options, 'warning', text);
      if (stopped.blocked && continuations < MAXIMUM_STOP_HOOK_CONTINUATIONS) {
        continuations += 1;
        next = stopped.message ?? 'A SubagentStop hook asked you to continue.';
      }
    }
    return {
      text: last?.text ?? '',
      reason: last?.reason ?? 'aborted',
      ...(last?.error === undefined ? {} : { error: last.error }),
      toolUses,
      durationMs: Date.now() - started,
      usage: agent.usage(),
      totalTokens: totalOf(agent.requestUsage().at(-1)),
      model,
    };
  } finally {
    await agent.close('subagent ended');
  }
}

/** The tool result text of a finished synchronous subagent (Claude Code's shape, muster's words). */
export function formatSubagentResult(agentId: string, outcome: SubagentOutcome): string {
  const body =
    outcome.reason === 'completed'
      ? outcome.text
      : `The subagent did not finish (${outcome.reason}${outcome.error === undefined ? '' : `: ${outcome.error.message}`}).${outcome.text === '' ? '' : `\nIts last reply:\n${outcome.text}`}`;
  return `${body}\n\nagentId: ${agentId} (the id of this run)\n<usage>total_tokens: ${outcome.totalTokens}\ntool_uses: ${outcome.toolUses}\nduration_ms: ${outcome.durationMs}</usage>`;
}
