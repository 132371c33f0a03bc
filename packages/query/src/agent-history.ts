// One agent's conversation as the loop keeps it: the messages sent so far, the tool results
// still owed to the model (R5: a truncated call; R29: an interrupted one), and a hook that
// mirrors every message into the transcript as it is appended.
import type Anthropic from '@anthropic-ai/sdk';
import type { ConversationMessage, TokenUsage } from './agent-types.js';
import type { ToolResultBlock } from './tool-runner.js';

/** What the history tells its recorder (the transcript) about an appended message. */
export interface HistoryRecord {
  message: ConversationMessage;
  usage?: TokenUsage;
  stopReason?: string | null;
}

/** The conversation of one agent. Messages are never changed in place: a merge replaces the object. */
export interface AgentHistory {
  /** The live list (read-only for callers; copy it before handing it out). */
  readonly messages: readonly ConversationMessage[];
  /** Tool results owed to the model; they go first in the next user message. */
  readonly pending: readonly ToolResultBlock[];
  /**
   * Appends the user's content (always as blocks, so its bytes never change between requests),
   * after any owed tool results. When the last message is already
   * a user message (the previous turn failed or was aborted before the model answered), the
   * content is added to it instead, so roles keep alternating.
   */
  appendUser(content: string | Anthropic.ContentBlockParam[]): void;
  /** Appends the model's message exactly as received (thinking blocks included). */
  appendAssistant(message: Anthropic.Message, usage: TokenUsage): void;
  /**
   * Appends one user message holding `results` (owed results first), for a `tool_use` stop;
   * `after` (input delivered mid-turn) goes after every result.
   */
  appendToolResults(
    results: readonly ToolResultBlock[],
    after?: readonly Anthropic.ContentBlockParam[],
  ): void;
  /** Records results for calls that will never run; they go out with the next user message. */
  owe(results: readonly ToolResultBlock[]): void;
  /** Sends what is owed now, as its own user message (a `pause_turn` continuation). */
  flushOwed(): boolean;
  /**
   * After a failure: owes an `is_error` result (`message`) for every call of the last assistant
   * message that has none yet, so the next request stays valid. Returns how many it added.
   */
  answerUnanswered(message: string): number;
  /** Replaces the whole conversation (after compaction). */
  replace(messages: readonly ConversationMessage[]): void;
}

function asBlocks(content: ConversationMessage['content']): Anthropic.ContentBlockParam[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
}

/** The tool_use blocks of an assistant message that have no result after it. */
function unansweredToolUses(messages: readonly ConversationMessage[]): string[] {
  const last = messages.at(-1);
  if (last === undefined || last.role !== 'assistant' || typeof last.content === 'string')
    return [];
  return last.content
    .filter((block): block is Anthropic.ToolUseBlockParam => block.type === 'tool_use')
    .map((block) => block.id);
}

/** Message text of a result owed for a call of a conversation that was resumed mid-call. */
export const RESUMED_UNANSWERED_MESSAGE =
  'Not run: the conversation was resumed after this call was made and before its result was recorded.';

/**
 * Creates the history, starting from `initial` (a resumed conversation; a trailing assistant
 * message whose tool calls have no results gets `is_error` results owed for them).
 */
export function createAgentHistory(
  initial: readonly ConversationMessage[],
  record: (entry: HistoryRecord) => void,
): AgentHistory {
  let messages: ConversationMessage[] = initial.map((message) => structuredClone(message));
  let owed: ToolResultBlock[] = unansweredToolUses(messages).map((id) => ({
    type: 'tool_result',
    tool_use_id: id,
    content: RESUMED_UNANSWERED_MESSAGE,
    is_error: true,
  }));

  const push = (message: ConversationMessage, details: Omit<HistoryRecord, 'message'> = {}) => {
    messages.push(message);
    record({ message, ...details });
  };

  return {
    get messages() {
      return messages;
    },
    get pending() {
      return owed;
    },
    appendUser(content) {
      const added: Anthropic.ContentBlockParam[] = [...owed, ...asBlocks(content)];
      const last = messages.at(-1);
      if (last !== undefined && last.role === 'user') {
        messages[messages.length - 1] = {
          role: 'user',
          content: [...asBlocks(last.content), ...added],
        };
        record({ message: { role: 'user', content: added } });
      } else {
        push({ role: 'user', content: added });
      }
      owed = [];
    },
    appendAssistant(message, usage) {
      push(
        { role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] },
        { usage, stopReason: message.stop_reason },
      );
    },
    appendToolResults(results, after = []) {
      push({ role: 'user', content: [...owed, ...results, ...after] });
      owed = [];
    },
    owe(results) {
      owed = [...owed, ...results];
    },
    flushOwed() {
      if (owed.length === 0) return false;
      push({ role: 'user', content: owed });
      owed = [];
      return true;
    },
    answerUnanswered(message) {
      const owedIds = new Set(owed.map((result) => result.tool_use_id));
      const missing = unansweredToolUses(messages).filter((id) => !owedIds.has(id));
      owed = [
        ...owed,
        ...missing.map((id): ToolResultBlock => ({
          type: 'tool_result',
          tool_use_id: id,
          content: message,
          is_error: true,
        })),
      ];
      return missing.length;
    },
    replace(next) {
      messages = next.map((message) => structuredClone(message));
    },
  };
}
