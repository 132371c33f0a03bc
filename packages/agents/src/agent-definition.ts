// The shape of an agent definition: a built-in, or a Markdown file with YAML front matter in
// `.muster/agents/` or `.claude/agents/` (project or user level), with Claude Code's field names
// so existing definitions work unchanged. The loader is in agent-definitions-loader.ts.
import type { PermissionMode } from '@muster/protocol';

/** Where a definition came from, lowest precedence first (see the loader for the order). */
export type AgentDefinitionSource = 'built-in' | 'user' | 'project' | 'caller';

/** One agent type the Task/Agent tool can start (`subagent_type`). */
export interface AgentDefinition {
  /** The agent type (`subagent_type`): the front matter's `name`. */
  readonly name: string;
  /** When to use it: shown to the model in the Task tool's description. */
  readonly description: string;
  /** Allowed tool names; undefined or `['*']` means every tool the pool offers. */
  readonly tools?: readonly string[];
  /** Tool names removed after `tools` is applied. */
  readonly disallowedTools?: readonly string[];
  /** A model alias or id, or `inherit` (the parent's model); undefined = inherit. */
  readonly model?: string;
  /** The permission mode the agent starts in (never wider than its parent's, see the chain). */
  readonly permissionMode?: PermissionMode;
  /** The teammate color to use when spawned as a teammate. */
  readonly color?: string;
  /** `worktree`: the agent works in a git worktree of its own. */
  readonly isolation?: 'worktree';
  /** Always run in the background (as if `run_in_background: true`). */
  readonly background?: boolean;
  /** The agent's system prompt (the Markdown body). */
  readonly systemPrompt: string;
  /** Where it came from. */
  readonly source: AgentDefinitionSource;
  /** The file it was read from (absent for built-ins). */
  readonly path?: string;
}

/** A definition file that could not be loaded: the others still load. */
export interface AgentDefinitionProblem {
  /** The file. */
  readonly path: string;
  /** What is wrong and what to do, e.g. "front matter: `tools` must be a list of tool names". */
  readonly message: string;
}
