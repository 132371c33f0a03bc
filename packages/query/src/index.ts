// Public API of @muster/query. Each section belongs to one file group; add exports by name.

// --- contract (tool.ts, agent-types.ts, model-types.ts, query-error.ts) ---
export type {
  AnyTool,
  Tool,
  ToolAgentIdentity,
  ToolContext,
  ToolResult,
  ToolResultImageBlock,
  ToolResultTextBlock,
  ToolRoots,
  ToolStateStore,
} from './tool.js';
export type {
  Agent,
  AgentEvent,
  AgentOptions,
  AgentTurn,
  AuthorizationHelpers,
  CompactionOptions,
  ConversationMessage,
  TokenUsage,
  ToolAuthorization,
  ToolAuthorizer,
  ToolCallRequest,
  TurnEndReason,
  TurnResult,
} from './agent-types.js';
export type { ErrorClass, ModelClient, ModelClientOptions, StreamObserver } from './model-types.js';
export { QueryError, ToolError } from './query-error.js';
export type { QueryErrorCode } from './query-error.js';

// --- model names and prices (model-names.ts, model-prices.ts) ---
export { MODEL_ALIAS_VARIABLES, MODEL_ALIASES, resolveModelName } from './model-names.js';
export type { ResolveModelOptions } from './model-names.js';
export { estimateCostUsd, MODEL_PRICES, MODEL_PRICES_DATE, modelPrice } from './model-prices.js';
export type { EstimateCostOptions, ModelPrice, ModelPriceRates } from './model-prices.js';

// --- model client (model-client*.ts, idle-watchdog*.ts, error-classification*.ts) ---
export { createModelClient } from './model-client.js';
export {
  DEFAULT_MAX_RETRIES,
  DEFAULT_RETRY_BASE_MS,
  DEFAULT_STREAM_IDLE_MS,
  DEFAULT_STREAM_RETRIES,
  MAX_RETRY_DELAY_MS,
  retryDelayMs,
} from './model-client-options.js';
export { createIdleWatchdogFetch } from './idle-watchdog.js';
export {
  classifyModelError,
  FINAL_HTTP_STATUSES,
  RETRYABLE_API_ERROR_TYPES,
} from './error-classification.js';
export type { ModelErrorClassification } from './error-classification.js';

// --- loop (agent*.ts, turn-runner*.ts, tool-runner*.ts, request-builder*.ts, permission-authorizer*.ts) ---
// request shape and prompt caching (request-builder*.ts)
export { buildRequest, INTERMEDIATE_BREAKPOINT_BLOCKS } from './request-builder.js';
export type { BreakpointState, BuildRequestInput, BuiltRequest } from './request-builder.js';
export { renderSystem, renderTools, TOOL_NAME_PATTERN } from './request-builder-render.js';
// the agent loop (agent*.ts, turn-runner*.ts, tool-runner*.ts, tool-state*.ts, permission-authorizer*.ts)
export { createAgent } from './agent.js';
export {
  DEFAULT_MAX_PAUSE_CONTINUATIONS,
  DEFAULT_MAX_REQUESTS_PER_TURN,
  DEFAULT_MAX_TOKENS,
} from './agent-options.js';
export { RESUMED_UNANSWERED_MESSAGE } from './agent-history.js';
export { INTERRUPTED_MESSAGE, MAX_PARALLEL_TOOL_CALLS, runToolCalls } from './tool-runner.js';
export type { ToolResultBlock, ToolRunnerOptions, ToolRunOutcome } from './tool-runner.js';
export { truncatedCallMessage } from './turn-runner.js';
export { createToolStateStore } from './tool-state.js';
export { createPermissionAuthorizer, rootsFromPermissionContext } from './permission-authorizer.js';
export type {
  PermissionAskAnswer,
  PermissionAskHandler,
  PermissionAuthorizerOptions,
} from './permission-authorizer.js';

// --- transcripts, compaction, secrets (transcript*.ts, compaction*.ts, secrets*.ts) ---
export {
  createSecretRedactor,
  credentialValues,
  isModelCredentialVariable,
  MINIMUM_SECRET_LENGTH,
  MODEL_CREDENTIAL_PREFIXES,
  MODEL_CREDENTIAL_VARIABLES,
  REDACTED_TEXT,
  scrubEnvironment,
} from './secrets.js';
export { createTranscript } from './transcript.js';
export type {
  Transcript,
  TranscriptAgentEntry,
  TranscriptCompactionEntry,
  TranscriptEntry,
  TranscriptEntryInput,
  TranscriptMessageEntry,
  TranscriptOptions,
} from './transcript.js';
export { readTranscript } from './transcript-reader.js';
export type { SkippedTranscriptLine, TranscriptContents } from './transcript-reader.js';
export {
  COMPACTION_INSTRUCTION,
  compactConversation,
  estimateTokens,
  MAX_COMPACTION_REQUESTS,
  NOT_RUN_BEFORE_COMPACTION,
} from './compaction.js';
export type { CompactionInput, CompactionResult } from './compaction.js';

// --- forks and mid-turn delivery (fork*.ts, pending-input*.ts) ---
export {
  checkForkSource,
  FORK_BOILERPLATE_TAG,
  FORK_PLACEHOLDER_RESULT,
  FORK_RULES,
  forkDirectiveBlock,
  forkFirstMessage,
  isForkDirectiveBlock,
  isInForkChild,
} from './fork.js';
export type { ForkOptions, ForkRequestFields, ForkSource } from './fork.js';
export { startForks } from './fork-start.js';
export type { ForkChildFactory, StartedFork } from './fork-start.js';
export { readPendingInput } from './pending-input.js';
export type { PendingInputSource } from './pending-input.js';
