// Runs the tool calls of one response (R6): each call is looked up, its input checked
// against the tool's schema, decided by the authorizer, then run. Consecutive
// concurrency-safe calls run together, the others one by one; the results always come back
// in `tool_use` order, one per call, so the next user message is valid whatever happened.
import type Anthropic from '@anthropic-ai/sdk';
import type { AgentEvent, ToolAuthorization, ToolAuthorizer } from './agent-types.js';
import { ToolError } from './query-error.js';
import type { AnyTool, ToolContext, ToolResult, ToolRoots } from './tool.js';

/** A `tool_result` block of the next user message. */
export type ToolResultBlock = Anthropic.ToolResultBlockParam;

/** What the runner needs from its agent for one batch of calls. */
export interface ToolRunnerOptions {
  /** The agent's tools by name. */
  tools: ReadonlyMap<string, AnyTool>;
  /** Decides each call. */
  authorize: ToolAuthorizer;
  /** The roots before per-call approvals (called once per call). */
  roots: () => ToolRoots;
  /** The context every call shares; the runner adds `roots`, `toolUseId` and `signal`. */
  context: Omit<ToolContext, 'roots' | 'toolUseId' | 'signal'>;
  /** The turn's signal. */
  signal: AbortSignal;
  /** Where events go. */
  emit: (event: AgentEvent) => void;
  /**
   * The `is_error` text for a call of a tool not in `tools`, when the default ("No tool is
   * named …") would be wrong: a fork child sees its parent's tools but may run only its own.
   */
  unknownToolMessage?: (name: string) => string | undefined;
}

/** The outcome of a batch. */
export interface ToolRunOutcome {
  /** One block per call, in `tool_use` order. */
  results: ToolResultBlock[];
  /** Calls whose `call` was started. */
  executed: number;
}

/** The message of a `tool_result` for a call that was never run because the turn was aborted. */
export const INTERRUPTED_MESSAGE =
  'Interrupted: the turn was aborted before this call finished; it was not run (or not to the end).';

interface PreparedCall {
  block: Anthropic.ToolUseBlock;
  tool?: AnyTool;
  input?: Record<string, unknown>;
  /** Set when the call cannot run (unknown tool, bad input): the is_error text. */
  refusal?: string;
  concurrent: boolean;
}

/** The text a UI shows for a result (images summarised). */
export function resultText(content: ToolResult['content']): string {
  if (typeof content === 'string') return content;
  return content
    .map((block) =>
      block.type === 'text' ? block.text : `[image ${block.source?.media_type ?? 'unknown'}]`,
    )
    .join('\n');
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

function describeIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues
    .map((issue) => {
      const path = issue.path.length === 0 ? '(the input)' : issue.path.map(String).join('.');
      return `- ${path}: ${issue.message}`;
    })
    .join('\n');
}

function prepare(
  block: Anthropic.ToolUseBlock,
  tools: ReadonlyMap<string, AnyTool>,
  unknownToolMessage?: (name: string) => string | undefined,
): PreparedCall {
  const tool = typeof block.name === 'string' ? tools.get(block.name) : undefined;
  if (tool === undefined) {
    const available = [...tools.keys()].join(', ') || '(none)';
    return {
      block,
      concurrent: false,
      refusal:
        unknownToolMessage?.(String(block.name)) ??
        `No tool is named "${String(block.name)}". Available tools: ${available}.`,
    };
  }
  const parsed = tool.inputSchema.safeParse(block.input);
  if (!parsed.success) {
    return {
      block,
      tool,
      concurrent: false,
      refusal: `The input of ${tool.name} is invalid; nothing was run. Fix these and call it again:\n${describeIssues(parsed.error.issues)}`,
    };
  }
  const input = parsed.data as Record<string, unknown>;
  let concurrent: boolean;
  try {
    concurrent = tool.isConcurrencySafe(input) === true;
  } catch {
    concurrent = false; // a tool that cannot tell runs alone
  }
  return { block, tool, input, concurrent };
}

function block(
  toolUseId: string,
  content: ToolResult['content'],
  isError: boolean,
): ToolResultBlock {
  const result: ToolResultBlock = {
    type: 'tool_result',
    tool_use_id: toolUseId,
    // Image media types are checked by the tool that makes them (png, jpeg, gif, webp).
    content: content as ToolResultBlock['content'],
  };
  if (isError) result.is_error = true;
  return result;
}

