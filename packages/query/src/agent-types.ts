// The public shapes of one agent: its options, the events a turn yields, and its results.
// The contract between the loop (agent.ts, turn-runner.ts, tool-runner.ts), the model client
// (model-client.ts) and the transcript/compaction code.
import type Anthropic from '@anthropic-ai/sdk';
import type { PermissionDecision } from '@muster/permissions';
import type { ModelClient } from './model-types.js';
import type { ForkOptions } from './fork.js';
import type { PendingInputSource } from './pending-input.js';
import type { AnyTool, ToolAgentIdentity, ToolRoots } from './tool.js';

/** A message of the conversation, exactly as sent to (and received from) the Messages API. */
export type ConversationMessage = Anthropic.MessageParam;

/** Token usage of one request, or summed over many. */
export interface TokenUsage {
  /** Uncached prompt tokens. */
  inputTokens: number;
  /** Prompt tokens written to the cache. */
  cacheCreationInputTokens: number;
  /** Prompt tokens read from the cache. */
  cacheReadInputTokens: number;
  /** Generated tokens. */
  outputTokens: number;
}

/** A tool call the loop is about to run, as given to the authorizer. */
export interface ToolCallRequest {
  toolName: string;
  toolUseId: string;
  /** The input, already checked against the tool's schema. */
  input: Record<string, unknown>;
  /** The tool's own judgement for this input. */
  readOnly: boolean;
  /** The paths the call touches, as the tool reports them. */
  paths: string[];
  /** A one-line description for the person deciding. */
  description: string;
}

/** What the authorizer decided for one call. */
export interface ToolAuthorization {
  behavior: 'allow' | 'deny';
  /** The input to run with (a person may have edited it); defaults to the request's input. */
  input?: Record<string, unknown>;
  /** Why the call may not run: the model reads exactly this. */
  message?: string;
  /** The decision of `@muster/permissions` behind it, for the event stream and audit. */
  decision?: PermissionDecision;
  /** Paths a person approved for this call only (added to the call's roots). */
  approvedPaths?: string[];
  /** Whether a person (or a lead) was asked. */
  asked?: boolean;
}

/** What the loop gives an authorizer besides the call. */
export interface AuthorizationHelpers {
  /** The turn's signal: stop waiting for an answer when it aborts (and deny). */
  signal: AbortSignal;
  /**
   * Call before asking a person or a lead: the loop yields a `permission_ask` event (so a UI
   * can show the prompt) and records that the call was asked about.
   */
  announceAsk(decision?: PermissionDecision): void;
}

/** Decides whether a tool call may run. `createPermissionAuthorizer` builds one from a permission context. */
export type ToolAuthorizer = (
  call: ToolCallRequest,
  helpers: AuthorizationHelpers,
) => Promise<ToolAuthorization>;

/** How the conversation is compacted when it grows too long. */
export interface CompactionOptions {
  /** Compact before a request whose estimated prompt passes this many tokens. */
  thresholdTokens: number;
  /**
   * Text that must survive compaction (the agent's identity, its team, its lead, its current
   * task). Called at each compaction; put at the top of the continued conversation.
   */
  preservedContext?: () => string;
}

/** Options of `createAgent`. */
export interface AgentOptions {
  /** The model client (`createModelClient`). */
  client: ModelClient;
  /** Model id or alias (`claude-sonnet-5-5`, `sonnet`). Required, except for a fork child (its source's model). */
  model?: string;
  /** Who the agent is (name, id, team). */
  identity: ToolAgentIdentity;
  /**
   * The system prompt: fixed for the agent's life (its bytes never change). Required, except
   * for a fork child, which must leave it out (it uses its parent's rendered bytes).
   */
  system?: string | Anthropic.TextBlockParam[];
  /** The agent's tools (fixed for its life, in this order). */
  tools: readonly AnyTool[];
  /** The working directory (absolute). */
  cwd: string;
  /** Where tools may read and write, before per-call approvals. Called before every call. */
  roots: () => ToolRoots;
  /** Decides every tool call before it runs. */
  authorize: ToolAuthorizer;
  /** `max_tokens` per request (default 32_000). */
  maxTokens?: number;
  /** Requests per turn before the turn ends with `max_turns` (default 200). */
  maxRequestsPerTurn?: number;
  /** `pause_turn` continuations per turn (default 5, R7). */
  maxPauseContinuations?: number;
  /** Appends the conversation to this JSONL file as it goes. */
  transcriptPath?: string;
  /** Compaction; off when absent. */
  compaction?: CompactionOptions;
  /** Aborting it ends the agent for good (the lifecycle signal, R29). */
  signal?: AbortSignal;
  /** The environment tool processes start from (default: `process.env`); credentials are always removed. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Conversation to start from (a resumed transcript). */
  messages?: readonly ConversationMessage[];
  /**
   * Mid-turn delivery: called at each tool-result boundary of a turn (after the tool results
   * are collected, before the next request). The blocks it returns go after every tool_result of
   * that user message and a turn yields `input_delivered`. Not called when a turn ends without
   * tool calls: send the waiting input as the next turn then.
   */
  pendingInput?: PendingInputSource;
  /**
   * Makes this agent a fork child (R11–R13): its requests use the source's rendered system
   * prompt, tools and model byte for byte, its conversation is the parent's up to the
   * assistant message whose tool made the fork, then one placeholder result per call of that
   * message and the directive. Leave `system` out (and `model`, or give the same one); `tools`
   * lists what the child may RUN (a subset of the parent's), the model still sees every tool.
   * Start it with `send()` without content (or use `startForks`).
   */
  fork?: ForkOptions;
}

