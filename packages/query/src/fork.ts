// Forks (R11–R13): a child agent whose first request repeats its parent's last request byte
// for byte (markers aside) up to its own directive, so every child after the first reads the
// parent's conversation from the prompt cache. The parent hands out a frozen `ForkSource` while
// one of its tools runs; the child sends the source's rendered system prompt and tools as they
// are, the parent's messages, one identical placeholder result per call, then its directive.
import type Anthropic from '@anthropic-ai/sdk';
import type { ConversationMessage } from './agent-types.js';
import { QueryError } from './query-error.js';
import { deepFreeze } from './request-builder-render.js';
import type { ToolAgentIdentity } from './tool.js';

/** The tag around a fork child's directive; its presence in a conversation marks a fork child (R13). */
export const FORK_BOILERPLATE_TAG = 'fork-boilerplate';

/** The result every call of the forking message gets in a child (identical for every sibling). */
export const FORK_PLACEHOLDER_RESULT =
  'Handed to a forked worker: this call is being carried out separately, and its outcome is not part of this conversation.';

/** muster's rules for a fork child, sent inside the boilerplate tag before its directive. */
export const FORK_RULES = [
  'You are a fork: a copy of the agent whose conversation is above, started to carry out one directive while that agent goes on with its own work.',
  '- Do the directive yourself with the tools you can run. Do not start subagents, teammates or further forks.',
  '- The conversation above is background. Results marked as handed to a forked worker are not real results; do not wait for them.',
  '- Keep to the directive. Do not redo work that is already done above, and do not change files outside its scope.',
  '- Nobody will answer questions. When something blocks you, stop and say what blocked you.',
  '- Finish with a short report: what you did, what you found, and every file you changed.',
].join('\n');

/** The caching-relevant request fields besides model, tools and system (`tool_choice`, `thinking`). */
export type ForkRequestFields = Readonly<
  Partial<Pick<Anthropic.MessageCreateParamsNonStreaming, 'tool_choice' | 'thinking'>>
>;

/**
 * What a fork child needs from its parent, taken while one of the parent's tools runs. Every
 * part is the parent's own frozen objects (or frozen clones of them), never rebuilt field by
 * field, so the child serializes to the same bytes.
 */
export interface ForkSource {
  /** The parent agent. */
  readonly parent: Readonly<ToolAgentIdentity>;
  /** The model id the parent's requests name. */
  readonly model: string;
  /** The parent's `max_tokens`. */
  readonly maxTokens: number;
  /** The parent's rendered system blocks (the exact array it sends, without markers). */
  readonly system: readonly Anthropic.TextBlockParam[];
  /** The parent's rendered tools (the exact array it sends, without markers). */
  readonly tools: readonly Anthropic.Tool[];
  /** Other request fields that decide cache hits, as the parent sends them (none today). */
  readonly requestFields: ForkRequestFields;
  /** The conversation up to and including the assistant message whose tool is running. */
  readonly messages: readonly ConversationMessage[];
  /** The ids of that assistant message's `tool_use` blocks, in order. */
  readonly toolUseIds: readonly string[];
}

/** `createAgent`'s `fork` option. */
export interface ForkOptions {
  /** From the parent's `ToolContext.forkSource()`. */
  source: ForkSource;
  /** What this child is to do (its own text: the only part that differs between siblings). */
  directive: string;
  /** Extra text for the child, inside the boilerplate after the rules (e.g. a worktree notice). */
  notice?: string;
}

function unavailable(message: string): QueryError {
  return new QueryError({ code: 'FORK_UNAVAILABLE', message });
}

function toolUseIdsOf(message: ConversationMessage | undefined): string[] {
  if (message === undefined || message.role !== 'assistant' || typeof message.content === 'string')
    return [];
  return message.content
    .filter((block): block is Anthropic.ToolUseBlockParam => block.type === 'tool_use')
    .map((block) => block.id);
}

function textsOf(message: ConversationMessage): string[] {
  if (typeof message.content === 'string') return [message.content];
  const texts: string[] = [];
  for (const block of message.content) if (block.type === 'text') texts.push(block.text);
  return texts;
}

const OPENING = `<${FORK_BOILERPLATE_TAG}>`;

/** Whether a content block is a fork directive (a text block opening with the boilerplate tag). */
export function isForkDirectiveBlock(block: unknown): boolean {
  if (typeof block !== 'object' || block === null) return false;
  const { type, text } = block as { type?: unknown; text?: unknown };
  return type === 'text' && typeof text === 'string' && text.startsWith(OPENING);
}

/**
 * Whether a conversation belongs to a fork child: a user message holds a text block opening
 * with the `<fork-boilerplate>` tag (R13). The tag stays in the history, so the check holds for
 * the child's whole life.
 */
