// Compaction: when a conversation grows too long, the model summarises it and the agent goes on
// from one user message holding what must survive (identity, team, task) and that summary. The
// summary request sends the same tools and system prompt and the same conversation, so the
// prompt cache still covers everything but the request to summarise.
import type Anthropic from '@anthropic-ai/sdk';
import type { ConversationMessage } from './agent-types.js';
import type { ModelClient } from './model-types.js';
import { QueryError } from './query-error.js';
import { addUsage, blocksOf, middleCut, withCarriedSummary } from './compaction-parts.js';
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
  /** Usage of the summary requests, added up (it counts toward the agent's usage). */
  usage: Anthropic.Usage;
  /**
   * Summary requests answered: 1 when the conversation was summarised whole, more when it was
   * too long and was summarised part by part (older first, each summary carried into the next).
   */
  requests: number;
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

/** Summary requests one compaction makes at most: the whole conversation, then its parts. */
export const MAX_COMPACTION_REQUESTS = 16;

/** "message 3 is" / "messages 3 to 9 are" (1-based), for error messages. */
function span(from: number, count: number): string {
  return count === 1 ? `message ${from + 1} is` : `messages ${from + 1} to ${from + count} are`;
}

/**
 * Compacts a conversation: asks the model (same model, tools and system prompt, so the prompt
 * cache holds) to summarise it, and returns the new conversation — ONE user message holding
 * `preservedContext` word for word and then the summary. Its tool calls all come with their
 * results or are left out whole: the result has no `tool_use` and no `tool_result`.
 *
 * When the API refuses the summary request as too long, nothing is dropped: the conversation is
 * cut in two where no call is parted from its result, the older part is summarised first and
 * its summary is carried into the request for the newer part (each part cut again while it is
 * too long), so the last summary covers the whole conversation. A part that cannot be cut and
 * is still too long, or more than `MAX_COMPACTION_REQUESTS` requests, fail with
 * `COMPACTION_FAILED` saying which messages and what to do; the conversation is then left as
 * it was. Errors of the request are the client's (`QueryError` `ABORTED`,
 * `MODEL_REQUEST_REFUSED`, …); a reply without text is `COMPACTION_FAILED`. Never changes its
 * inputs.
 */
export async function compactConversation(input: CompactionInput): Promise<CompactionResult> {
  checkInput(input);
  const usages: Anthropic.Usage[] = [];
  let refused = 0;
  const ask = async (
    conversation: readonly ConversationMessage[],
    previousBreakpoints?: BreakpointState,
  ): Promise<string> => {
    if (usages.length + refused >= MAX_COMPACTION_REQUESTS) {
      throw new QueryError({
        code: 'COMPACTION_FAILED',
        message: `Compaction failed: the conversation (${input.messages.length} messages) is too long to summarise in ${MAX_COMPACTION_REQUESTS} summary requests of parts of it; the conversation was left as it was. Start a new agent with a shorter conversation, or compact earlier (a lower compaction.thresholdTokens).`,
        details: { requests: MAX_COMPACTION_REQUESTS },
      });
    }
    const { params } = buildRequest({
      model: input.model,
      maxTokens: input.maxTokens,
      system: input.system,
      tools: input.tools,
      messages: summaryConversation(conversation),
      ...(previousBreakpoints ? { previousBreakpoints } : {}),
    });
    const { message } = await input.client.stream(params, { signal: input.signal });
    usages.push(message.usage);
    return summaryOf(message);
  };
  /** Summarises messages `from`..`from + part.length` with the summary of all before them. */
  const summarise = async (
    part: readonly ConversationMessage[],
    from: number,
    earlier: string | undefined,
    previousBreakpoints?: BreakpointState,
  ): Promise<string> => {
    try {
      return await ask(withCarriedSummary(part, earlier), previousBreakpoints);
    } catch (error) {
      if (!isPromptTooLong(error)) throw error;
      // Refused requests count toward the bound too, so a model that refuses everything ends.
      refused += 1;
      const cut = middleCut(part);
      if (cut === undefined) {
        throw new QueryError({
          code: 'COMPACTION_FAILED',
          message: `Compaction failed: the conversation is too long to summarise, and ${span(from, part.length)} too long (of ${input.messages.length}${earlier === undefined ? '' : ', with the summary of those before'}) for one summary request yet cannot be cut further without parting a tool call from its result (${(error as Error).message}); the conversation was left as it was. Start a new agent, or give the agent a larger context window.`,
          details: { from: from + 1, to: from + part.length, messages: input.messages.length },
        });
      }
      const older = await summarise(part.slice(0, cut), from, earlier);
      return summarise(part.slice(cut), from + cut, older);
    }
  };
  const summary = await summarise(input.messages, 0, undefined, input.previousBreakpoints);

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
    usage: addUsage(usages),
    requests: usages.length,
  };
}
