// Compaction: when a conversation grows too long, the model summarises it and the agent goes on
// from one user message holding what must survive (identity, team, task) and that summary. The
// summary request sends the same tools and system prompt and the same conversation, so the
// prompt cache still covers everything but the request to summarise.
import type Anthropic from '@anthropic-ai/sdk';
import type { ConversationMessage } from './agent-types.js';
import type { ModelClient } from './model-types.js';
import { QueryError } from './query-error.js';
import { buildRequest, type BreakpointState } from './request-builder.js';

/** What `compactConversation` needs. */
export interface CompactionInput {
  /** The model client the agent uses. */
  client: ModelClient;
  /** The agent's model. */
  model: string;
  /** The agent's rendered system prompt (`renderSystem`). */
  system: readonly Anthropic.TextBlockParam[];
  /** The agent's rendered tools (`renderTools`). */
  tools: readonly Anthropic.Tool[];
  /** The conversation to compact (not changed). */
  messages: readonly ConversationMessage[];
  /** Text put, word for word, at the top of the new conversation (identity, team, lead, task). */
  preservedContext?: string;
  /** Aborts the summary request. */
  signal: AbortSignal;
  /** `max_tokens` of the summary request. */
  maxTokens: number;
  /** The agent's last breakpoints, so the summary request reads the cached conversation. */
  previousBreakpoints?: BreakpointState;
}

/** What `compactConversation` returns. */
export interface CompactionResult {
  /** The new conversation: one user message (preserved context, then the summary). */
  messages: ConversationMessage[];
  /** The model's summary. */
  summary: string;
  /** Estimated prompt tokens (system, tools, messages) before compaction. */
  tokensBefore: number;
  /** Estimated prompt tokens after compaction. */
  tokensAfter: number;
  /** Usage of the summary request (it counts toward the agent's usage). */
  usage: Anthropic.Usage;
}

/** The request to summarise, added as the last text block of the conversation. */
export const COMPACTION_INSTRUCTION = [
  'Stop here: the conversation has grown too long and will be replaced by your summary.',
  'Do not call any tool. Reply with text only: a summary that lets you carry on without the',
  'conversation. Cover, under short headings: the task you were given and by whom; what is done',
  'and what is left; decisions made and why; files read, created or changed (with paths) and',
  'what matters in them; commands run and their results; errors met and how they were handled;',
  'open questions; and the exact next step. Keep names, paths, ids and numbers exact.',
].join(' ');

/** The result content of a tool call that never ran because the conversation was compacted first. */
export const NOT_RUN_BEFORE_COMPACTION =
  'Not run: the conversation was compacted before this call ran. Call it again if it is still needed.';

/**
 * Estimated tokens of messages or of a request (`system`, `tools`, `messages`): UTF-8 bytes of
 * their JSON divided by 4, rounded up. A rough guide for thresholds; `countTokens` is exact.
 */
export function estimateTokens(
  input:
    | readonly ConversationMessage[]
    | {
        system?: string | readonly Anthropic.TextBlockParam[];
        tools?: readonly unknown[];
        messages: readonly ConversationMessage[];
      },
): number {
  if (typeof input !== 'object' || input === null) {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message:
        'estimateTokens: give the messages (an array) or a request { system?, tools?, messages }',
    });
  }
  const parts = Array.isArray(input)
    ? [input]
    : [
        (input as { system?: unknown }).system ?? [],
        (input as { tools?: unknown }).tools ?? [],
        (input as { messages: unknown }).messages,
      ];
  const bytes = parts.reduce<number>(
    (sum, part) => sum + Buffer.byteLength(JSON.stringify(part) ?? '', 'utf8'),
    0,
  );
  return Math.ceil(bytes / 4);
}

function blocksOf(message: ConversationMessage): Anthropic.ContentBlockParam[] {
  return typeof message.content === 'string'
    ? [{ type: 'text', text: message.content }]
    : [...message.content];
}

/**
 * The summary request's conversation: the given one plus the instruction, as one more text block
 * of the last user message (after its tool results) or as a new user message. A trailing
 * assistant message whose `tool_use` blocks were not answered gets `is_error` "not run" results
 * first, so no call is left without its result.
 */
function summaryConversation(messages: readonly ConversationMessage[]): ConversationMessage[] {
  const conversation = [...messages];
  const last = conversation.at(-1)!;
  const instruction: Anthropic.TextBlockParam = { type: 'text', text: COMPACTION_INSTRUCTION };
  if (last.role === 'user') {
    conversation[conversation.length - 1] = {
      role: 'user',
      content: [...blocksOf(last), instruction],
    };
    return conversation;
  }
  const notRun: Anthropic.ToolResultBlockParam[] = blocksOf(last)
    .filter((block): block is Anthropic.ToolUseBlockParam => block.type === 'tool_use')
    .map((block) => ({
      type: 'tool_result',
      tool_use_id: block.id,
      content: NOT_RUN_BEFORE_COMPACTION,
      is_error: true,
    }));
  conversation.push({ role: 'user', content: [...notRun, instruction] });
  return conversation;
}

