// One agent: its conversation with the model, its tools and its lifetime. `send` starts a
// turn (one at a time); the turn is an async iterable of events with a `result`. Two-level
// abort (R29): the lifecycle signal ends the agent, each turn has its own controller linked to
// it by hand (never `AbortSignal.any`, whose dependant set grows without bound on Node 20).
import type Anthropic from '@anthropic-ai/sdk';
import {
  checkAgentOptions,
  DEFAULT_MAX_PAUSE_CONTINUATIONS,
  DEFAULT_MAX_REQUESTS_PER_TURN,
  DEFAULT_MAX_TOKENS,
} from './agent-options.js';
import { createAgentHistory, type HistoryRecord } from './agent-history.js';
import type { Agent, AgentOptions, AgentTurn, TokenUsage, TurnResult } from './agent-types.js';
import { addUsage, emptyUsage } from './agent-usage.js';
import { compactAgentConversation, createRequestTokenEstimator } from './agent-compaction.js';
import { createForkSource, isForkDirectiveBlock, type ForkRequestFields } from './fork.js';
import { setUpForkAgent } from './fork-agent.js';
import { resolveModelName } from './model-names.js';
import { QueryError } from './query-error.js';
import { buildRequest, type BreakpointState } from './request-builder.js';
import { renderSystem, renderTools } from './request-builder-render.js';
import { createSecretRedactor, credentialValues, scrubEnvironment } from './secrets.js';
import type { AnyTool, ToolContext } from './tool.js';
import { createAgentDisposers, createToolStateStore } from './tool-state.js';
import { createTranscript, type Transcript } from './transcript.js';
import { createTurnEventChannel } from './turn-events.js';
import { runTurn, type TurnAgent } from './turn-runner.js';

function checkContent(content: unknown): asserts content is string | Anthropic.ContentBlockParam[] {
  const valid =
    (typeof content === 'string' && content !== '') ||
    (Array.isArray(content) &&
      content.length > 0 &&
      content.every(
        (block) => typeof block === 'object' && block !== null && typeof block.type === 'string',
      ));
  if (!valid) {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message:
        'agent.send: pass the user message as a non-empty string or a non-empty array of content blocks ({ type: "text", text }, …).',
    });
  }
}

function clientSecrets(client: AgentOptions['client']): string[] {
  const anthropic = client.anthropic as (Anthropic & { authToken?: string | null }) | undefined;
  return [anthropic?.apiKey, anthropic?.authToken].filter(
    (value): value is string => typeof value === 'string' && value !== '',
  );
}

/**
 * Creates an agent. Renders its tools and system prompt once (their bytes never change, so the
 * prompt cache keeps hitting), scrubs model credentials from the environment its tools get,
 * and opens its transcript when `transcriptPath` is given. Throws `QueryError('INVALID_OPTIONS')`
 * for a missing or malformed option.
 */
