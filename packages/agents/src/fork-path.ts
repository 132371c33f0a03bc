// The fork path: the `Agent` tool called without `subagent_type`. The child is made through
// query's fork API: it inherits the parent's rendered system prompt, tools and conversation
// byte for byte; only its directive (the prompt) differs. A fork inside a fork is refused (R13).
import {
  createAgent,
  QueryError,
  ToolError,
  type AgentEvent,
  type AnyTool,
  type ModelClient,
  type ToolAuthorizer,
  type ToolContext,
  type ForkSource,
  type ToolRoots,
} from '@muster/query';
import type { SubagentOutcome } from './subagent.js';

/** What a fork child runs with. */
export interface ForkPathOptions {
  /** The parent's tool call context. */
  context: ToolContext;
  /** From {@link takeForkSource} (taken before anything else happens). */
  source: ForkSource;
  /** The child's directive (the tool's `prompt`). */
  directive: string;
  /** This run's id. */
  agentId: string;
  client: ModelClient;
  /** What the child may run (names from the parent's tools). */
  tools: readonly AnyTool[];
  /** The child's working directory (a worktree's, when isolated). */
  cwd: string;
  roots: () => ToolRoots;
  authorize: ToolAuthorizer;
  environment: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
  /** The worktree the child works in instead of the parent's directory, if isolated. */
  worktree?: { parentCwd: string; path: string };
  onAgentEvent?: (event: AgentEvent) => void;
  transcriptPath?: string;
}

/** The directive notice of a fork that works in its own worktree: paths must be translated. */
export function worktreeForkNotice(parentCwd: string, worktreePath: string): string {
  return `You work in a git worktree of your own at ${worktreePath}, not in ${parentCwd}. Paths in the conversation above that start with ${parentCwd} refer to the same files under ${worktreePath}: translate them before you read or change anything, and make your changes only in the worktree.`;
}

/**
 * The caller's fork source. Throws `ToolError` (an `is_error` result) inside a fork child (R13)
 * or when the loop cannot fork.
 */
export function takeForkSource(context: ToolContext): ForkSource {
  if (context.forkSource === undefined) {
    throw new ToolError(
      'This agent cannot fork: its loop offers no fork source. Give subagent_type to start a fresh subagent instead.',
    );
  }
  try {
    return context.forkSource();
  } catch (error) {
    if (error instanceof QueryError && error.code === 'NESTED_FORK') {
      throw new ToolError(
        'You are a fork already and a fork cannot fork again. Do the work yourself, or start a fresh subagent by giving subagent_type.',
      );
    }
    throw error;
  }
}

/** Runs one fork child to the end of its turn. */
export async function runForkPath(options: ForkPathOptions): Promise<SubagentOutcome> {
  const { source } = options;
  const started = Date.now();
  const child = createAgent({
    client: options.client,
    identity: {
      name: options.agentId,
      id: options.agentId,
      ...(options.context.agent.teamName === undefined
        ? {}
        : { teamName: options.context.agent.teamName }),
    },
    tools: options.tools,
    cwd: options.cwd,
    roots: options.roots,
    authorize: options.authorize,
    environment: options.environment,
    signal: options.signal,
    ...(options.transcriptPath === undefined ? {} : { transcriptPath: options.transcriptPath }),
    fork: {
      source,
      directive: options.directive,
      ...(options.worktree === undefined
        ? {}
        : { notice: worktreeForkNotice(options.worktree.parentCwd, options.worktree.path) }),
    },
  });
  try {
    const turn = child.send();
    for await (const event of turn) options.onAgentEvent?.(event);
    const result = await turn.result;
    const last = child.requestUsage().at(-1);
    return {
      text: result.text,
      reason: result.reason,
      ...(result.error === undefined ? {} : { error: result.error }),
      toolUses: result.toolCalls,
      durationMs: Date.now() - started,
      usage: child.usage(),
      totalTokens:
        last === undefined
          ? 0
          : last.inputTokens +
            last.cacheCreationInputTokens +
            last.cacheReadInputTokens +
            last.outputTokens,
      model: source.model,
    };
  } finally {
    await child.close('fork ended');
  }
}
