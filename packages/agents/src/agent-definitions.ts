// Loads every agent type a session can start: the built-ins, then Markdown definitions from
// the user's and the project's `.claude/agents` and `.muster/agents` folders, then the caller's
// own. A later level replaces an earlier definition of the same name; a bad file is reported
// and the others still load.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type {
  AgentDefinition,
  AgentDefinitionProblem,
  AgentDefinitionSource,
} from './agent-definition.js';
import { AgentDefinitionError } from './agent-definitions-error.js';
import { listDefinitionFiles, readDefinitionFile } from './agent-definitions-files.js';
import { AGENT_TYPE_PATTERN, parseAgentDefinition } from './agent-definitions-parse.js';
import { BUILT_IN_AGENTS } from './built-in-agents.js';

/** Options of {@link loadAgentDefinitions}. */
export interface LoadAgentDefinitionsOptions {
  /** The project directory: `<cwd>/.claude/agents` and `<cwd>/.muster/agents` are read. */
  cwd: string;
  /** The user's home: `<home>/.claude/agents` and `<home>/.muster/agents` are read. */
  home: string;
  /** Definitions the program adds; they win over every file and built-in of the same name. */
  extra?: readonly AgentDefinition[];
}

/** What {@link loadAgentDefinitions} found. */
export interface LoadedAgentDefinitions {
  /** Every agent type by name, after precedence (built-ins first in iteration order). */
  definitions: ReadonlyMap<string, AgentDefinition>;
  /** Files that could not be used, each with what is wrong. */
  problems: AgentDefinitionProblem[];
  /** Files that loaded with something to know (ignored fields, an empty prompt). */
  notices: AgentDefinitionProblem[];
}

/** One folder definitions are read from, lowest precedence first. */
export interface AgentDefinitionFolder {
  /** The folder's path. */
  folder: string;
  /** The level its definitions get. */
  source: AgentDefinitionSource;
}

/**
 * The definition folders in precedence order, lowest first: user `.claude`, user `.muster`,
 * project `.claude`, project `.muster`. At one level `.muster` wins over `.claude`: a file in
 * muster's own folder was written for muster, while `.claude` is shared with Claude Code.
 */
export function agentDefinitionFolders(cwd: string, home: string): AgentDefinitionFolder[] {
  return [
    { folder: path.join(home, '.claude', 'agents'), source: 'user' },
    { folder: path.join(home, '.muster', 'agents'), source: 'user' },
    { folder: path.join(cwd, '.claude', 'agents'), source: 'project' },
    { folder: path.join(cwd, '.muster', 'agents'), source: 'project' },
  ];
}

/**
 * Loads the agent types: built-ins, then `*.md` files in the folders of
 * {@link agentDefinitionFolders} and their subfolders (sorted by path), then `extra`; a later
 * one replaces an earlier one of the same name. Files are read without following links out of their folder,
 * and a file that cannot be used (no front matter, bad YAML, a missing or invalid field, a
 * link leading outside, more than 256 KiB) becomes a problem while the others still load.
 * Throws `AgentDefinitionError('INVALID_INPUT')` for a bad `cwd`, `home` or `extra` entry.
 */
export async function loadAgentDefinitions(
  options: LoadAgentDefinitionsOptions,
): Promise<LoadedAgentDefinitions> {
  const cwd = absoluteDirectory(options?.cwd, 'cwd');
  const home = absoluteDirectory(options?.home, 'home');
  const extra = checkExtra(options.extra ?? []);
  const definitions = new Map<string, AgentDefinition>();
  for (const definition of BUILT_IN_AGENTS) definitions.set(definition.name, definition);
  const problems: AgentDefinitionProblem[] = [];
  const notices: AgentDefinitionProblem[] = [];
  const seenFolders = new Set<string>();
  for (const { folder, source } of agentDefinitionFolders(cwd, home)) {
    const found = await readFolder(folder, source, seenFolders, problems, notices);
    for (const definition of found) definitions.set(definition.name, definition);
  }
  for (const definition of extra) definitions.set(definition.name, definition);
  return { definitions, problems, notices };
}

function absoluteDirectory(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '' || !path.isAbsolute(value)) {
    throw new AgentDefinitionError({
      code: 'INVALID_INPUT',
      message: `loadAgentDefinitions: \`${name}\` must be an absolute directory path, got ${JSON.stringify(value)}. Pass e.g. process.cwd() or os.homedir().`,
      details: { [name]: value },
    });
  }
  return path.resolve(value);
}

function checkExtra(extra: readonly AgentDefinition[]): readonly AgentDefinition[] {
  if (!Array.isArray(extra)) {
    throw new AgentDefinitionError({
      code: 'INVALID_INPUT',
      message: 'loadAgentDefinitions: `extra` must be an array of agent definitions.',
    });
  }
  for (const [index, definition] of extra.entries()) {
    const name: unknown = definition?.name;
    if (typeof name !== 'string' || !AGENT_TYPE_PATTERN.test(name)) {
      throw new AgentDefinitionError({
        code: 'INVALID_INPUT',
        message: `loadAgentDefinitions: extra[${index}].name ${JSON.stringify(name)} is not a valid agent type: use 1 to 64 letters, digits, "-" or "_", starting with a letter or digit.`,
        details: { index, name },
      });
    }
    if (typeof definition.description !== 'string' || typeof definition.systemPrompt !== 'string') {
      throw new AgentDefinitionError({
        code: 'INVALID_INPUT',
        message: `loadAgentDefinitions: extra[${index}] ("${name}") needs a text \`description\` and \`systemPrompt\`.`,
        details: { index, name },
      });
    }
  }
  return extra;
}

async function readFolder(
  folder: string,
  source: AgentDefinitionSource,
  seenFolders: Set<string>,
  problems: AgentDefinitionProblem[],
  notices: AgentDefinitionProblem[],
): Promise<AgentDefinition[]> {
  let realFolder: string;
  try {
    realFolder = await realpath(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    problems.push({
      path: folder,
      message: `cannot resolve the agent definitions folder (${code ?? String(error)}): make it a readable directory or remove it`,
    });
    return [];
  }
  if (seenFolders.has(realFolder)) return [];
  seenFolders.add(realFolder);
  const found: AgentDefinition[] = [];
  const fileOfName = new Map<string, string>();
  const names = await listDefinitionFiles(realFolder, folder, problems);
  for (const name of names) {
    const shownPath = path.join(folder, name);
    const text = await readDefinitionFile(realFolder, name, shownPath, problems);
    if (text === undefined) continue;
    const parsed = parseAgentDefinition(text, shownPath, source);
    if (!parsed.ok) {
      problems.push({ path: shownPath, message: parsed.message });
      continue;
    }
    const earlier = fileOfName.get(parsed.definition.name);
    if (earlier !== undefined) {
      problems.push({
        path: shownPath,
        message: `defines the agent type "${parsed.definition.name}" again (${earlier} defines it too): rename one; the first by path is used`,
      });
      continue;
    }
    fileOfName.set(parsed.definition.name, shownPath);
    for (const message of parsed.notices) notices.push({ path: shownPath, message });
    found.push(parsed.definition);
  }
  return found;
}
