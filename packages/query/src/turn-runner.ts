// One turn of an agent: request, stream, run tools, reply, until the model ends its turn.
// Stop reasons (R5, R7), usage (R8) and compaction are decided here; the request shape comes
// from the request builder and every request goes through the model client (R1).
import type Anthropic from '@anthropic-ai/sdk';
import type {
  AgentEvent,
  CompactionOptions,
  ConversationMessage,
  TokenUsage,
  TurnEndReason,
  TurnResult,
} from './agent-types.js';
import type { AgentHistory } from './agent-history.js';
import { addUsage, emptyUsage, usageOfMessage } from './agent-usage.js';
import type { ModelClient } from './model-types.js';
import { readPendingInput, type PendingInputSource } from './pending-input.js';
import { QueryError } from './query-error.js';
import { runToolCalls, unrunResults, type ToolRunnerOptions } from './tool-runner.js';

/** What `compactConversation` gives back. */
export interface CompactionOutcome {
  messages: ConversationMessage[];
  summary: string;
  tokensBefore: number;
  tokensAfter: number;
  /** Usage of the summary request (counted in the turn's and the agent's usage). */
  usage: TokenUsage;
}

/** Everything a turn needs from its agent (built once by `createAgent`). */
export interface TurnAgent {
  client: ModelClient;
  model: string;
  maxTokens: number;
  maxRequestsPerTurn: number;
  maxPauseContinuations: number;
  history: AgentHistory;
  /** Builds the request for the current conversation (the request builder, with tools+system fixed). */
  buildRequest(messages: readonly ConversationMessage[]): Anthropic.MessageCreateParamsNonStreaming;
  /** Adds one request's usage to the agent's records; returns the agent's new total. */
  recordUsage(usage: TokenUsage): TokenUsage;
  /** Compaction, when configured. */
  compaction?: CompactionOptions & {
    estimateTokens(messages: readonly ConversationMessage[]): number;
    compact(signal: AbortSignal): Promise<CompactionOutcome>;
  };
  /** The tool runner's options without the turn's signal and events. */
  tools: Omit<ToolRunnerOptions, 'signal' | 'emit'>;
  /** Mid-turn delivery: asked at each tool-result boundary (`AgentOptions.pendingInput`). */
  pendingInput?: PendingInputSource;
}

/** The text of a tool result owed for a call cut off by a stop reason other than `tool_use` (R5). */
export function truncatedCallMessage(stopReason: string | null): string {
  if (stopReason === 'max_tokens') {
    return 'Not run: the response was cut off at max_tokens while this call was being written, so its input may be incomplete. Call the tool again with the complete input (split large content into smaller steps).';
  }
  return `Not run: the response stopped with "${String(stopReason)}" instead of "tool_use", so this call was never executed. Call the tool again if it is still needed.`;
}

/** The result owed for a call that never ran because its turn failed. */
export const FAILED_TURN_MESSAGE =
  'Not run: the turn failed before this call could run. Call it again if it is still needed.';

