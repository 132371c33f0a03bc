export type {
  MessagesRequestBody,
  ScriptRequest,
  ReplyBlock,
  StopReason,
  Fault,
  StreamShape,
  Reply,
  WaitOptions,
  ScriptContext,
  Script,
  CacheUsage,
  CacheAccount,
  PromptCache,
  RequestLogRecord,
} from './types.js';
export { ScriptedModelError, type ScriptedModelErrorOptions } from './scripted-model-error.js';
export {
  createPromptCache,
  DEFAULT_MINIMUM_CACHE_TOKENS,
  type PromptCacheOptions,
} from './prompt-cache.js';
export { createRequestLog, type RequestLog, type RequestLogOptions } from './request-log.js';
export {
  canonicalPrompt,
  type CanonicalPrompt,
  type CanonicalSegment,
} from './canonical-segments.js';
export {
  startScriptedModel,
  type StartScriptedModelOptions,
  type ScriptedModelServer,
} from './http-transport.js';
export { createScriptedFetch, type ScriptedFetch } from './fetch-transport.js';
export {
  TEST_DOUBLE_MODEL_SUFFIX,
  type ScriptedModelOptions,
  type RequestRecorder,
} from './scripted-model-core.js';
export { ACCEPTED_ANTHROPIC_VERSIONS } from './request-validation.js';
export { UNKNOWN_EVENT_NAME } from './stream-frames.js';
export {
  text,
  toolUse,
  thinking,
  reply,
  fault,
  sequence,
  type ReplyOptions,
  type ReplySpec,
  type FaultOptions,
  type SequenceStep,
  type SequenceOptions,
} from './script-helpers.js';
export {
  agentNameOf,
  isLeadRequest,
  isTeammateRequest,
  spawnPromptOf,
  lastUserText,
  firstUserText,
  systemText,
  toolNames,
  hasTool,
  userIdOf,
  workingDirectoryOf,
  messagesOf,
  toolCalls,
  toolResults,
  allToolResults,
  teammateMessages,
  allTeammateMessages,
  parseTeammateMessages,
  type TeammateMessage,
  type ToolCall,
  type ToolResult,
  type UserTextOptions,
} from './script-helpers-tellers.js';
export {
  createScriptContext,
  waitForFile,
  waitUntil,
  ScriptWaitError,
  DEFAULT_POLL_MS,
  type ScriptContextOptions,
  type WaitForFileOptions,
} from './script-context.js';
export { loadScript, BUILT_IN_SCRIPTS, ScriptLoadError } from './load-script.js';
export { demoTeamScript, demoRoleOf, type DemoRole } from './scripts/demo-team.js';
export {
  DEMO_TEAM_REPOSITORY,
  DEMO_TEAM_PROMPT,
  DEMO_TEAM_NAME,
  DEMO_IMPLEMENTER,
  DEMO_TESTER,
  DEMO_REVIEWER,
  DEMO_TEAMMATES,
  DEMO_TASKS,
  DEMO_SCRIPT_LABEL,
  DEMO_TEAM_PERMISSION_RULES,
  DEMO_IMPLEMENTER_AGENT_TYPE,
  DEMO_MERGE_REQUEST,
  DEMO_MERGED,
} from './scripts/demo-team-content.js';
export { DEMO_COMMIT_COMMAND } from './scripts/demo-team-implementer.js';
