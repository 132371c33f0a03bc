// Wires an agent's compaction options to `compactConversation`: the model summarises the
// conversation with the agent's own tools and system prompt (so the cache holds) and the agent
// goes on from the preserved context plus the summary.
import type Anthropic from '@anthropic-ai/sdk';
import type { CompactionOptions, ConversationMessage } from './agent-types.js';
import { usageOfMessage } from './agent-usage.js';
import { compactConversation, estimateTokens } from './compaction.js';
import type { ModelClient } from './model-types.js';
import type { BreakpointState } from './request-builder.js';
import type { CompactionOutcome } from './turn-runner.js';

/** What the agent gives its compaction. */
export interface AgentCompactionInput {
  client: ModelClient;
  model: string;
  system: readonly Anthropic.TextBlockParam[];
  tools: readonly Anthropic.Tool[];
  maxTokens: number;
  options: CompactionOptions;
}

/** Estimated prompt tokens of the next request (system, tools and messages; UTF-8 bytes / 4). */
export function estimateRequestTokens(
  input: Pick<AgentCompactionInput, 'system' | 'tools'>,
  messages: readonly ConversationMessage[],
): number {
  return estimateTokens({ system: input.system, tools: input.tools, messages });
}

/**
 * `estimateRequestTokens` for an agent's history, measured incrementally: the system prompt and
 * tools (whose bytes never change) once, and each message once, the first time it is seen. The
 * result is the same as serialising the whole request each time (the JSON of an array is its
 * items' JSON, comma-separated, in brackets), but the cost of a request no longer grows with
 * the conversation. Only for conversations whose messages are never changed in place (the
 * history replaces a message it merges into).
 */
export function createRequestTokenEstimator(
  input: Pick<AgentCompactionInput, 'system' | 'tools'>,
): (messages: readonly ConversationMessage[]) => number {
  const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  const fixedBytes = bytesOf(input.system) + bytesOf(input.tools);
  const messageBytes = new WeakMap<ConversationMessage, number>();
  return (messages) => {
    // "[" + items joined by "," + "]"
    let bytes = fixedBytes + 2 + Math.max(0, messages.length - 1);
    for (const message of messages) {
      let size = messageBytes.get(message);
      if (size === undefined) {
        size = bytesOf(message);
        messageBytes.set(message, size);
      }
      bytes += size;
    }
    return Math.ceil(bytes / 4);
  };
}

/** Compacts `messages` with the agent's model; the preserved context is read now. */
export async function compactAgentConversation(
  input: AgentCompactionInput,
  messages: readonly ConversationMessage[],
  signal: AbortSignal,
  previousBreakpoints: BreakpointState | undefined,
): Promise<CompactionOutcome> {
  const preservedContext = input.options.preservedContext?.();
  const result = await compactConversation({
    client: input.client,
    model: input.model,
    system: input.system,
    tools: input.tools,
    messages,
    signal,
    maxTokens: input.maxTokens,
    ...(typeof preservedContext === 'string' ? { preservedContext } : {}),
    ...(previousBreakpoints === undefined ? {} : { previousBreakpoints }),
  });
  return {
    messages: result.messages,
    summary: result.summary,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    usage: usageOfMessage({ usage: result.usage }),
  };
}
