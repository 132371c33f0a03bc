/**
 * One-line replies for scripts: `text('…')`, `toolUse(name, input)`, `thinking('…')`,
 * `reply({...})`, `fault(kind, options)` and `sequence([...])`. Every builder checks what it
 * is given and throws a clear `TypeError` naming the bad field, so a script's mistake shows
 * up where it was made and not as a malformed stream.
 */
import { agentNameOf } from './script-helpers-tellers.js';
import type {
  Fault,
  Reply,
  ReplyBlock,
  Script,
  ScriptContext,
  ScriptRequest,
  StopReason,
  StreamShape,
} from './types.js';

const STOP_REASONS: readonly StopReason[] = [
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
];

/** Options every one-line reply accepts besides its content. */
export interface ReplyOptions {
  /** Stop reason; default `tool_use` when the reply has a tool_use block, else `end_turn`. */
  stopReason?: StopReason;
  /** A fault to inject while sending this reply (build it with `fault()`). */
  fault?: Fault;
  /** How the stream is cut and paced. */
  stream?: StreamShape;
  /** Output tokens to report instead of the estimate. */
  outputTokens?: number;
}

/** What `reply()` accepts: content as blocks, strings (text blocks) or whole replies (their content). */
export interface ReplySpec extends ReplyOptions {
  /** The reply's blocks in order; a string is a text block, a Reply contributes its content. */
  content?: ReadonlyArray<ReplyBlock | Reply | string>;
}

/** A reply with one text block: `text('Done.')`. */
export function text(value: string, options: ReplyOptions = {}): Reply {
  return reply({ ...options, content: [value] });
}

/**
 * A reply with one tool_use block: `toolUse('Read', { file_path: '/repo/a.js' })`. The id is
 * generated (`toolu_…`) by the server when not given.
 */
export function toolUse(
  name: string,
  input: Record<string, unknown>,
  id?: string,
  options: ReplyOptions = {},
): Reply {
  const block: ReplyBlock =
    id === undefined ? { type: 'tool_use', name, input } : { type: 'tool_use', id, name, input };
  return reply({ ...options, content: [block] });
}

/** A reply with one thinking block (and an optional signature). */
export function thinking(value: string, signature?: string, options: ReplyOptions = {}): Reply {
  const block: ReplyBlock =
    signature === undefined
      ? { type: 'thinking', thinking: value }
      : { type: 'thinking', thinking: value, signature };
  return reply({ ...options, content: [block] });
}

/**
 * Builds a checked Reply from blocks, strings and other replies:
 * `reply({ content: [thinking('…'), 'Let me look.', toolUse('Read', {...})] })`.
 * Throws a TypeError naming the first bad field.
 */
export function reply(spec: ReplySpec): Reply {
  if (spec === null || typeof spec !== 'object')
    throw new TypeError('reply(): expected an object like { content: [...] }');
  const content: ReplyBlock[] = [];
  for (const item of spec.content ?? []) {
    if (typeof item === 'string') content.push({ type: 'text', text: item });
    else if (
      item !== null &&
      typeof item === 'object' &&
      'content' in item &&
      Array.isArray(item.content)
    ) {
      content.push(...item.content);
    } else content.push(item as ReplyBlock);
  }
  content.forEach((block, position) => checkBlock(block, position));
  const result: Reply = { content };
  if (spec.stopReason !== undefined) {
    if (!STOP_REASONS.includes(spec.stopReason)) {
      throw new TypeError(
        `reply(): stopReason "${String(spec.stopReason)}" is not one of ${STOP_REASONS.join(', ')}`,
      );
    }
    result.stopReason = spec.stopReason;
  }
  if (spec.fault !== undefined) result.fault = checkFault(spec.fault);
  if (spec.stream !== undefined) result.stream = spec.stream;
  if (spec.outputTokens !== undefined) {
    if (!Number.isInteger(spec.outputTokens) || spec.outputTokens < 0) {
      throw new TypeError(
        `reply(): outputTokens must be a whole number ≥ 0, got ${String(spec.outputTokens)}`,
      );
    }
    result.outputTokens = spec.outputTokens;
  }
  return result;
}

function checkBlock(block: ReplyBlock, position: number): void {
  const where = `reply(): content[${position}]`;
  if (block === null || typeof block !== 'object')
    throw new TypeError(`${where} must be a block object or a string`);
  switch (block.type) {
    case 'text':
      if (typeof block.text !== 'string') throw new TypeError(`${where}.text must be a string`);
      return;
    case 'thinking':
      if (typeof block.thinking !== 'string')
        throw new TypeError(`${where}.thinking must be a string`);
      if (block.signature !== undefined && typeof block.signature !== 'string') {
        throw new TypeError(`${where}.signature must be a string when given`);
      }
      return;
    case 'tool_use':
      if (typeof block.name !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(block.name)) {
        throw new TypeError(
          `${where}.name must be a tool name (letters, digits, _ or -), got ${JSON.stringify(block.name)}`,
        );
      }
      if (block.input === null || typeof block.input !== 'object' || Array.isArray(block.input)) {
        throw new TypeError(`${where}.input of tool_use "${block.name}" must be a JSON object`);
      }
      if (
        block.id !== undefined &&
        (typeof block.id !== 'string' || !/^[a-zA-Z0-9_-]+$/.test(block.id))
      ) {
        throw new TypeError(
          `${where}.id must match [a-zA-Z0-9_-]+ when given, got ${JSON.stringify(block.id)}`,
        );
      }
      return;
    default:
      throw new TypeError(
        `${where}.type must be text, tool_use or thinking, got ${JSON.stringify((block as { type?: unknown }).type)}`,
      );
  }
}

