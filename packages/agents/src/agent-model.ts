// The model a spawned agent runs on (seed 000 §4): the environment's override, then the
// Task/Agent tool's `model`, then the definition's `model`, then the parent's model. Aliases
// (`sonnet`, `opus`, …) resolve through @muster/query's resolveModelName.
import { resolveModelName } from '@muster/query';
import type { AgentDefinition } from './agent-definition.js';
import { AgentDefinitionError } from './agent-definitions-error.js';

/** muster's own variable forcing every subagent's and teammate's model; wins over Claude Code's. */
export const SUBAGENT_MODEL_VARIABLE = 'MUSTER_SUBAGENT_MODEL';
/** Claude Code's variable, honoured for compatibility when muster's is not set. */
export const CLAUDE_CODE_SUBAGENT_MODEL_VARIABLE = 'CLAUDE_CODE_SUBAGENT_MODEL';

/** Where the chosen model came from. */
export type AgentModelSource =
  | typeof SUBAGENT_MODEL_VARIABLE
  | typeof CLAUDE_CODE_SUBAGENT_MODEL_VARIABLE
  | 'tool'
  | 'definition'
  | 'parent';

/** Options of {@link resolveAgentModel}. */
export interface ResolveAgentModelOptions {
  /** Where the override variables and the alias variables are read (usually `process.env`). */
  environment: Readonly<Record<string, string | undefined>>;
  /** The Task/Agent tool's `model` parameter, when the model gave one. */
  toolModel?: string;
  /** The agent type being started. */
  definition?: Pick<AgentDefinition, 'name' | 'model' | 'path'>;
  /** The model of the agent that spawns it (an id or an alias). */
  parentModel: string;
}

/** The model id to use and which link of the chain chose it. */
export interface ResolvedAgentModel {
  /** The model id (aliases resolved). */
  model: string;
  /** Which link chose it. */
  source: AgentModelSource;
}

/**
 * The model of a spawned agent. The first of these that is set and is not `inherit` wins:
 * `MUSTER_SUBAGENT_MODEL`, `CLAUDE_CODE_SUBAGENT_MODEL` (an empty variable counts as not set),
 * `toolModel`, `definition.model`; otherwise `parentModel`. The winner is resolved with
 * `resolveModelName` (alias variables read from `environment`). A value that is not a model
 * id or alias throws `AgentDefinitionError('INVALID_MODEL')` naming where it came from.
 */
export function resolveAgentModel(options: ResolveAgentModelOptions): ResolvedAgentModel {
  if (typeof options !== 'object' || options === null) {
    throw invalidInput('pass { environment, toolModel?, definition?, parentModel }.');
  }
  const { environment, toolModel, definition, parentModel } = options;
  if (typeof environment !== 'object' || environment === null) {
    throw invalidInput('`environment` must be an object of variables (e.g. process.env).');
  }
  if (typeof parentModel !== 'string' || parentModel.trim() === '') {
    throw invalidInput("`parentModel` must be the spawning agent's model id or alias.");
  }
  const candidates: { value: unknown; source: AgentModelSource; described: string }[] = [
    {
      value: nonEmpty(environment[SUBAGENT_MODEL_VARIABLE]),
      source: SUBAGENT_MODEL_VARIABLE,
      described: `the environment variable ${SUBAGENT_MODEL_VARIABLE}`,
    },
    {
      value: nonEmpty(environment[CLAUDE_CODE_SUBAGENT_MODEL_VARIABLE]),
      source: CLAUDE_CODE_SUBAGENT_MODEL_VARIABLE,
      described: `the environment variable ${CLAUDE_CODE_SUBAGENT_MODEL_VARIABLE}`,
    },
    { value: toolModel, source: 'tool', described: "the Task tool's `model` parameter" },
    {
      value: definition?.model,
      source: 'definition',
      described: `the \`model\` of the agent definition "${definition?.name ?? '?'}"${definition?.path === undefined ? '' : ` (${definition.path})`}`,
    },
    { value: parentModel, source: 'parent', described: "the parent agent's model" },
  ];
  for (const { value, source, described } of candidates) {
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.trim() === '') {
      throw invalidModel(described, value, 'it must be a model id or alias');
    }
    if (source !== 'parent' && value.trim().toLowerCase() === 'inherit') continue;
    try {
      return { model: resolveModelName(value, { environment }), source };
    } catch (error) {
      throw invalidModel(described, value, (error as Error).message, error);
    }
  }
  /* c8 ignore next: parentModel was checked above and always ends the loop. */
  throw invalidInput("`parentModel` must be the spawning agent's model id or alias.");
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function invalidInput(message: string): AgentDefinitionError {
  return new AgentDefinitionError({
    code: 'INVALID_INPUT',
    message: `resolveAgentModel: ${message}`,
  });
}

function invalidModel(
  described: string,
  value: unknown,
  reason: string,
  cause?: unknown,
): AgentDefinitionError {
  return new AgentDefinitionError({
    code: 'INVALID_MODEL',
    message: `The model ${JSON.stringify(value)} from ${described} cannot be used: ${reason} Fix or remove it, or use "inherit" to take the parent's model.`,
    details: { value, from: described },
    ...(cause === undefined ? {} : { cause }),
  });
}
