import { canonicalPrompt } from './canonical-segments.js';
import { createScriptContext } from './script-context.js';
import { buildMessage, buildStreamFrames, type MessageEnvelope } from './stream-frames.js';
import { prepareReply, randomIdentifier, type PreparedReply } from './prepared-reply.js';
import { checkHeaders, parseBody, routeOf } from './request-validation.js';
import { ScriptedModelError } from './scripted-model-error.js';
import { createSeededRandom } from './seeded-random.js';
import {
  defaultMessage,
  pause,
  untilAborted,
  writeStream,
  type StreamEnding,
  type StreamSink,
} from './stream-writer.js';
import { uncachedUsage } from './token-estimate.js';
import type {
  CacheAccount,
  CacheUsage,
  MessagesRequestBody,
  PromptCache,
  Reply,
  RequestLogRecord,
  Script,
  ScriptContext,
  ScriptRequest,
} from './types.js';

/** What a transport hands the core for one HTTP request. */
export interface IncomingRequest {
  method: string;
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  url: string;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string>>;
  body: string;
}

/** What the core answers: a status, headers, and either a JSON body or a writer for a streamed body. */
export interface OutgoingResponse {
  status: number;
  headers: Record<string, string>;
  /** A complete JSON body. */
  json?: unknown;
  /** Writes the body after the headers were sent (streams, and non-stream faults that act on the wire). */
  write?: (sink: StreamSink) => Promise<void>;
}

/** The part of a request log the core uses. */
export interface RequestRecorder {
  record(record: RequestLogRecord): void;
}

/** Options shared by both transports. */
export interface ScriptedModelOptions {
  /** Computes every reply. */
  script: Script;
  /** Simulated prompt cache; without one every input token is plain `input_tokens`. */
  cache?: PromptCache;
  /** Receives one record per request. */
  log?: RequestRecorder;
  /** Builds each request's ScriptContext (default: createScriptContext, woken on every arrival). */
  createContext?: (options: {
    state: Map<string, unknown>;
    requests: () => readonly ScriptRequest[];
    signal: AbortSignal;
    subscribe: (listener: (request: ScriptRequest) => void) => () => void;
  }) => ScriptContext;
}

/** The transport-independent scripted model. */
export interface ScriptedModelCore {
  /** Answers one request; `clientSignal` aborts when the client goes away. */
  handle(request: IncomingRequest, clientSignal: AbortSignal): Promise<OutgoingResponse>;
  /** Aborts every request in flight (their scripts' signals, silences and pauses). */
  stop(): void;
  /** Requests received so far. */
  requests(): readonly ScriptRequest[];
}

/** The suffix every reply's `model` field carries so nobody mistakes the test double for a model. */
export const TEST_DOUBLE_MODEL_SUFFIX = ' (scripted test double)';

/** The HTTP status a `stream-error` becomes on a request that does not stream. */
const NON_STREAM_STATUS: Record<string, number> = {
  overloaded_error: 529,
  rate_limit_error: 429,
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
};

function baseHeaders(): Record<string, string> {
  return { 'request-id': randomIdentifier('req_'), 'x-scripted-model': 'test double' };
}

/** The JSON error reply of a ScriptedModelError (or of an unexpected error, as a 500 api_error). */
export function errorResponse(
  error: unknown,
  extraHeaders: Record<string, string> = {},
): OutgoingResponse {
  const known =
    error instanceof ScriptedModelError
      ? error
      : new ScriptedModelError({
          status: 500,
          errorType: 'api_error',
          message: String((error as Error)?.message ?? error),
        });
  return {
    status: known.status,
    headers: { ...baseHeaders(), 'content-type': 'application/json', ...extraHeaders },
    json: known.toBody(),
  };
}

function httpFaultHeaders(
  fault: Extract<Reply['fault'], { kind: 'http-error' }>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (fault.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(fault.retryAfterSeconds);
  if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fault.retryAfterMs);
  if (fault.shouldRetry !== undefined) headers['x-should-retry'] = String(fault.shouldRetry);
  return headers;
}