/** The call's roots: the agent's, plus the paths approved for this call (writable unless the call only reads). */
function mergeRoots(
  base: ToolRoots,
  approvedPaths: readonly string[] | undefined,
  readOnly: boolean,
): ToolRoots {
  const approved = (approvedPaths ?? []).filter((path) => typeof path === 'string' && path !== '');
  return {
    read: [...base.read, ...approved],
    write: readOnly ? [...base.write] : [...base.write, ...approved],
  };
}

/** Resolves when `signal` aborts (never rejects); `dispose` removes the listener. */
function abortPromise(signal: AbortSignal): { promise: Promise<'aborted'>; dispose: () => void } {
  if (signal.aborted) return { promise: Promise.resolve('aborted'), dispose: () => undefined };
  let listener: (() => void) | undefined;
  const promise = new Promise<'aborted'>((resolve) => {
    listener = () => resolve('aborted');
    signal.addEventListener('abort', listener, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', listener!) };
}

async function authorizeCall(
  prepared: PreparedCall & { tool: AnyTool; input: Record<string, unknown> },
  readOnly: boolean,
  options: ToolRunnerOptions,
): Promise<ToolAuthorization> {
  const { tool, input } = prepared;
  const paths = tool.pathsOf?.(input) ?? [];
  const summary = paths.length > 0 ? ` on ${paths.join(', ')}` : '';
  try {
    return await options.authorize(
      {
        toolName: tool.name,
        toolUseId: prepared.block.id,
        input,
        readOnly,
        paths: [...paths],
        description: `${tool.name}${summary}`,
      },
      {
        signal: options.signal,
        announceAsk: (decision) => {
          options.emit({
            type: 'permission_ask',
            toolUseId: prepared.block.id,
            name: tool.name,
            input,
            ...(decision === undefined ? {} : { decision }),
          });
        },
      },
    );
  } catch (error) {
    return {
      behavior: 'deny',
      message: `${tool.name} was not run: deciding its permission failed (${errorMessage(error)}).`,
    };
  }
}

interface CallOutcome {
  result: ToolResultBlock;
  allowed: boolean;
  executed: boolean;
}

async function runOne(prepared: PreparedCall, options: ToolRunnerOptions): Promise<CallOutcome> {
  const { block: toolUse } = prepared;
  if (
    prepared.refusal !== undefined ||
    prepared.tool === undefined ||
    prepared.input === undefined
  ) {
    return {
      result: block(toolUse.id, prepared.refusal ?? 'Not run.', true),
      allowed: false,
      executed: false,
    };
  }
  const tool = prepared.tool;
  if (options.signal.aborted) {
    return {
      result: block(toolUse.id, INTERRUPTED_MESSAGE, true),
      allowed: false,
      executed: false,
    };
  }
  let authorization: ToolAuthorization | 'aborted';
  let readOnly: boolean;
  const abortWhileDeciding = abortPromise(options.signal);
  try {
    readOnly = tool.isReadOnly(prepared.input) === true;
    // An authorizer that ignores the signal (a person who never answers) must not hold the turn.
    authorization = await Promise.race([
      authorizeCall({ ...prepared, tool, input: prepared.input }, readOnly, options),
      abortWhileDeciding.promise,
    ]);
  } catch (error) {
    // isReadOnly or pathsOf threw: the tool's own code failed.
    return {
      result: block(toolUse.id, `${tool.name} failed: ${errorMessage(error)}`, true),
      allowed: false,
      executed: false,
    };
  } finally {
    abortWhileDeciding.dispose();
  }
  if (authorization === 'aborted' || options.signal.aborted) {
    return {
      result: block(toolUse.id, INTERRUPTED_MESSAGE, true),
      allowed: false,
      executed: false,
    };
  }
  if (authorization.behavior !== 'allow') {
    const message =
      authorization.message ?? `Permission to use ${tool.name} was denied; it was not run.`;
    return { result: block(toolUse.id, message, true), allowed: false, executed: false };
  }
  let input = prepared.input;
  if (authorization.input !== undefined) {
    const reparsed = tool.inputSchema.safeParse(authorization.input);
    if (!reparsed.success) {
      const text = `The input approved for ${tool.name} is invalid; nothing was run:\n${describeIssues(reparsed.error.issues)}`;
      return { result: block(toolUse.id, text, true), allowed: false, executed: false };
    }
    input = reparsed.data as Record<string, unknown>;
  }
  const abort = abortPromise(options.signal);
  try {
    const context: ToolContext = {
      ...options.context,
      roots: mergeRoots(options.roots(), authorization.approvedPaths, readOnly),
      toolUseId: toolUse.id,
      signal: options.signal,
    };
    const outcome = await Promise.race([tool.call(input, context), abort.promise]);
    if (outcome === 'aborted') {
      return {
        result: block(toolUse.id, INTERRUPTED_MESSAGE, true),
        allowed: true,
        executed: true,
      };
    }
    if (
      outcome === null ||
      typeof outcome !== 'object' ||
      (typeof outcome.content !== 'string' && !Array.isArray(outcome.content))
    ) {
      const text = `${tool.name} failed: it returned no result content (a tool must return { content }).`;
      return { result: block(toolUse.id, text, true), allowed: true, executed: true };
    }
    return {
      result: block(toolUse.id, outcome.content, outcome.isError === true),
      allowed: true,
      executed: true,
    };
  } catch (error) {
    const text =
      error instanceof ToolError ? error.message : `${tool.name} failed: ${errorMessage(error)}`;
    return { result: block(toolUse.id, text, true), allowed: true, executed: true };
  } finally {
    abort.dispose();
  }
}

async function runAndReport(
  prepared: PreparedCall,
  options: ToolRunnerOptions,
): Promise<CallOutcome> {
  const started = performance.now();
  options.emit({
    type: 'tool_call_start',
    toolUseId: prepared.block.id,
    name: prepared.block.name,
    input: prepared.block.input,
  });
  const outcome = await runOne(prepared, options);
  const content = outcome.result.content ?? '';
  options.emit({
    type: 'tool_call_end',
    toolUseId: prepared.block.id,
    name: prepared.block.name,
    allowed: outcome.allowed,
    isError: outcome.result.is_error === true,
    durationMs: performance.now() - started,
    resultText: resultText(content as ToolResult['content']),
  });
  return outcome;
}

/** At most this many concurrency-safe calls of one response run at the same time. */
export const MAX_PARALLEL_TOOL_CALLS = 10;

/** `map` with at most `limit` calls of `run` pending at once; results in input order. */
async function mapWithLimit<Item, Result>(
  items: readonly Item[],
  limit: number,
  run: (item: Item) => Promise<Result>,
): Promise<Result[]> {
  const results = new Array<Result>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await run(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Groups calls: a run of consecutive concurrency-safe calls is one group, any other call is alone. */
function groupCalls(calls: readonly PreparedCall[]): PreparedCall[][] {
  const groups: PreparedCall[][] = [];
  for (const call of calls) {
    const last = groups.at(-1);
    if (call.concurrent && last !== undefined && last[0]!.concurrent) last.push(call);
    else groups.push([call]);
  }
  return groups;
}

/**
 * Runs every `tool_use` block of one response and returns one `tool_result` per block, in
 * order. Never throws: unknown tools, bad input, denials, tool failures and aborts all become
 * `is_error` results the model can read.
 */
export async function runToolCalls(
  toolUses: readonly Anthropic.ToolUseBlock[],
  options: ToolRunnerOptions,
): Promise<ToolRunOutcome> {
  const prepared = toolUses.map((toolUse) =>
    prepare(toolUse, options.tools, options.unknownToolMessage),
  );
  const results: ToolResultBlock[] = [];
  let executed = 0;
  for (const group of groupCalls(prepared)) {
    const outcomes = await mapWithLimit(group, MAX_PARALLEL_TOOL_CALLS, (call) =>
      runAndReport(call, options),
    );
    for (const outcome of outcomes) {
      results.push(outcome.result);
      if (outcome.executed) executed += 1;
    }
  }
  return { results, executed };
}

/** `is_error` results for calls that will never run (a truncated or interrupted response). */
export function unrunResults(
  toolUses: readonly Anthropic.ToolUseBlock[],
  message: string,
): ToolResultBlock[] {
  return toolUses.map((toolUse) => block(toolUse.id, message, true));
}