/** The text of the model's reply, or why it cannot be used as a summary. */
function summaryOf(message: Anthropic.Message): string {
  const text = message.content
    .filter((block): block is Anthropic.TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n')
    .trim();
  if (text === '') {
    const kinds = message.content.map((block) => block.type).join(', ') || 'nothing';
    throw new QueryError({
      code: 'COMPACTION_FAILED',
      message: `Compaction failed: asked for a summary, the model answered with ${kinds} (stop reason ${String(message.stop_reason)}) and no text; the conversation was left as it was`,
    });
  }
  return text;
}

/** Whether the API refused the request because the prompt does not fit the context window. */
function isPromptTooLong(error: unknown): boolean {
  return (
    error instanceof QueryError &&
    error.code === 'MODEL_REQUEST_REFUSED' &&
    /prompt is too long|too many (input )?tokens|context (window|length)/i.test(error.message)
  );
}

/**
 * The newer half (or so) of a conversation, cut where no tool call is parted from its result:
 * just before a user message that holds no `tool_result`. Undefined when there is no such place.
 */
function newerPart(messages: readonly ConversationMessage[]): ConversationMessage[] | undefined {
  const half = Math.floor(messages.length / 2);
  let best: number | undefined;
  messages.forEach((message, index) => {
    const plainPrompt =
      index > 0 &&
      message.role === 'user' &&
      !blocksOf(message).some((block) => block.type === 'tool_result');
    if (plainPrompt && (best === undefined || Math.abs(index - half) < Math.abs(best - half))) {
      best = index;
    }
  });
  return best === undefined ? undefined : messages.slice(best);
}

function checkInput(input: CompactionInput): void {
  const problem =
    typeof input !== 'object' || input === null
      ? 'give { client, model, system, tools, messages, signal, maxTokens }'
      : typeof input.client?.stream !== 'function'
        ? 'client must be a ModelClient (createModelClient)'
        : !Array.isArray(input.messages) || input.messages.length === 0
          ? 'messages must be the non-empty conversation to compact'
          : !(input.signal instanceof AbortSignal)
            ? 'signal must be an AbortSignal'
            : input.preservedContext !== undefined && typeof input.preservedContext !== 'string'
              ? 'preservedContext must be a string'
              : undefined;
  if (problem)
    throw new QueryError({ code: 'INVALID_OPTIONS', message: `compactConversation: ${problem}` });
}

/**
 * Compacts a conversation: asks the model (same model, tools and system prompt, so the prompt
 * cache holds) to summarise it, and returns the new conversation — ONE user message holding
 * `preservedContext` word for word and then the summary. Its tool calls all come with their
 * results or are left out whole: the result has no `tool_use` and no `tool_result`. When the
 * API refuses the summary request as too long, the newer part of the conversation (cut just before
 * a plain user message, never between a call and its result) is summarised instead. Errors of
 * the request are the client's (`QueryError` `ABORTED`, `MODEL_REQUEST_REFUSED`, …); a reply
 * without text is `COMPACTION_FAILED`. Never changes its inputs.
 */
export async function compactConversation(input: CompactionInput): Promise<CompactionResult> {
  checkInput(input);
  const ask = async (
    conversation: readonly ConversationMessage[],
    previousBreakpoints?: BreakpointState,
  ): Promise<Anthropic.Message> => {
    const { params } = buildRequest({
      model: input.model,
      maxTokens: input.maxTokens,
      system: input.system,
      tools: input.tools,
      messages: summaryConversation(conversation),
      ...(previousBreakpoints ? { previousBreakpoints } : {}),
    });
    return (await input.client.stream(params, { signal: input.signal })).message;
  };
  let message: Anthropic.Message;
  try {
    message = await ask(input.messages, input.previousBreakpoints);
  } catch (error) {
    // The conversation is too long even to be summarised: summarise its newer part only.
    const newer = newerPart(input.messages);
    if (!isPromptTooLong(error) || !newer) throw error;
    message = await ask(newer);
  }
  const summary = summaryOf(message);

  const content: Anthropic.TextBlockParam[] = [];
  const preserved = input.preservedContext?.trim();
  if (preserved) {
    content.push({ type: 'text', text: `<preserved-context>\n${preserved}\n</preserved-context>` });
  }
  content.push({
    type: 'text',
    text: [
      'The conversation so far was compacted. This is the summary of everything before this point:',
      '<summary>',
      summary,
      '</summary>',
      'Carry on from the next step it names.',
    ].join('\n'),
  });
  const messages: ConversationMessage[] = [{ role: 'user', content }];
  const request = { system: input.system, tools: input.tools };
  return {
    messages,
    summary,
    tokensBefore: estimateTokens({ ...request, messages: input.messages }),
    tokensAfter: estimateTokens({ ...request, messages }),
    usage: message.usage,
  };
}
