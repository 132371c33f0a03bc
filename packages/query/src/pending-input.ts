// Mid-turn delivery: input that arrives while an agent is in the middle of a turn (a lead's
// message, a shutdown request) reaches the model at the next tool-result boundary instead of
// waiting for the turn to end. The loop asks `pendingInput` once per boundary; the blocks it
// gives go after every tool_result of that user message, so the reply shape (R6) still holds.
import type Anthropic from '@anthropic-ai/sdk';
import { QueryError } from './query-error.js';

/**
 * Gives the input waiting for the agent, or `undefined` (or an empty array) when there is none.
 * Called by the loop after the tool results of a response are collected and before the next
 * request; whatever it returns is taken as delivered (remove it from your queue when you return it).
 */
export type PendingInputSource = () =>
  | readonly Anthropic.ContentBlockParam[]
  | undefined
  | Promise<readonly Anthropic.ContentBlockParam[] | undefined>;

const TOOL_RESULT_REFUSAL =
  'a tool_result block cannot be delivered as pending input (results belong to the loop); send text or image blocks';

function describeBlock(block: unknown): string | undefined {
  if (typeof block !== 'object' || block === null || Array.isArray(block)) {
    return 'is not a content block object';
  }
  const type = (block as { type?: unknown }).type;
  if (typeof type !== 'string' || type === '') return 'has no string "type"';
  if (type === 'tool_result') return TOOL_RESULT_REFUSAL;
  if (type === 'text' && typeof (block as { text?: unknown }).text !== 'string') {
    return 'is a text block without a string "text"';
  }
  if (type === 'text' && (block as { text: string }).text === '') {
    return 'is an empty text block (the API refuses those)';
  }
  return undefined;
}

/**
 * Asks `source` for pending input and checks it. Returns the blocks to deliver (a copy of the
 * array; the blocks themselves are sent as given), `[]` when there are none. Throws
 * `QueryError('PENDING_INPUT_FAILED')` when `source` throws or returns something that is not
 * an array of content blocks, saying which block is wrong.
 */
export async function readPendingInput(
  source: PendingInputSource,
): Promise<Anthropic.ContentBlockParam[]> {
  let value: unknown;
  try {
    value = await source();
  } catch (error) {
    throw new QueryError({
      code: 'PENDING_INPUT_FAILED',
      message: `pendingInput threw at a tool-result boundary: ${error instanceof Error ? error.message : String(error)}. Fix the pendingInput function given to createAgent; the tool results of this turn were kept.`,
      cause: error,
    });
  }
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new QueryError({
      code: 'PENDING_INPUT_FAILED',
      message: `pendingInput must return an array of content blocks or undefined, got ${value === null ? 'null' : typeof value}. The tool results of this turn were kept.`,
    });
  }
  value.forEach((block: unknown, index) => {
    const problem = describeBlock(block);
    if (problem !== undefined) {
      throw new QueryError({
        code: 'PENDING_INPUT_FAILED',
        message: `pendingInput returned a bad block: [${index}] ${problem}. The tool results of this turn were kept.`,
      });
    }
  });
  return [...(value as Anthropic.ContentBlockParam[])];
}
