// One agent definition file: Markdown with YAML front matter, Claude Code's field names. The
// text is checked field by field; every problem names the field and what to write instead.
import { PERMISSION_MODES, type PermissionMode } from '@muster/protocol';
import { resolveModelName } from '@muster/query';
import { createRequire } from 'node:module';
import type { AgentDefinition, AgentDefinitionSource } from './agent-definition.js';

type Yaml = typeof import('yaml');
let yaml: Yaml | undefined;

/**
 * The yaml package (CommonJS, about 50 files), loaded when the first definition file is parsed:
 * a session without agent definition files does not pay for loading it at start-up.
 */
function loadYaml(): Yaml {
  yaml ??= createRequire(import.meta.url)('yaml') as Yaml;
  return yaml;
}

/** The front matter fields muster reads; any other field is ignored and reported as a notice. */
export const AGENT_DEFINITION_FIELDS = [
  'name',
  'description',
  'tools',
  'disallowedTools',
  'model',
  'permissionMode',
  'color',
  'isolation',
  'background',
] as const;

/** What an agent type (`subagent_type`, a definition's `name`) may look like. */
export const AGENT_TYPE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The result of parsing one definition file: a definition and its notices, or what is wrong. */
export type ParsedAgentDefinition =
  { ok: true; definition: AgentDefinition; notices: string[] } | { ok: false; message: string };

const frontMatterPattern = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

/**
 * Parses the text of one definition file read from `path`. Never throws for bad content: a
 * file without front matter, with YAML that does not parse, without `name` or `description`,
 * with an invalid agent type or a field of the wrong kind comes back as `{ ok: false, message }`.
 */
export function parseAgentDefinition(
  text: string,
  path: string,
  source: AgentDefinitionSource,
): ParsedAgentDefinition {
  const match = frontMatterPattern.exec(text);
  if (match === null) {
    return fail(
      'no front matter: start the file with a line "---", then YAML with at least `name` and `description`, then a line "---" and the prompt',
    );
  }
  const document = loadYaml().parseDocument(match[1] ?? '', {
    prettyErrors: false,
    uniqueKeys: true,
  });
  if (document.errors.length > 0) {
    return fail(`front matter is not valid YAML: ${document.errors[0]!.message.split('\n')[0]}`);
  }
  const fields: unknown = document.toJS() ?? {};
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    return fail('front matter must be a YAML mapping of fields (`name: reviewer` …)');
  }
  const record = fields as Record<string, unknown>;
  const notices: string[] = [];
  const unknown = Object.keys(record).filter(
    (key) => !(AGENT_DEFINITION_FIELDS as readonly string[]).includes(key),
  );
  if (unknown.length > 0) {
    notices.push(
      `ignored front matter field${unknown.length === 1 ? '' : 's'} ${unknown.map((key) => `\`${key}\``).join(', ')}: muster reads ${AGENT_DEFINITION_FIELDS.join(', ')}`,
    );
  }
  try {
    const name = requiredText(record, 'name');
    if (!AGENT_TYPE_PATTERN.test(name)) {
      throw new FieldProblem(
        `\`name\` ${JSON.stringify(name.slice(0, 80))} is not a valid agent type: use 1 to 64 letters, digits, "-" or "_", starting with a letter or digit (e.g. "code-reviewer")`,
      );
    }
    const description = requiredText(record, 'description');
    const systemPrompt = text.slice(match[0].length).trim();
    if (systemPrompt === '') {
      notices.push('the file has no prompt below the front matter: the default prompt is used');
    }
    const definition: AgentDefinition = {
      name,
      description,
      ...optional('tools', toolList(record, 'tools')),
      ...optional('disallowedTools', toolList(record, 'disallowedTools')),
      ...optional('model', modelOf(record)),
      ...optional('permissionMode', permissionModeOf(record)),
      ...optional('color', optionalText(record, 'color')),
      ...optional('isolation', isolationOf(record)),
      ...optional('background', backgroundOf(record)),
      systemPrompt,
      source,
      path,
    };
    return { ok: true, definition, notices };
  } catch (error) {
    if (error instanceof FieldProblem) return fail(error.message);
    throw error;
  }
}

class FieldProblem extends Error {}

function fail(message: string): ParsedAgentDefinition {
  return { ok: false, message };
}

function optional<Key extends string, Value>(
  key: Key,
  value: Value | undefined,
): { [K in Key]?: Value } {
  return (value === undefined ? {} : { [key]: value }) as { [K in Key]?: Value };
}

function requiredText(record: Record<string, unknown>, field: string): string {
  const value = record[field];
  if (value === undefined || value === null) {
    throw new FieldProblem(`front matter has no \`${field}\`: add \`${field}: …\``);
  }
  if (typeof value !== 'string' || value.trim() === '') {
    throw new FieldProblem(`\`${field}\` must be non-empty text`);
  }
  return value.trim();
}

function optionalText(record: Record<string, unknown>, field: string): string | undefined {
  const value = record[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new FieldProblem(`\`${field}\` must be non-empty text when given`);
  }
  return value.trim();
}

/** `tools: Read, Grep` or `tools: [Read, Grep]`; entries trimmed, empty ones dropped. */
function toolList(record: Record<string, unknown>, field: string): string[] | undefined {
  const value = record[field];
  if (value === undefined || value === null) return undefined;
  const entries =
    typeof value === 'string'
      ? value.split(',')
      : Array.isArray(value) && value.every((entry) => typeof entry === 'string')
        ? (value as string[])
        : undefined;
  if (entries === undefined) {
    throw new FieldProblem(
      `\`${field}\` must be a list of tool names or one comma-separated string (e.g. "Read, Grep, Glob")`,
    );
  }
  return entries.map((entry) => entry.trim()).filter((entry) => entry !== '');
}

function modelOf(record: Record<string, unknown>): string | undefined {
  const model = optionalText(record, 'model');
  if (model === undefined || model.toLowerCase() === 'inherit') return model;
  try {
    resolveModelName(model, { environment: {} });
  } catch (error) {
    throw new FieldProblem(`\`model\`: ${(error as Error).message}`);
  }
  return model;
}

function permissionModeOf(record: Record<string, unknown>): PermissionMode | undefined {
  const mode = optionalText(record, 'permissionMode');
  if (mode === undefined) return undefined;
  if (!(PERMISSION_MODES as readonly string[]).includes(mode)) {
    throw new FieldProblem(
      `\`permissionMode\` ${JSON.stringify(mode.slice(0, 40))} is not a permission mode: use one of ${PERMISSION_MODES.join(', ')}`,
    );
  }
  return mode as PermissionMode;
}

function isolationOf(record: Record<string, unknown>): 'worktree' | undefined {
  const isolation = optionalText(record, 'isolation');
  if (isolation === undefined) return undefined;
  if (isolation !== 'worktree') {
    throw new FieldProblem(
      `\`isolation\` ${JSON.stringify(isolation.slice(0, 40))} is not supported: the only value is "worktree" (leave the field out to work in the parent's directory)`,
    );
  }
  return isolation;
}

function backgroundOf(record: Record<string, unknown>): boolean | undefined {
  const value = record['background'];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') {
    throw new FieldProblem('`background` must be true or false');
  }
  return value;
}
