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
} from './types.ts';
export { ScriptedModelError, type ScriptedModelErrorOptions } from './scripted-model-error.ts';
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
