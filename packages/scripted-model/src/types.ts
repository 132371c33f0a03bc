/**
 * The contract shared by the scripted model's server, prompt cache, request log and scripts.
 * This is a TEST DOUBLE of the Anthropic Messages API: nothing here talks to a real model.
 */

/** A Messages API request body as received (JSON, key order kept). */
export interface MessagesRequestBody {
  model: string;
  max_tokens: number;
  messages: unknown[];
  system?: string | unknown[];
  tools?: unknown[];
  tool_choice?: unknown;
  stream?: boolean;
  metadata?: { user_id?: string };
  thinking?: unknown;
  [key: string]: unknown;
}

/** What a script sees of one request. */
export interface ScriptRequest {
  index: number /* 0-based, per server run */;
  path: string;
  headers: Readonly<Record<string, string>>;
  body: MessagesRequestBody;
  receivedAt: number;
}

/** One content block of a scripted reply. */
export type ReplyBlock =
  | { type: 'text'; text: string }
  | {
      type: 'tool_use';
      id?: string /* generated toolu_… when absent */;
      name: string;
      input: unknown;
    }
  | { type: 'thinking'; thinking: string; signature?: string };

/** Why the scripted model stopped. */
export type StopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

/** A failure the scripted model injects into one reply. */
export type Fault =
  | {
      kind: 'http-error';
      status: number;
      errorType: string;
      message?: string;
      retryAfterSeconds?: number;
      retryAfterMs?: number;
      shouldRetry?: boolean;
    }
  | {
      kind: 'stream-error';
      afterEvents: number;
      /** Any Anthropic error type; the real API sends `overloaded_error` and `api_error` most. */
      errorType: string;
      message?: string;
    }
  | { kind: 'socket-reset'; afterEvents: number }
  | { kind: 'silence-after-headers' } // until the client goes away or the server stops
  | { kind: 'pings-only'; durationMs: number; intervalMs?: number } // then the normal reply
  | { kind: 'omit-message-start' }
  | { kind: 'omit-message-stop' }
  | { kind: 'omit-message-delta' } // no stop reason: message_stop follows the last block
  | { kind: 'max-tokens-in-tool-use'; keepInputBytes: number }; // cut the last tool_use's JSON

/** How a streamed reply is framed and cut on the wire. */
export interface StreamShape {
  chunkBytes?: { min: number; max: number };
  lineEnding?: 'lf' | 'crlf';
  latencyPerChunkMs?: number;
  pingEveryEvents?: number;
  unknownEvents?: boolean;
  inputJsonSplits?: number;
}

/** What a script answers to one request. */
export interface Reply {
  content: ReplyBlock[];
  stopReason?: StopReason /* default: tool_use if any tool_use else end_turn */;
  fault?: Fault;
  stream?: StreamShape;
  outputTokens?: number;
}

/** Bounds for ScriptContext.waitFor and waitForRequest. */
export interface WaitOptions {
  timeoutMs: number;
  pollMs?: number;
  description: string;
}

/** What a script can use besides the request itself. */
export interface ScriptContext {
  /** Per-run scratch state shared by every request of one server. */
  state: Map<string, unknown>;
  /** Requests received so far (this one included). */
  requests: readonly ScriptRequest[];
  /** Resolves when condition() is true; rejects with a clear error naming `description` after timeoutMs. */
  waitFor(condition: () => boolean | Promise<boolean>, options: WaitOptions): Promise<void>;
  /** Resolves when a request matching the predicate has arrived (bounded like waitFor). */
  waitForRequest(
    predicate: (request: ScriptRequest) => boolean,
    options: WaitOptions,
  ): Promise<ScriptRequest>;
  /** Aborted when the client disconnects or the server stops. */
  signal: AbortSignal;
}

/** A scripted model: answers each request with a Reply. */
export type Script = (request: ScriptRequest, context: ScriptContext) => Reply | Promise<Reply>;

/** Usage figures of one request as the cache accounted them. */
export interface CacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** The prompt cache's account of one request. */
export interface CacheAccount {
  usage: CacheUsage;
  toolsSystemHash: string;
  breakpoints: { hash: string; tokens: number; ttl: '5m' | '1h' }[];
  /** Call when the request's message_start is sent: only then its entries become readable. */
  publish(): void;
}

/** A simulated prompt cache. */
export interface PromptCache {
  account(
    body: MessagesRequestBody,
  ): CacheAccount /* throws ScriptedModelError (400, invalid_request_error) on >4 breakpoints */;
}

/** One line of the request log. */
export interface RequestLogRecord {
  index: number;
  receivedAt: number;
  path: string;
  model: string;
  stream: boolean;
  toolsSystemHash: string;
  breakpointHashes: string[];
  usage: CacheUsage;
  stopReason?: string;
  fault?: string;
  status: number;
}
