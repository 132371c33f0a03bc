// Which tools a spawned agent gets: the parent's pool passed through the filtering layers of
// seed 000 §3 (global deny → custom-agent deny → async allow → definition allow → definition
// deny), and for a teammate the team tools it cannot work without injected back (seed 003).
import type { AnyTool } from '@muster/query';
import type { AgentDefinition } from './agent-definition.js';
import { AgentDefinitionError } from './agent-definitions-error.js';

/**
 * Removed for every subagent (synchronous, background): only the main agent reads or stops
 * background tasks, enters or leaves plan mode, asks the person, or spawns agents (`Task` in the
 * 2.1.45 dialect, `Agent` in 2.1.330's).
 */
export const ALL_AGENT_DISALLOWED_TOOLS: readonly string[] = Object.freeze([
  'TaskOutput',
  'ExitPlanMode',
  'EnterPlanMode',
  'AskUserQuestion',
  'TaskStop',
  'Task',
  'Agent',
]);

/**
 * The global layer for a teammate instead of {@link ALL_AGENT_DISALLOWED_TOOLS}: a teammate has
 * no person to ask (its permission asks go to the lead) and its plan mode is the lead's choice at
 * spawn; it keeps `ExitPlanMode` (how a plan-mode teammate asks the lead to approve its plan) and
 * may start subagents.
 */
export const TEAMMATE_DISALLOWED_TOOLS: readonly string[] = Object.freeze([
  'AskUserQuestion',
  'EnterPlanMode',
]);

/**
 * Removed as well when the definition is not a built-in: a definition file (perhaps from a
 * cloned repository's `.claude/agents`) does not get to create or delete teams. Teammates get
 * both back with the team-essential tools, as the seeds describe.
 */
export const CUSTOM_AGENT_DISALLOWED_TOOLS: readonly string[] = Object.freeze([
  'TeamCreate',
  'TeamDelete',
]);

/** The only tools a background (async) subagent may have; MCP tools (`mcp__…`) always pass. */
export const ASYNC_AGENT_ALLOWED_TOOLS: readonly string[] = Object.freeze([
  'Read',
  'WebSearch',
  'TodoWrite',
  'Grep',
  'WebFetch',
  'Glob',
  'Bash',
  'PowerShell',
  'Edit',
  'Write',
  'NotebookEdit',
  'Skill',
  'StructuredOutput',
  'ToolSearch',
  'EnterWorktree',
  'ExitWorktree',
]);

/**
 * Always in a teammate's pool, whatever its definition says: without SendMessage it could not
 * answer a shutdown request, without the task tools it could not take or finish its work.
 */
export const TEAM_ESSENTIAL_TOOLS: readonly string[] = Object.freeze([
  'SendMessage',
  'TeamCreate',
  'TeamDelete',
  'TaskCreate',
  'TaskGet',
  'TaskList',
  'TaskUpdate',
]);

/** Tool names that mean the same tool in a definition (the spawn tool's two dialects). */
const TOOL_NAME_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  Task: 'Agent',
  Agent: 'Task',
});

/** Options of {@link resolveToolPool}. */
export interface ResolveToolPoolOptions {
  /** The parent's tools, in the order they are offered. */
  available: readonly AnyTool[];
  /** The agent type being started. */
  definition: AgentDefinition;
  /** A background agent (`run_in_background` or the definition's `background`). */
  async: boolean;
  /** A teammate: the teammate global layer, no async layer, and the team tools injected. */
  teammate: boolean;
  /** Where a teammate's team tools come from when `available` lacks them (`createTeamTools`). */
  teamTools?: readonly AnyTool[];
}

/** One tool the layers took out, and which layer did. */
export interface RemovedTool {
  /** The tool's name. */
  name: string;
  /** The layer and why, e.g. "not in the definition's tools (reviewer)". */
  reason: string;
}

/** What {@link resolveToolPool} decided. */
export interface ResolvedToolPool {
  /** The agent's tools, in the order of `available`, then injected team tools. */
  tools: AnyTool[];
  /** Every tool of `available` that is not in `tools`, with the reason. */
  removed: RemovedTool[];
  /** Things to tell a person: tool names in the definition that match no tool, and the like. */
  notices: string[];
}

/**
 * The tool pool of an agent started from `definition`. Layers, in order: the global deny list
 * ({@link ALL_AGENT_DISALLOWED_TOOLS}, or {@link TEAMMATE_DISALLOWED_TOOLS} for a teammate);
 * {@link CUSTOM_AGENT_DISALLOWED_TOOLS} when the definition is not a built-in; for a background
 * agent that is not a teammate, {@link ASYNC_AGENT_ALLOWED_TOOLS}; the definition's `tools`
 * (absent or `*` = everything left); the definition's `disallowedTools`. A teammate then gets
 * {@link TEAM_ESSENTIAL_TOOLS} back (from `available`, else from `teamTools`). `Bash(git:*)`
 * style entries count as their tool name; names matching no tool become notices.
 * Throws `AgentDefinitionError('INVALID_INPUT')` for malformed options.
 */
