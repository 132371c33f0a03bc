// The system prompt chain (seed 000 §4): an override replaces everything; otherwise the agent's
// own prompt, else the caller's custom prompt, else the default, followed by the environment
// section and the appended text. Pure and byte-stable: the same input gives the same bytes.
import path from 'node:path';
import { AgentDefinitionError } from './agent-definitions-error.js';

/** What the environment section tells the model; every field comes from the caller. */
export interface SystemPromptEnvironment {
  /** The agent's working directory (absolute). */
  cwd: string;
  /** The model id the agent runs on. */
  model: string;
  /** The names of the agent's tools, in the order it is offered them. */
  toolNames: readonly string[];
  /** The platform (`process.platform`: `linux`, `darwin`, …). */
  platform: string;
  /** Today's date as `YYYY-MM-DD` (passed in so the prompt does not change within a day). */
  date: string;
  /** The root of the git repository the cwd is in, when it is in one. */
  gitRoot?: string;
}

/** Options of {@link buildSystemPrompt}, highest precedence first. */
export interface BuildSystemPromptOptions {
  /** Replaces the whole prompt: nothing else is added, not even the environment. */
  override?: string;
  /** The agent definition's prompt: replaces `custom` and `defaultPrompt`. */
  agentPrompt?: string;
  /** The caller's prompt (`--system-prompt`): replaces `defaultPrompt`. */
  custom?: string;
  /** muster's default prompt (see `DEFAULT_AGENT_PROMPT`, `teammateSystemPrompt`). */
  defaultPrompt: string;
  /** Added at the very end (`--append-system-prompt`, a teammate's team section). */
  append?: string;
  /** The environment section, placed after the chosen prompt. */
  environment: SystemPromptEnvironment;
}

const datePattern = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/**
 * The system prompt text of one agent. `override`, when given and not empty, is returned as is.
 * Otherwise the first non-empty of `agentPrompt`, `custom` and `defaultPrompt`, then the
 * environment section, then `append`, joined by one blank line (trailing white space of each
 * part removed). Throws `AgentDefinitionError('INVALID_INPUT')` naming the bad field.
 */
export function buildSystemPrompt(options: BuildSystemPromptOptions): string {
  checkOptions(options);
  if (present(options.override)) return options.override;
  const base = [options.agentPrompt, options.custom].find(present) ?? options.defaultPrompt;
  const parts = [base, environmentSection(options.environment)];
  if (present(options.append)) parts.push(options.append);
  return parts.map((part) => part.trimEnd()).join('\n\n');
}

/** The environment section alone, as {@link buildSystemPrompt} places it. */
export function environmentSection(environment: SystemPromptEnvironment): string {
  checkEnvironment(environment);
  const lines = [
    '# Environment',
    `- Working directory: ${environment.cwd}`,
    environment.gitRoot === undefined
      ? '- Git repository: none (the working directory is not inside one)'
      : `- Git repository root: ${environment.gitRoot}`,
    `- Platform: ${environment.platform}`,
    `- Date: ${environment.date}`,
    `- Model: ${environment.model}`,
    `- Tools: ${environment.toolNames.length === 0 ? 'none' : environment.toolNames.join(', ')}`,
  ];
  return lines.join('\n');
}

function present(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}

function invalid(message: string): AgentDefinitionError {
  return new AgentDefinitionError({
    code: 'INVALID_INPUT',
    message: `buildSystemPrompt: ${message}`,
  });
}

function checkOptions(options: BuildSystemPromptOptions): void {
  if (typeof options !== 'object' || options === null) throw invalid('pass an options object.');
  for (const field of ['override', 'agentPrompt', 'custom', 'append'] as const) {
    const value: unknown = options[field];
    if (value !== undefined && typeof value !== 'string') {
      throw invalid(`\`${field}\` must be text when given, got ${typeof value}.`);
    }
  }
  if (typeof options.defaultPrompt !== 'string' || options.defaultPrompt.trim() === '') {
    throw invalid('`defaultPrompt` must be non-empty text: pass DEFAULT_AGENT_PROMPT or your own.');
  }
  checkEnvironment(options.environment);
}

function checkEnvironment(environment: SystemPromptEnvironment): void {
  if (typeof environment !== 'object' || environment === null) {
    throw invalid('`environment` must be { cwd, model, toolNames, platform, date, gitRoot? }.');
  }
  const { cwd, model, toolNames, platform, date, gitRoot } = environment;
  if (typeof cwd !== 'string' || !path.isAbsolute(cwd)) {
    throw invalid(`environment.cwd must be an absolute path, got ${JSON.stringify(cwd)}.`);
  }
  if (gitRoot !== undefined && (typeof gitRoot !== 'string' || !path.isAbsolute(gitRoot))) {
    throw invalid(
      `environment.gitRoot must be an absolute path when given, got ${JSON.stringify(gitRoot)}.`,
    );
  }
  for (const [field, value] of [
    ['model', model],
    ['platform', platform],
  ] as const) {
    if (typeof value !== 'string' || value.trim() === '' || /[\r\n]/.test(value)) {
      throw invalid(`environment.${field} must be one line of text, got ${JSON.stringify(value)}.`);
    }
  }
  if (typeof date !== 'string' || !datePattern.test(date)) {
    throw invalid(
      `environment.date must be a date such as "2026-11-24", got ${JSON.stringify(date)}.`,
    );
  }
  if (
    !Array.isArray(toolNames) ||
    !toolNames.every((name) => typeof name === 'string' && /^[^\s,]+$/.test(name))
  ) {
    throw invalid('environment.toolNames must be a list of tool names (no spaces or commas).');
  }
}
