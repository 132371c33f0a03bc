// The asks of a lead's team session: the lead's own permission asks, its teammates' permission
// requests and (when a person approves plans) their plans. With a person, each ask is an `ask`
// event that waits for `answer()`; headless, a policy answers at once. Either way every answer
// is an `ask_answer` event, so the stream tells the whole story.
import { randomUUID } from 'node:crypto';
import { TEAM_LEAD_NAME } from '@muster/protocol';
import type { PermissionAskHandler } from '@muster/query';
import type { TeamEvent } from './team-event.js';
import {
  TeamRuntimeError,
  type AskAnswer,
  type AskPolicy,
  type TeamAsk,
} from './team-runtime-options.js';

/** One ask as the desk takes it. */
export interface AskRequest {
  kind: TeamAsk['kind'];
  agentName: string;
  toolName?: string;
  input?: Record<string, unknown>;
  description: string;
  /** Carries the answer out (approve or deny at the broker, resolve the lead's authorizer). */
  settle(answer: AskAnswer): Promise<void>;
  /** The headless policy's answer (used when the policy is `headless`). */
  headless(): AskAnswer | Promise<AskAnswer>;
  /**
   * The answer the lead's own rules and mode already give, if they allow the call: with a
   * person, it is taken at once (the ask and its answer are still events) instead of asking.
   */
  decided?(): AskAnswer | undefined;
}

/** The desk: raises asks and takes answers. */
export interface AskDesk {
  /** Raises an ask; resolves once it was answered and settled (headless: at once). Returns its id. */
  raise(request: AskRequest): Promise<string>;
  /** Answers a waiting ask. */
  answer(askId: string, answer: AskAnswer): Promise<void>;
  /** Withdraws a waiting ask (its turn was interrupted): answered `deny` by `by`. */
  withdraw(askId: string, by: string, message: string): void;
  pending(): TeamAsk[];
}

interface Waiting {
  ask: TeamAsk;
  request: AskRequest;
}

/** Creates the desk of one session. */
export function createAskDesk(options: {
  policy: AskPolicy;
  emit: (event: TeamEvent) => void;
}): AskDesk {
  const waiting = new Map<string, Waiting>();

  const answered = (askId: string, answer: AskAnswer, by: string) => {
    options.emit({
      type: 'ask_answer',
      askId,
      behavior: answer.behavior,
      by,
      ...(answer.message === undefined ? {} : { message: answer.message }),
      at: Date.now(),
    });
  };

  const checkAnswer = (answer: AskAnswer): void => {
    if (answer === null || typeof answer !== 'object') {
      throw new TeamRuntimeError({
        code: 'INVALID_OPTIONS',
        message: 'answer: give { behavior: "allow" | "deny", message?, scope? }.',
      });
    }
    if (answer.behavior !== 'allow' && answer.behavior !== 'deny') {
      throw new TeamRuntimeError({
        code: 'INVALID_OPTIONS',
        message: `answer: behavior must be "allow" or "deny", not ${JSON.stringify(answer.behavior)}.`,
      });
    }
    if (answer.scope !== undefined && answer.scope !== 'once' && answer.scope !== 'always') {
      throw new TeamRuntimeError({
        code: 'INVALID_OPTIONS',
        message: `answer: scope must be "once" or "always", not ${JSON.stringify(answer.scope)}.`,
      });
    }
  };

  return {
    async raise(request) {
      const askId = `ask-${randomUUID()}`;
      const ask: TeamAsk = {
        askId,
        kind: request.kind,
        agentName: request.agentName,
        ...(request.toolName === undefined ? {} : { toolName: request.toolName }),
        ...(request.input === undefined ? {} : { input: request.input }),
        description: request.description,
        at: Date.now(),
      };
      const decided = options.policy === 'person' ? request.decided?.() : undefined;
      // Waiting before it is announced: a listener may answer from inside the event.
      if (options.policy === 'person' && decided === undefined)
        waiting.set(askId, { ask, request });
      options.emit({ type: 'ask', ...ask });
      if (options.policy === 'headless' || decided !== undefined) {
        const answer = decided ?? (await request.headless());
        answered(askId, answer, answer.by ?? 'headless policy');
        await request.settle(answer);
        return askId;
      }
      return askId;
    },
    async answer(askId, answer) {
      checkAnswer(answer);
      const entry = waiting.get(askId);
      if (entry === undefined) {
        throw new TeamRuntimeError({
          code: 'UNKNOWN_ASK',
          message: `No ask ${askId} is waiting (answered already, withdrawn, or never raised). Waiting: ${[...waiting.keys()].join(', ') || 'none'}.`,
        });
      }
      waiting.delete(askId);
      answered(askId, answer, answer.by ?? 'person');
      await entry.request.settle(answer);
    },
    withdraw(askId, by, message) {
      if (!waiting.delete(askId)) return;
      answered(askId, { behavior: 'deny', message }, by);
    },
    pending: () => [...waiting.values()].map((entry) => ({ ...entry.ask })),
  };
}

/**
 * The lead's own permission asks, raised on `asks` under the lead's name: an interrupted turn
 * withdraws its ask (denied); an answer `always` calls `allowAlways(toolName)` to keep the rule.
 */
export function leadAskHandler(
  asks: AskDesk,
  allowAlways: (toolName: string) => void,
): PermissionAskHandler {
  return (request, decision, signal) =>
    new Promise((resolve) => {
      let askId: string | undefined;
      const onAbort = () => {
        if (askId !== undefined) asks.withdraw(askId, 'interrupt', 'The turn was interrupted.');
        resolve({
          behavior: 'deny',
          message: 'The turn was interrupted while the person was asked.',
        });
      };
      signal.addEventListener('abort', onAbort, { once: true });
      void asks
        .raise({
          kind: 'permission',
          agentName: TEAM_LEAD_NAME,
          toolName: request.toolName,
          input: request.input,
          description: request.description,
          headless: () => ({
            behavior: 'deny',
            by: 'headless policy',
            message: `Denied: no person is there to approve it, and your rules and mode do not allow it (${decision.message}).`,
          }),
          settle: async (answer) => {
            signal.removeEventListener('abort', onAbort);
            if (answer.behavior === 'allow' && answer.scope === 'always') {
              allowAlways(request.toolName);
            }
            resolve(
              answer.behavior === 'allow'
                ? { behavior: 'allow' }
                : {
                    behavior: 'deny',
                    message: answer.message ?? 'The person denied this tool call.',
                  },
            );
          },
        })
        .then((id) => {
          askId = id;
        });
    });
}