export function isInForkChild(messages: readonly ConversationMessage[]): boolean {
  if (!Array.isArray(messages)) return false;
  return messages.some(
    (message) =>
      message?.role === 'user' &&
      (typeof message.content === 'string' || Array.isArray(message.content)) &&
      textsOf(message).some((text) => text.startsWith(OPENING)),
  );
}

/** The error for a fork asked for inside a fork child (R13). */
export function nestedForkError(name: string): QueryError {
  return new QueryError({
    code: 'NESTED_FORK',
    message: `${name} is a fork child and cannot fork again: a fork does its directive itself. Do the work directly with your own tools.`,
  });
}

/** The text block holding a child's directive: rules, the optional notice, then the directive. */
export function forkDirectiveBlock(directive: string, notice?: string): Anthropic.TextBlockParam {
  if (typeof directive !== 'string' || directive.trim() === '') {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: 'fork.directive must be the non-empty text of what the fork child is to do.',
    });
  }
  if (notice !== undefined && (typeof notice !== 'string' || notice.trim() === '')) {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: 'fork.notice, when given, must be non-empty text (e.g. a worktree notice).',
    });
  }
  const parts = [OPENING, FORK_RULES];
  if (notice !== undefined) parts.push('', notice);
  parts.push('', 'Your directive:', directive, `</${FORK_BOILERPLATE_TAG}>`);
  return { type: 'text', text: parts.join('\n') };
}

/**
 * A fork child's first user message: one `tool_result` holding {@link FORK_PLACEHOLDER_RESULT}
 * per call of the source's last assistant message, in call order, then the directive block.
 */
export function forkFirstMessage(options: ForkOptions): ConversationMessage {
  checkForkSource(options?.source);
  const placeholders: Anthropic.ToolResultBlockParam[] = options.source.toolUseIds.map((id) => ({
    type: 'tool_result',
    tool_use_id: id,
    content: FORK_PLACEHOLDER_RESULT,
  }));
  return {
    role: 'user',
    content: [...placeholders, forkDirectiveBlock(options.directive, options.notice)],
  };
}

/**
 * Takes a fork source from an agent's state (used by the loop for `ToolContext.forkSource`).
 * Clones and freezes the messages; `system` and `tools` are the agent's frozen rendered arrays.
 * Throws `NESTED_FORK` inside a fork child and `FORK_UNAVAILABLE` when the conversation does not
 * end with an assistant message that called tools.
 */
export function createForkSource(input: {
  parent: ToolAgentIdentity;
  forkChild: boolean;
  model: string;
  maxTokens: number;
  system: readonly Anthropic.TextBlockParam[];
  tools: readonly Anthropic.Tool[];
  requestFields: ForkRequestFields;
  messages: readonly ConversationMessage[];
}): ForkSource {
  if (input.forkChild || isInForkChild(input.messages)) throw nestedForkError(input.parent.name);
  const toolUseIds = toolUseIdsOf(input.messages.at(-1));
  if (toolUseIds.length === 0) {
    throw unavailable(
      `${input.parent.name} has no tool call running: a fork source exists only while a tool of the agent runs (call forkSource() from inside Tool.call).`,
    );
  }
  return deepFreeze({
    parent: { ...input.parent },
    model: input.model,
    maxTokens: input.maxTokens,
    system: Object.isFrozen(input.system) ? input.system : structuredClone(input.system),
    tools: Object.isFrozen(input.tools) ? input.tools : structuredClone(input.tools),
    requestFields: structuredClone(input.requestFields),
    messages: structuredClone(input.messages) as ConversationMessage[],
    toolUseIds,
  });
}

/** Throws `FORK_UNAVAILABLE` unless `source` has the shape `createForkSource` gives. */
export function checkForkSource(source: unknown): asserts source is ForkSource {
  const value = source as Partial<ForkSource> | null | undefined;
  const problem =
    typeof value !== 'object' || value === null
      ? 'is not an object'
      : typeof value.model !== 'string' || value.model === ''
        ? 'has no model'
        : !Number.isInteger(value.maxTokens) || (value.maxTokens ?? 0) < 1
          ? 'has no positive maxTokens'
          : !Array.isArray(value.system) || !Array.isArray(value.tools)
            ? 'has no rendered system and tools arrays'
            : typeof value.requestFields !== 'object' || value.requestFields === null
              ? 'has no requestFields object'
              : !Array.isArray(value.messages) || !Array.isArray(value.toolUseIds)
                ? 'has no messages and toolUseIds arrays'
                : toolUseIdsOf(value.messages.at(-1)).join('\n') !== value.toolUseIds.join('\n') ||
                    value.toolUseIds.length === 0
                  ? 'does not end with the assistant message whose calls it lists'
                  : undefined;
  if (problem !== undefined) {
    throw unavailable(
      `The fork source ${problem}: pass what ToolContext.forkSource() returned, unchanged.`,
    );
  }
}