export function createAgent(options: AgentOptions): Agent {
  checkAgentOptions(options);
  const { client, identity, cwd } = options;
  // A fork child takes its model, system, tools and conversation from its source, unchanged.
  const forkSetup = options.fork === undefined ? undefined : setUpForkAgent(options);
  // An alias (`sonnet`) becomes its id once, so every request of the agent names the same model.
  const model =
    forkSetup?.model ??
    resolveModelName(options.model!, {
      environment: options.environment ?? process.env,
    });
  const lifecycle = options.signal;
  const system = forkSetup?.system ?? renderSystem(options.system!);
  const tools = forkSetup?.tools ?? renderTools(options.tools);
  const requestFields: ForkRequestFields = forkSetup?.requestFields ?? {};
  const toolsByName = new Map<string, AnyTool>(options.tools.map((tool) => [tool.name, tool]));
  const sourceEnvironment = options.environment ?? process.env;
  const environment = Object.freeze(scrubEnvironment(sourceEnvironment));
  const redact = createSecretRedactor([
    ...clientSecrets(client),
    ...credentialValues(sourceEnvironment),
  ]);
  const maxTokens = forkSetup?.maxTokens ?? options.maxTokens ?? DEFAULT_MAX_TOKENS;

  let transcript: Transcript | undefined;
  if (options.transcriptPath !== undefined) {
    transcript = createTranscript(options.transcriptPath, { redact });
    transcript.append({
      type: 'agent',
      identity: { ...identity },
      model,
      at: new Date().toISOString(),
    });
  }
  const record = ({ message, usage, stopReason }: HistoryRecord) => {
    transcript?.append({
      type: 'message',
      role: message.role,
      content: message.content,
      ...(usage === undefined ? {} : { usage }),
      ...(stopReason === undefined || stopReason === null ? {} : { stopReason }),
    });
  };
  const history = createAgentHistory(forkSetup?.messages ?? options.messages ?? [], record);
  // A fork child's transcript starts with the conversation it inherited and its directive.
  if (forkSetup !== undefined) for (const message of history.messages) record({ message });

  const state = createToolStateStore();
  const disposers = createAgentDisposers();
  let total = emptyUsage();
  const perRequest: TokenUsage[] = [];
  let breakpoints: BreakpointState | undefined;

  const context: Omit<ToolContext, 'roots' | 'toolUseId' | 'signal'> = {
    agent: { ...identity },
    cwd,
    state,
    onAgentClose: (dispose) => disposers.register(dispose),
    environment,
    forkSource: () =>
      createForkSource({
        parent: identity,
        forkChild: forkSetup !== undefined,
        model,
        maxTokens,
        system,
        tools,
        requestFields,
        messages: history.messages,
      }),
  };

  const compaction = options.compaction;
  const turnAgent: TurnAgent = {
    client,
    model,
    maxTokens,
    maxRequestsPerTurn: options.maxRequestsPerTurn ?? DEFAULT_MAX_REQUESTS_PER_TURN,
    maxPauseContinuations: options.maxPauseContinuations ?? DEFAULT_MAX_PAUSE_CONTINUATIONS,
    history,
    buildRequest(messages) {
      const built = buildRequest({
        model,
        maxTokens,
        system,
        tools,
        messages,
        ...(breakpoints === undefined ? {} : { previousBreakpoints: breakpoints }),
        skipTailMarker: isForkDirectiveBlock,
      });
      breakpoints = built.breakpoints;
      return forkSetup === undefined ? built.params : { ...built.params, ...requestFields };
    },
    recordUsage(usage) {
      perRequest.push(usage);
      total = addUsage(total, usage);
      return total;
    },
    tools: {
      tools: toolsByName,
      authorize: options.authorize,
      roots: options.roots,
      context,
      ...(forkSetup === undefined ? {} : { unknownToolMessage: forkSetup.unknownToolMessage }),
    },
    ...(options.pendingInput === undefined ? {} : { pendingInput: options.pendingInput }),
  };
  if (compaction !== undefined) {
    const compactionInput = { client, model, system, tools, maxTokens, options: compaction };
    turnAgent.compaction = {
      ...compaction,
      estimateTokens: createRequestTokenEstimator(compactionInput),
      async compact(signal) {
        const outcome = await compactAgentConversation(
          compactionInput,
          history.messages,
          signal,
          breakpoints,
        );
        history.replace(outcome.messages);
        breakpoints = undefined;
        transcript?.append({
          type: 'compaction',
          summary: outcome.summary,
          tokensBefore: outcome.tokensBefore,
          tokensAfter: outcome.tokensAfter,
        });
        for (const message of outcome.messages) record({ message });
        return outcome;
      },
    };
  }

  let current: { controller: AbortController; result: Promise<TurnResult> } | undefined;
  let turns = 0;
  let closing: Promise<void> | undefined;

  const closedError = () =>
    new QueryError({
      code: 'AGENT_CLOSED',
      message: `Agent ${identity.name} is closed (close() was called or its lifecycle signal aborted); create a new agent to continue.`,
    });

  const close = (reason?: string): Promise<void> => {
    if (closing !== undefined) return closing;
    closing = (async () => {
      lifecycle?.removeEventListener('abort', onLifecycleAbort);
      const running = current;
      if (running !== undefined) {
        running.controller.abort(
          new QueryError({
            code: 'ABORTED',
            message: reason ?? `Agent ${identity.name} is closing.`,
          }),
        );
        await running.result;
      }
      await disposers.runAll();
      transcript?.close();
    })();
    return closing;
  };
  const onLifecycleAbort = () => {
    void close('The agent lifecycle signal aborted.');
  };
  if (lifecycle !== undefined) {
    if (lifecycle.aborted) void close('The agent lifecycle signal was already aborted.');
    else lifecycle.addEventListener('abort', onLifecycleAbort, { once: true });
  }

  const send = (content?: string | Anthropic.ContentBlockParam[]): AgentTurn => {
    if (closing !== undefined) throw closedError();
    if (current !== undefined) {
      throw new QueryError({
        code: 'TURN_IN_PROGRESS',
        message: `Agent ${identity.name} is already running turn ${turns}; wait for its result (or abort it) before sending another message.`,
      });
    }
    if (content === undefined) {
      if (history.messages.at(-1)?.role !== 'user' || history.pending.length > 0) {
        throw new QueryError({
          code: 'INVALID_OPTIONS',
          message: `agent.send() without content sends the conversation as it stands, which needs it to end with a user message (a fork child's first turn); ${identity.name}'s does not: pass the message to send.`,
        });
      }
    } else checkContent(content);
    const controller = new AbortController();
    const link = () => controller.abort(lifecycle?.reason);
    lifecycle?.addEventListener('abort', link, { once: true });
    const channel = createTurnEventChannel();
    let markResponseStarted: (started: boolean) => void = () => {};
    const responseStarted = new Promise<boolean>((resolve) => {
      markResponseStarted = resolve;
    });
    turns += 1;
    const turnNumber = turns;
    const result = (async (): Promise<TurnResult> => {
      try {
        return await runTurn(turnAgent, turnNumber, content, controller.signal, (event) => {
          if (event.type === 'response_start') markResponseStarted(true);
          channel.push(event);
        });
      } finally {
        markResponseStarted(false);
        lifecycle?.removeEventListener('abort', link);
        current = undefined;
        channel.end();
      }
    })();
    current = { controller, result };
    return {
      result,
      responseStarted,
      abort(reason) {
        controller.abort(
          new QueryError({ code: 'ABORTED', message: reason ?? `Turn ${turnNumber} was aborted.` }),
        );
      },
      [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator](),
    };
  };

  return {
    identity: { ...identity },
    send,
    messages: () => history.messages.map((message) => structuredClone(message)),
    usage: () => ({ ...total }),
    requestUsage: () => perRequest.map((usage) => ({ ...usage })),
    get busy() {
      return current !== undefined;
    },
    close,
  };
}
