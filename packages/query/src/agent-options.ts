// Checks the options of `createAgent` before anything starts: each refusal names the option,
// what it got and what to pass instead.
import { isAbsolute } from 'node:path';
import type { AgentOptions } from './agent-types.js';
import { QueryError } from './query-error.js';

/** Default `max_tokens` per request. */
export const DEFAULT_MAX_TOKENS = 32_000;
/** Default requests per turn before it ends with `max_turns`. */
export const DEFAULT_MAX_REQUESTS_PER_TURN = 200;
/** Default `pause_turn` continuations per turn (R7). */
export const DEFAULT_MAX_PAUSE_CONTINUATIONS = 5;

function refuse(message: string): never {
  throw new QueryError({ code: 'INVALID_OPTIONS', message: `createAgent: ${message}` });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

function checkCount(name: string, value: unknown, minimum: number): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum) {
    refuse(`${name} must be an integer ≥ ${minimum}, got ${describe(value)}.`);
  }
}

/** Throws `QueryError('INVALID_OPTIONS')` when an option of `createAgent` is missing or malformed. */
export function checkAgentOptions(options: AgentOptions): void {
  if (typeof options !== 'object' || options === null) {
    refuse(
      `pass an options object ({ client, model, identity, system, tools, cwd, roots, authorize }), got ${describe(options)}.`,
    );
  }
  const { client, identity } = options;
  if (typeof client !== 'object' || client === null || typeof client.stream !== 'function') {
    refuse('client must be a ModelClient (createModelClient()), with a stream() method.');
  }
  const forkChild = options.fork !== undefined;
  if (
    (!forkChild || options.model !== undefined) &&
    (typeof options.model !== 'string' || options.model.trim() === '')
  ) {
    refuse(
      `model must be a model id or alias like "claude-sonnet-4-5", got ${describe(options.model)}.`,
    );
  }
  if (
    typeof identity !== 'object' ||
    identity === null ||
    typeof identity.name !== 'string' ||
    identity.name === '' ||
    typeof identity.id !== 'string' ||
    identity.id === ''
  ) {
    refuse('identity must be { name, id, teamName? } with a non-empty name and id.');
  }
  if (!forkChild && typeof options.system !== 'string' && !Array.isArray(options.system)) {
    refuse(`system must be a string or an array of text blocks, got ${describe(options.system)}.`);
  }
  if (!Array.isArray(options.tools)) {
    refuse(
      `tools must be an array of Tool objects (may be empty), got ${describe(options.tools)}.`,
    );
  }
  options.tools.forEach((tool, index) => {
    if (typeof tool !== 'object' || tool === null || typeof tool.call !== 'function') {
      refuse(`tools[${index}] is not a Tool: it needs name, description, inputSchema and call().`);
    }
    if (typeof tool.inputSchema?.safeParse !== 'function') {
      refuse(
        `tool "${String(tool.name)}" has no zod inputSchema; every call is checked against it.`,
      );
    }
    if (typeof tool.isReadOnly !== 'function' || typeof tool.isConcurrencySafe !== 'function') {
      refuse(`tool "${String(tool.name)}" needs isReadOnly(input) and isConcurrencySafe(input).`);
    }
  });
  if (typeof options.cwd !== 'string' || !isAbsolute(options.cwd)) {
    refuse(`cwd must be an absolute directory, got ${describe(options.cwd)}.`);
  }
  if (typeof options.roots !== 'function') {
    refuse(
      'roots must be a function returning { read, write } (rootsFromPermissionContext helps).',
    );
  }
  if (typeof options.authorize !== 'function') {
    refuse('authorize must be a ToolAuthorizer (createPermissionAuthorizer builds one).');
  }
  checkCount('maxTokens', options.maxTokens, 1);
  checkCount('maxRequestsPerTurn', options.maxRequestsPerTurn, 1);
  checkCount('maxPauseContinuations', options.maxPauseContinuations, 0);
  if (options.transcriptPath !== undefined) {
    if (typeof options.transcriptPath !== 'string' || options.transcriptPath === '') {
      refuse(`transcriptPath must be a file path, got ${describe(options.transcriptPath)}.`);
    }
  }
  if (options.compaction !== undefined) {
    const { thresholdTokens, preservedContext } = options.compaction;
    if (
      typeof thresholdTokens !== 'number' ||
      !Number.isFinite(thresholdTokens) ||
      thresholdTokens <= 0
    ) {
      refuse(
        `compaction.thresholdTokens must be a positive number of tokens, got ${describe(thresholdTokens)}.`,
      );
    }
    if (preservedContext !== undefined && typeof preservedContext !== 'function') {
      refuse('compaction.preservedContext must be a function returning the text to keep.');
    }
  }
  if (options.pendingInput !== undefined && typeof options.pendingInput !== 'function') {
    refuse(
      'pendingInput must be a function returning the content blocks waiting for the agent (or undefined).',
    );
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    refuse('signal must be an AbortSignal (the agent lifecycle signal).');
  }
  if (
    options.environment !== undefined &&
    (typeof options.environment !== 'object' || options.environment === null)
  ) {
    refuse(`environment must be an object like process.env, got ${describe(options.environment)}.`);
  }
  if (options.messages !== undefined && !Array.isArray(options.messages)) {
    refuse(
      `messages must be an array of conversation messages, got ${describe(options.messages)}.`,
    );
  }
}