function textOf(message: Anthropic.Message | undefined): string {
  if (message === undefined) return '';
  return message.content
    .filter((block): block is Anthropic.TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

function failure(error: unknown): { code: string; message: string } {
  if (error instanceof QueryError) return { code: error.code, message: error.message };
  const code =
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string'
      ? (error as { code: string }).code
      : 'TURN_FAILED';
  return { code, message: error instanceof Error ? error.message : String(error) };
}

function endReasonOf(stopReason: string | null): TurnEndReason {
  if (stopReason === 'max_tokens') return 'max_tokens';
  if (stopReason === 'refusal') return 'refusal';
  return 'completed';
}

/**
 * Runs one turn to its end and returns its result; never throws (a failure is
 * `reason: 'failed'`). Events go to `emit` as they happen, `turn_end` last. Without `content`
 * the conversation is sent as it stands (the caller checked that it ends with a user message).
 */
export async function runTurn(
  agent: TurnAgent,
  turn: number,
  content: string | Anthropic.ContentBlockParam[] | undefined,
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
): Promise<TurnResult> {
  const started = performance.now();
  let usage = emptyUsage();
  let requests = 0;
  let toolCalls = 0;
  let pauses = 0;
  let compactedForWindow = false;
  let compactedAt = -1;
  let last: Anthropic.Message | undefined;
  const { history } = agent;

  const finish = (reason: TurnEndReason, error?: { code: string; message: string }): TurnResult => {
    const result: TurnResult = {
      reason,
      stopReason: last?.stop_reason ?? null,
      text: textOf(last),
      usage,
      requests,
      toolCalls,
      durationMs: performance.now() - started,
    };
    if (error !== undefined) result.error = error;
    emit({ type: 'turn_end', ...result });
    return result;
  };

  const compact = async () => {
    const compaction = agent.compaction!;
    const outcome = await compaction.compact(signal);
    compactedAt = history.messages.length;
    usage = addUsage(usage, outcome.usage);
    emit({ type: 'usage', request: outcome.usage, agent: agent.recordUsage(outcome.usage) });
    emit({
      type: 'compaction',
      tokensBefore: outcome.tokensBefore,
      tokensAfter: outcome.tokensAfter,
      summary: outcome.summary,
    });
  };

  emit({ type: 'turn_start', turn, at: Date.now() });
  try {
    if (content !== undefined) history.appendUser(content);
    for (;;) {
      if (signal.aborted) return finish('aborted');
      if (requests >= agent.maxRequestsPerTurn) return finish('max_turns');
      const compaction = agent.compaction;
      if (
        compaction !== undefined &&
        compactedAt !== history.messages.length &&
        compaction.estimateTokens(history.messages) > compaction.thresholdTokens
      ) {
        await compact();
      }
      const params = agent.buildRequest(history.messages);
      emit({ type: 'request_start', requestIndex: requests, attempt: 0 });
      const { message } = await agent.client.stream(params, {
        signal,
        observer: {
          onText: (text) => emit({ type: 'text_delta', text }),
          onThinking: (thinking) => emit({ type: 'thinking_delta', thinking }),
          onAttempt: (attempt) => {
            if (attempt > 0) emit({ type: 'request_start', requestIndex: requests, attempt });
          },
          onResponseStart: (attempt) =>
            emit({ type: 'response_start', requestIndex: requests, attempt }),
          onRetry: (retry) => emit({ type: 'retry', ...retry }),
        },
      });
      requests += 1;
      last = message;
      const requestUsage = usageOfMessage(message);
      usage = addUsage(usage, requestUsage);
      const agentUsage = agent.recordUsage(requestUsage);
      const reportUsage = () => emit({ type: 'usage', request: requestUsage, agent: agentUsage });
      const stopReason = message.stop_reason;

      if (stopReason === 'model_context_window_exceeded') {
        // The partial response is dropped: the conversation is compacted and sent again once.
        reportUsage();
        if (agent.compaction === undefined) {
          return finish('failed', {
            code: 'CONTEXT_WINDOW_EXCEEDED',
            message:
              "The conversation no longer fits the model's context window and compaction is not configured: pass `compaction: { thresholdTokens }` to createAgent, or start a new agent.",
          });
        }
        if (compactedForWindow) {
          return finish('failed', {
            code: 'CONTEXT_WINDOW_EXCEEDED',
            message:
              "The conversation still does not fit the model's context window after compacting it once in this turn; start a new agent or send a shorter message.",
          });
        }
        compactedForWindow = true;
        await compact();
        continue;
      }

      history.appendAssistant(message, requestUsage);
      emit({ type: 'assistant_message', message });
      reportUsage();
      const toolUses = message.content.filter(
        (block): block is Anthropic.ToolUseBlock => block.type === 'tool_use',
      );

      if (stopReason === 'tool_use' && toolUses.length > 0) {
        const outcome = await runToolCalls(toolUses, { ...agent.tools, signal, emit });
        toolCalls += toolUses.length;
        if (signal.aborted) {
          // The results (run or "interrupted") go first in the next turn's user message.
          history.owe(outcome.results);
          return finish('aborted');
        }
        if (agent.pendingInput === undefined) {
          history.appendToolResults(outcome.results);
          continue;
        }
        let delivered: Anthropic.ContentBlockParam[];
        try {
          delivered = await readPendingInput(agent.pendingInput);
        } catch (error) {
          history.appendToolResults(outcome.results); // the results stay; the turn fails
          throw error;
        }
        history.appendToolResults(outcome.results, delivered);
        if (delivered.length > 0) emit({ type: 'input_delivered', blocks: delivered.length });
        continue;
      }

      if (toolUses.length > 0) {
        // R5: never run a call from a response that did not stop for tool_use.
        for (const toolUse of toolUses) {
          emit({
            type: 'truncated_tool_call',
            toolUseId: toolUse.id,
            name: toolUse.name,
            stopReason: String(stopReason),
          });
        }
        history.owe(unrunResults(toolUses, truncatedCallMessage(stopReason)));
      }

      if (stopReason === 'pause_turn') {
        pauses += 1;
        if (pauses > agent.maxPauseContinuations) return finish('max_turns');
        // Sent again as is: no added text (owed results, if any, must answer the calls).
        history.flushOwed();
        continue;
      }
      return finish(endReasonOf(stopReason));
    }
  } catch (error) {
    // Whatever failed, calls the model made must get a result before its next request.
    history.answerUnanswered(FAILED_TURN_MESSAGE);
    if (signal.aborted || (error instanceof QueryError && error.code === 'ABORTED')) {
      return finish('aborted');
    }
    return finish('failed', failure(error));
  }
}