/** Why a turn ended. */
export type TurnEndReason =
  /** The model ended its turn (`end_turn` or `stop_sequence`). */
  | 'completed'
  /** The model stopped at `max_tokens`; a trailing tool call was not run. */
  | 'max_tokens'
  /** The model refused (`refusal`). */
  | 'refusal'
  /** `maxRequestsPerTurn` or `maxPauseContinuations` was reached. */
  | 'max_turns'
  /** The turn (or the agent) was aborted. */
  | 'aborted'
  /** A final error (not retryable, or retries exhausted). */
  | 'failed';

/** What a turn yields, in order. */
export type AgentEvent =
  | { type: 'turn_start'; turn: number; at: number }
  | { type: 'request_start'; requestIndex: number; attempt: number }
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'assistant_message'; message: Anthropic.Message }
  | {
      type: 'usage';
      /** This request's usage. */
      request: TokenUsage;
      /** The agent's total so far. */
      agent: TokenUsage;
    }
  | {
      type: 'retry';
      attempt: number;
      delayMs: number;
      /** The error's class or API type (`overloaded_error`, `STREAM_IDLE`, …). */
      kind: string;
      message: string;
    }
  | { type: 'tool_call_start'; toolUseId: string; name: string; input: unknown }
  | {
      type: 'permission_ask';
      toolUseId: string;
      name: string;
      input: Record<string, unknown>;
      decision?: PermissionDecision;
    }
  | {
      type: 'tool_call_end';
      toolUseId: string;
      name: string;
      /** False when the authorizer denied it or its input failed the schema. */
      allowed: boolean;
      isError: boolean;
      durationMs: number;
      /** The result content as the model sees it (text, images summarised). */
      resultText: string;
    }
  | {
      type: 'truncated_tool_call';
      toolUseId: string;
      name: string;
      stopReason: string;
    }
  | { type: 'compaction'; tokensBefore: number; tokensAfter: number; summary: string }
  /** Input from `pendingInput` joined the tool results of this boundary (mid-turn delivery). */
  | { type: 'input_delivered'; blocks: number }
  /** The response to a request started streaming (its `message_start`): its prompt is now cached. */
  | { type: 'response_start'; requestIndex: number; attempt: number }
  | {
      type: 'turn_end';
      reason: TurnEndReason;
      /** The last response's stop reason, when there was one. */
      stopReason: string | null;
      /** The last assistant message's text. */
      text: string;
      /** The error, when `reason` is `failed`. */
      error?: { code: string; message: string };
      /** This turn's usage. */
      usage: TokenUsage;
      requests: number;
      toolCalls: number;
      durationMs: number;
    };

/** The result of a turn (the `turn_end` event without `type`). */
export type TurnResult = Omit<Extract<AgentEvent, { type: 'turn_end' }>, 'type'>;

/** A running turn: iterate it for events, or await `result`. */
export interface AgentTurn extends AsyncIterable<AgentEvent> {
  /** Resolves when the turn ends (never rejects; a failure is `reason: 'failed'`). */
  readonly result: Promise<TurnResult>;
  /**
   * Resolves `true` when the first response of the turn starts streaming (`response_start`),
   * `false` when the turn ended without one. Does not consume events.
   */
  readonly responseStarted: Promise<boolean>;
  /** Aborts this turn only (R29): the stream and the turn's tool processes end; the agent stays usable. */
  abort(reason?: string): void;
}

/** One agent: a conversation with the model plus its tools. */
export interface Agent {
  readonly identity: ToolAgentIdentity;
  /**
   * Starts a turn with a user message (text or content blocks). One turn at a time. Without
   * content, sends the conversation as it stands; it must end with a user message (a fork
   * child's first turn), else `INVALID_OPTIONS`.
   */
  send(content?: string | Anthropic.ContentBlockParam[]): AgentTurn;
  /** The conversation so far (a copy). */
  messages(): ConversationMessage[];
  /** Usage summed over the agent's life (R8). */
  usage(): TokenUsage;
  /** Per-request usage records, in order (R8). */
  requestUsage(): TokenUsage[];
  /** Whether a turn is running. */
  readonly busy: boolean;
  /** Ends the agent: aborts any turn, runs every `onAgentClose` (background shells), closes the transcript. */
  close(reason?: string): Promise<void>;
}
