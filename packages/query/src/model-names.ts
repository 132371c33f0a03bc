// Model ids and aliases. An agent names its model by id (`claude-sonnet-5-5`) or by alias
// (`sonnet`); aliases resolve to the newest id of that family that @anthropic-ai/sdk 1.12.0
// knows, unless the environment points them elsewhere with the variables Claude Code reads.
import { QueryError } from './query-error.js';

/** The aliases muster understands and the id each resolves to by default. */
export const MODEL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  opus: 'claude-opus-5-5',
  sonnet: 'claude-sonnet-5-5',
  haiku: 'claude-haiku-5-5',
  fable: 'claude-fable-5-2',
  mythos: 'claude-mythos-5-2',
});

/**
 * Environment variables that override an alias, as Claude Code reads them
 * (`ANTHROPIC_DEFAULT_SONNET_MODEL=claude-sonnet-4-6` makes `sonnet` mean that id).
 */
export const MODEL_ALIAS_VARIABLES: Readonly<Record<string, string>> = Object.freeze({
  opus: 'ANTHROPIC_DEFAULT_OPUS_MODEL',
  sonnet: 'ANTHROPIC_DEFAULT_SONNET_MODEL',
  haiku: 'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  fable: 'ANTHROPIC_DEFAULT_FABLE_MODEL',
  mythos: 'ANTHROPIC_DEFAULT_MYTHOS_MODEL',
});

const modelIdPattern = /^[A-Za-z0-9][A-Za-z0-9._:@/[\]-]*$/;

/** Options of `resolveModelName`. */
export interface ResolveModelOptions {
  /** Where alias overrides are read (default `process.env`). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Extra or replacing aliases (`{ fast: 'claude-haiku-5-5' }`). */
  aliases?: Readonly<Record<string, string>>;
}

function checkModelId(value: string, source: string): string {
  if (value.length > 200 || !modelIdPattern.test(value)) {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: `${source} ${JSON.stringify(value.slice(0, 80))} is not a model id: use letters, digits and . _ : @ / [ ] - (at most 200), e.g. "claude-sonnet-5-5" or an alias (${Object.keys(MODEL_ALIASES).join(', ')}).`,
      details: { model: value },
    });
  }
  return value;
}

/**
 * The model id to send for `nameOrAlias`: an alias (case-insensitive) becomes its id — from
 * the environment override when set, else from `MODEL_ALIASES` — and any other value is
 * taken as an id, after checking it looks like one. Throws `QueryError('INVALID_OPTIONS')`
 * naming the bad value.
 */
export function resolveModelName(nameOrAlias: string, options: ResolveModelOptions = {}): string {
  if (typeof nameOrAlias !== 'string' || nameOrAlias.trim() === '') {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: `The model is empty: give a model id such as "claude-sonnet-5-5" or an alias (${Object.keys(MODEL_ALIASES).join(', ')}).`,
    });
  }
  const environment = options.environment ?? process.env;
  const aliases = { ...MODEL_ALIASES, ...options.aliases };
  const key = nameOrAlias.trim().toLowerCase();
  if (Object.hasOwn(aliases, key)) {
    const variable = MODEL_ALIAS_VARIABLES[key];
    const override = variable === undefined ? undefined : environment[variable]?.trim();
    if (override) return checkModelId(override, `${variable}`);
    return checkModelId(aliases[key]!, `The alias "${key}" maps to`);
  }
  return checkModelId(nameOrAlias.trim(), 'The model');
}
