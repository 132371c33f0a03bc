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