type FaultKind = Fault['kind'];
/** The options of one fault kind (its fields without `kind`). */
export type FaultOptions<K extends FaultKind> = Omit<Extract<Fault, { kind: K }>, 'kind'>;

/**
 * A reply that injects a fault: `fault('http-error', { status: 529, errorType: 'overloaded_error' })`,
 * `fault('socket-reset', { afterEvents: 4 }, text('half a'))`. `base` is the reply sent until the
 * fault strikes (default: an empty text). Options are checked per kind.
 */
export function fault<K extends FaultKind>(
  kind: K,
  ...rest: Partial<FaultOptions<K>> extends FaultOptions<K>
    ? [options?: FaultOptions<K>, base?: Reply]
    : [options: FaultOptions<K>, base?: Reply]
): Reply {
  const [options, base] = rest;
  const spec = { kind, ...(options ?? {}) } as Fault;
  const checked = checkFault(spec);
  const from = base ?? text('');
  return { ...from, fault: checked };
}

function isWhole(value: unknown, minimum = 0): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= minimum;
}

function checkFault(spec: Fault): Fault {
  const where = `fault("${String((spec as { kind?: unknown }).kind)}")`;
  const need = (ok: boolean, message: string): void => {
    if (!ok) throw new TypeError(`${where}: ${message}`);
  };
  switch (spec.kind) {
    case 'http-error':
      need(
        isWhole(spec.status, 400) && spec.status <= 599,
        `status must be an HTTP error status 400–599, got ${String(spec.status)}`,
      );
      need(
        typeof spec.errorType === 'string' && spec.errorType.length > 0,
        'errorType must be an Anthropic error type, e.g. overloaded_error',
      );
      need(
        spec.retryAfterSeconds === undefined || isWhole(spec.retryAfterSeconds),
        'retryAfterSeconds must be a whole number ≥ 0',
      );
      need(
        spec.retryAfterMs === undefined || isWhole(spec.retryAfterMs),
        'retryAfterMs must be a whole number ≥ 0',
      );
      need(
        spec.shouldRetry === undefined || typeof spec.shouldRetry === 'boolean',
        'shouldRetry must be a boolean',
      );
      return spec;
    case 'stream-error':
      need(isWhole(spec.afterEvents), 'afterEvents must be a whole number ≥ 0');
      need(
        typeof spec.errorType === 'string' && /^[a-z_]+$/.test(spec.errorType),
        'errorType must be an Anthropic error type, e.g. overloaded_error or api_error',
      );
      return spec;
    case 'socket-reset':
      need(isWhole(spec.afterEvents), 'afterEvents must be a whole number ≥ 0');
      return spec;
    case 'pings-only':
      need(isWhole(spec.durationMs), 'durationMs must be a whole number ≥ 0');
      need(
        spec.intervalMs === undefined || isWhole(spec.intervalMs, 1),
        'intervalMs must be a whole number ≥ 1',
      );
      return spec;
    case 'max-tokens-in-tool-use':
      need(isWhole(spec.keepInputBytes), 'keepInputBytes must be a whole number ≥ 0');
      return spec;
    case 'silence-after-headers':
    case 'omit-message-start':
    case 'omit-message-stop':
    case 'omit-message-delta':
      return spec;
    default:
      throw new TypeError(
        `${where}: unknown fault kind; use http-error, stream-error, socket-reset, silence-after-headers, pings-only, omit-message-start, omit-message-stop, omit-message-delta or max-tokens-in-tool-use`,
      );
  }
}

/** One step of a sequence: a fixed reply, or a function of the request like a Script. */
export type SequenceStep = Reply | Script;

/** How `sequence()` groups calls: by agent (default) or by any key of the request. */
export interface SequenceOptions {
  /** The group a request belongs to; each group walks the steps on its own. Default: `agentNameOf(request) ?? 'default'`. */
  keyOf?: (request: ScriptRequest) => string;
  /** Name used in the exhausted error. */
  name?: string;
}

let sequenceCount = 0;

/**
 * A Script that answers the nth call of each agent with the nth step. Counts live in the
 * run's `context.state`, so two servers never share them. When an agent calls once more than
 * there are steps, it throws an Error naming the sequence, the agent, the call number and the
 * request index.
 */
export function sequence(steps: readonly SequenceStep[], options: SequenceOptions = {}): Script {
  if (!Array.isArray(steps) || steps.length === 0)
    throw new TypeError('sequence(): expected a non-empty array of replies');
  steps.forEach((step, position) => {
    if (
      typeof step !== 'function' &&
      (step === null || typeof step !== 'object' || !Array.isArray(step.content))
    ) {
      throw new TypeError(
        `sequence(): step ${position} must be a Reply (e.g. text('…')) or a function (request, context) => Reply`,
      );
    }
  });
  sequenceCount += 1;
  const stateKey = `scripted-model:sequence:${sequenceCount}`;
  const name = options.name ?? `sequence #${sequenceCount}`;
  const keyOf = options.keyOf ?? ((request: ScriptRequest) => agentNameOf(request) ?? 'default');
  return (request: ScriptRequest, context: ScriptContext) => {
    let counts = context.state.get(stateKey) as Map<string, number> | undefined;
    if (counts === undefined) {
      counts = new Map();
      context.state.set(stateKey, counts);
    }
    const key = keyOf(request);
    const call = counts.get(key) ?? 0;
    counts.set(key, call + 1);
    const step = steps[call];
    if (step === undefined) {
      throw new Error(
        `${name} is exhausted: "${key}" made call ${call + 1} but the sequence has only ${steps.length} ${steps.length === 1 ? 'reply' : 'replies'} (request #${request.index})`,
      );
    }
    return typeof step === 'function' ? step(request, context) : step;
  };
}