export function resolveToolPool(options: ResolveToolPoolOptions): ResolvedToolPool {
  const { available, definition, teamTools } = checkOptions(options);
  const notices: string[] = [];
  const reasons = new Map<string, string>();
  const remove = (name: string, reason: string) => {
    if (!reasons.has(name)) reasons.set(name, reason);
  };
  const names = available.map((tool) => tool.name);
  const globalDeny = options.teammate ? TEAMMATE_DISALLOWED_TOOLS : ALL_AGENT_DISALLOWED_TOOLS;
  const isMcp = (name: string) => name.startsWith('mcp__');
  for (const name of names) {
    if (!isMcp(name) && globalDeny.includes(name)) {
      remove(name, options.teammate ? 'not offered to teammates' : 'not offered to subagents');
    }
    if (
      !isMcp(name) &&
      definition.source !== 'built-in' &&
      CUSTOM_AGENT_DISALLOWED_TOOLS.includes(name)
    ) {
      remove(name, `not offered to agents defined outside muster (${definition.name})`);
    }
    if (
      options.async &&
      !options.teammate &&
      !isMcp(name) &&
      !ASYNC_AGENT_ALLOWED_TOOLS.includes(name)
    ) {
      remove(name, 'not offered to background agents');
    }
  }
  const known = new Set([...names, ...(teamTools ?? []).map((tool) => tool.name)]);
  const allowed = definitionNames(definition, 'tools', known, notices);
  if (allowed !== undefined) {
    for (const name of names) {
      if (!allowed.has(name)) remove(name, `not in the tools of ${definition.name}`);
    }
  }
  const denied = definitionNames(definition, 'disallowedTools', known, notices) ?? new Set();
  for (const name of names) {
    if (denied.has(name)) remove(name, `in the disallowedTools of ${definition.name}`);
  }
  const injected: AnyTool[] = [];
  if (options.teammate) {
    for (const name of TEAM_ESSENTIAL_TOOLS) {
      if (names.includes(name)) reasons.delete(name);
      else if (!teamTools?.some((tool) => tool.name === name)) {
        notices.push(`the teammate has no ${name} tool: pass it in teamTools (createTeamTools)`);
      }
    }
    const missing = (tool: AnyTool) =>
      TEAM_ESSENTIAL_TOOLS.includes(tool.name) && !names.includes(tool.name);
    injected.push(...(teamTools ?? []).filter(missing));
  }
  const tools = [...available.filter((tool) => !reasons.has(tool.name)), ...injected];
  const removed = names
    .filter((name) => reasons.has(name))
    .map((name) => ({ name, reason: reasons.get(name)! }));
  return { tools, removed, notices };
}

/** The names a definition field lists, aliases added; undefined for absent or `*`. */
function definitionNames(
  definition: AgentDefinition,
  field: 'tools' | 'disallowedTools',
  known: ReadonlySet<string>,
  notices: string[],
): Set<string> | undefined {
  const entries = definition[field];
  if (entries === undefined) return undefined;
  if (field === 'tools' && entries.includes('*')) return undefined;
  const result = new Set<string>();
  for (const entry of entries) {
    const name = entry.replace(/\(.*\)\s*$/s, '').trim();
    if (name !== entry.trim()) {
      notices.push(
        `${definition.name}: "${entry}" in ${field} counts as the whole ${name} tool; the part in parentheses is a permission rule, not applied to the tool pool`,
      );
    }
    result.add(name);
    const alias = TOOL_NAME_ALIASES[name];
    if (alias !== undefined) result.add(alias);
    if (!known.has(name) && (alias === undefined || !known.has(alias))) {
      notices.push(
        `${definition.name}: "${name}" in ${field} is not a tool this session offers; it is ignored (offered: ${[...known].join(', ')})`,
      );
    }
  }
  return result;
}

function checkOptions(options: ResolveToolPoolOptions): ResolveToolPoolOptions {
  const fail = (message: string): never => {
    throw new AgentDefinitionError({
      code: 'INVALID_INPUT',
      message: `resolveToolPool: ${message}`,
    });
  };
  if (typeof options !== 'object' || options === null) fail('pass an options object.');
  for (const [field, list] of [
    ['available', options.available],
    ['teamTools', options.teamTools ?? []],
  ] as const) {
    if (!Array.isArray(list)) fail(`\`${field}\` must be an array of tools.`);
    const seen = new Set<string>();
    for (const [index, tool] of list.entries()) {
      const name: unknown = (tool as { name?: unknown } | null)?.name;
      if (typeof name !== 'string' || name === '')
        fail(
          `${field}[${index}] has no name: pass tools from createBuiltInTools or createTeamTools.`,
        );
      if (seen.has(name as string))
        fail(`${field} has two tools named "${String(name)}": tool names must be unique.`);
      seen.add(name as string);
    }
  }
  const definition = options.definition as Partial<AgentDefinition> | undefined;
  if (typeof definition?.name !== 'string')
    fail('`definition` must be an agent definition (from loadAgentDefinitions).');
  for (const field of ['tools', 'disallowedTools'] as const) {
    const list: unknown = definition![field];
    if (
      list !== undefined &&
      (!Array.isArray(list) || !list.every((entry) => typeof entry === 'string'))
    ) {
      fail(`definition.${field} of ${definition!.name} must be a list of tool names.`);
    }
  }
  if (typeof options.async !== 'boolean' || typeof options.teammate !== 'boolean') {
    fail('`async` and `teammate` must be true or false.');
  }
  return options;
}