/** Creates the scripted model both transports share. */
export function createScriptedModelCore(options: ScriptedModelOptions): ScriptedModelCore {
  if (typeof options.script !== 'function') {
    throw new TypeError(
      'createScriptedModelCore: `script` must be a function (request, context) => Reply',
    );
  }
  const state = new Map<string, unknown>();
  const received: ScriptRequest[] = [];
  const stopController = new AbortController();
  const active = new Set<() => void>();
  const createContext = options.createContext ?? createScriptContext;
  const listeners = new Set<(request: ScriptRequest) => void>();
  const subscribe = (listener: (request: ScriptRequest) => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };

  const record = (entry: RequestLogRecord): void => {
    options.log?.record(entry);
  };

  const answerMessages = async (
    request: ScriptRequest,
    signal: AbortSignal,
  ): Promise<OutgoingResponse> => {
    const { body } = request;
    let account: CacheAccount | undefined;
    let usage: CacheUsage;
    let toolsSystemHash: string;
    if (options.cache) {
      account = options.cache.account(body);
      usage = account.usage;
      toolsSystemHash = account.toolsSystemHash;
    } else {
      const prompt = canonicalPrompt(body);
      usage = uncachedUsage(Math.max(1, prompt.totalTokens));
      toolsSystemHash = prompt.toolsSystemHash;
    }
    const logBase = {
      index: request.index,
      receivedAt: request.receivedAt,
      path: request.path,
      model: body.model,
      stream: body.stream === true,
      toolsSystemHash,
      breakpointHashes: account ? account.breakpoints.map((breakpoint) => breakpoint.hash) : [],
      usage,
    };
    let reply: Reply;
    let prepared: PreparedReply;
    try {
      reply = await options.script(
        request,
        createContext({ state, requests: () => received, signal, subscribe }),
      );
      prepared = prepareReply(reply);
    } catch (error) {
      const failure =
        error instanceof ScriptedModelError
          ? error
          : new ScriptedModelError({
              status: 500,
              errorType: 'api_error',
              message: `script failed: ${(error as Error)?.message ?? String(error)}`,
              cause: error,
            });
      record({ ...logBase, status: failure.status, fault: 'script-error' });
      return errorResponse(failure);
    }
    const fault = reply.fault;
    if (fault?.kind === 'http-error') {
      const failure = new ScriptedModelError({
        status: fault.status,
        errorType: fault.errorType,
        message: fault.message ?? defaultMessage(fault.errorType),
      });
      record({ ...logBase, status: fault.status, fault: fault.kind });
      return errorResponse(failure, httpFaultHeaders(fault));
    }
    const envelope: MessageEnvelope = {
      id: randomIdentifier('msg_'),
      model: body.model + TEST_DOUBLE_MODEL_SUFFIX,
      usage,
    };
    const finish = (status: number, ending?: StreamEnding): void => {
      const faultName = fault?.kind ?? (ending === 'aborted' ? 'client-aborted' : undefined);
      record({
        ...logBase,
        status,
        stopReason: prepared.stopReason,
        ...(faultName ? { fault: faultName } : {}),
      });
    };
    if (body.stream === true) {
      const random = createSeededRandom(request.index + 1);
      const frames = buildStreamFrames(prepared, envelope, reply.stream, random, fault);
      return {
        status: 200,
        headers: {
          ...baseHeaders(),
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
        },
        write: async (sink) => {
          const ending = await writeStream(frames, {
            sink,
            shape: reply.stream,
            fault,
            random,
            signal,
            onMessageStart: () => account?.publish(),
          });
          finish(200, ending);
        },
      };
    }
    return answerWithoutStream(prepared, envelope, reply, signal, account, finish);
  };

  const handle = async (
    incoming: IncomingRequest,
    clientSignal: AbortSignal,
  ): Promise<OutgoingResponse> => {
    const receivedAt = Date.now();
    let route;
    let body: MessagesRequestBody;
    try {
      route = routeOf(incoming.method, incoming.url);
      checkHeaders(incoming.headers);
      body = parseBody(incoming.body, route.route);
    } catch (error) {
      return errorResponse(error);
    }
    if (route.route === 'count_tokens') {
      try {
        const tokens = canonicalPrompt(body).totalTokens;
        return {
          status: 200,
          headers: { ...baseHeaders(), 'content-type': 'application/json' },
          json: { input_tokens: Math.max(1, tokens) },
        };
      } catch (error) {
        return errorResponse(error);
      }
    }
    const request: ScriptRequest = {
      index: received.length,
      path: incoming.url,
      headers: { ...incoming.headers },
      body,
      receivedAt,
    };
    received.push(request);
    for (const listener of [...listeners]) listener(request);
    // One controller per request, linked by hand: AbortSignal.any on a long-lived signal leaks.
    const controller = new AbortController();
    const abort = (): void => controller.abort();
    active.add(abort);
    clientSignal.addEventListener('abort', abort, { once: true });
    if (clientSignal.aborted || stopController.signal.aborted) abort();
    const release = (): void => {
      active.delete(abort);
      clientSignal.removeEventListener('abort', abort);
    };
    let response: OutgoingResponse;
    try {
      response = await answerMessages(request, controller.signal);
    } catch (error) {
      response = errorResponse(error);
    }
    const write = response.write;
    if (!write) {
      release();
      return response;
    }
    return {
      ...response,
      write: async (sink) => {
        try {
          await write(sink);
        } finally {
          release();
        }
      },
    };
  };

  return {
    handle,
    stop: () => {
      stopController.abort();
      for (const abort of [...active]) abort();
    },
    requests: () => received,
  };
}

function answerWithoutStream(
  prepared: PreparedReply,
  envelope: MessageEnvelope,
  reply: Reply,
  signal: AbortSignal,
  account: CacheAccount | undefined,
  finish: (status: number, ending?: StreamEnding) => void,
): Promise<OutgoingResponse> | OutgoingResponse {
  const fault = reply.fault;
  const headers = { ...baseHeaders(), 'content-type': 'application/json' };
  const message = buildMessage(prepared, envelope);
  if (fault?.kind === 'stream-error') {
    // Without a stream the error can only come as an HTTP status.
    const status = NON_STREAM_STATUS[fault.errorType] ?? 500;
    finish(status);
    return errorResponse(
      new ScriptedModelError({
        status,
        errorType: fault.errorType,
        message: fault.message ?? defaultMessage(fault.errorType),
      }),
    );
  }
  if (fault?.kind === 'silence-after-headers' || fault?.kind === 'socket-reset') {
    return {
      status: 200,
      headers,
      write: async (sink) => {
        if (fault.kind === 'silence-after-headers') {
          await untilAborted(signal);
          sink.end();
          finish(200, 'aborted');
          return;
        }
        const text = Buffer.from(JSON.stringify(message), 'utf8');
        await sink.write(text.subarray(0, Math.floor(text.length / 2)));
        sink.reset();
        finish(200, 'socket-reset');
      },
    };
  }
  const send = (): OutgoingResponse => {
    account?.publish();
    finish(200);
    return { status: 200, headers, json: message };
  };
  if (fault?.kind === 'pings-only') return pause(fault.durationMs, signal).then(send);
  return send();
}
