import { MusterError } from '@muster/protocol';

/** Why the agent loop or its model client refused or failed. */
export type QueryErrorCode =
  /** An option given to a factory (`createModelClient`, `createAgent`, …) is missing or out of range. */
  | 'INVALID_OPTIONS'
  /** The model API refused the request for good (400, 401, 403, 404, 413, …); not retried. */
  | 'MODEL_REQUEST_REFUSED'
  /** Retryable failures went on past the retry limit. */
  | 'RETRIES_EXHAUSTED'
  /** No byte arrived for `streamIdleMs`. */
  | 'STREAM_IDLE'
  /** The stream broke (socket reset, missing `message_start`/`message_stop`) and was not retried. */
  | 'STREAM_FAILED'
  /** The turn was aborted (per-turn or lifecycle signal). */
  | 'ABORTED'
  /** The agent was closed; it takes no more turns. */
  | 'AGENT_CLOSED'
  /** A turn was started while another one of the same agent is running. */
  | 'TURN_IN_PROGRESS'
  /** The conversation no longer fits the model's context window, and compaction could not help. */
  | 'CONTEXT_WINDOW_EXCEEDED'
  /** A transcript file cannot be written or read. */
  | 'TRANSCRIPT_FAILED'
  /** The model did not give a usable summary when asked to compact the conversation. */
  | 'COMPACTION_FAILED'
  /** `pendingInput` threw or returned something that is not content blocks (mid-turn delivery). */
  | 'PENDING_INPUT_FAILED'
  /** A fork was asked for inside a fork child (R13): fork children do the work themselves. */
  | 'NESTED_FORK'
  /** A fork source was asked for when no tool call of the agent is running, or is malformed. */
  | 'FORK_UNAVAILABLE';

/** Errors of `@muster/query`. The message says what failed and what to do. */
export class QueryError extends MusterError<QueryErrorCode> {}

/**
 * Thrown by a tool for a failure the model should read (a missing file, a path outside the
 * agent's directories, a stale read). The loop turns it into an `is_error` tool result with
 * `message` as its content; any other exception becomes one too, prefixed with the tool name.
 */
export class ToolError extends MusterError<string> {
  constructor(message: string, code = 'TOOL_FAILED', details?: Record<string, unknown>) {
    super({ code, message, details });
  }
}
