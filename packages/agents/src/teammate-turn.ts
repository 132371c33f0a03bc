// One turn of a teammate, as far as its lead cares: what it reports in the idle notification
// it sends afterwards (why it stopped, a short summary, the task it completed, its last text).
import {
  IDLE_RESULT_MAXIMUM_CHARACTERS,
  type IdleNotification,
  type ProtocolDialect,
} from '@muster/protocol';
import type { AgentEvent, TokenUsage, TurnResult } from '@muster/query';

/** What the loop learns from a turn's events. */
export interface TurnFacts {
  /** The summary of the last message the teammate sent with SendMessage (`[to <peer>] …` to a peer). */
  summary?: string;
  /** The last task it marked completed with TaskUpdate. */
  completedTaskId?: string;
  /** The task it last took (claimed or set in progress), for compaction's preserved context. */
  currentTaskId?: string;
  /** The shutdown request it approved with SendMessage in this turn. */
  approvedShutdownRequestId?: string;
}

/** The marker Claude Code 2.1.330 puts after a cut `result`. */
const RESULT_CUT_MARKER = '[result truncated — ask the agent for the rest via SendMessage]';

/** Collects {@link TurnFacts} from a turn's events as they come. */
export function createTurnFactsCollector(agentName: string, leadName: string) {
  const facts: TurnFacts = {};
  const started = new Map<string, { name: string; input: unknown }>();
  return {
    facts,
    observe(event: AgentEvent): void {
      if (event.type === 'tool_call_start') {
        started.set(event.toolUseId, { name: event.name, input: event.input });
        return;
      }
      if (event.type !== 'tool_call_end') return;
      const call = started.get(event.toolUseId);
      started.delete(event.toolUseId);
      if (call === undefined || !event.allowed || event.isError) return;
      const input = (call.input ?? {}) as Record<string, unknown>;
      if (
        call.name === 'SendMessage' &&
        typeof input.summary === 'string' &&
        input.summary !== ''
      ) {
        const recipient = typeof input.to === 'string' ? input.to : input.recipient;
        facts.summary =
          typeof recipient === 'string' && recipient !== leadName && recipient !== '*'
            ? `[to ${recipient}] ${input.summary}`
            : input.summary;
      }
      if (
        call.name === 'SendMessage' &&
        input.type === 'shutdown_response' &&
        input.approve === true &&
        typeof input.request_id === 'string'
      ) {
        facts.approvedShutdownRequestId = input.request_id;
      }
      if (call.name === 'TaskUpdate' && typeof input.taskId === 'string') {
        if (input.status === 'completed') facts.completedTaskId = input.taskId;
        if (
          input.status === 'in_progress' &&
          (input.owner === undefined || input.owner === agentName)
        ) {
          facts.currentTaskId = input.taskId;
        }
      }
    },
  };
}

/** `idleReason` for how a turn ended. */
export function idleReasonOf(result: TurnResult): 'available' | 'interrupted' | 'failed' {
  if (result.reason === 'aborted') return 'interrupted';
  if (result.reason === 'failed') return 'failed';
  return 'available';
}

/**
 * The `idle_notification` after a turn: reason, the summary of its last SendMessage, the task
 * it completed, why the turn failed; in a v2 team also `result`, its last text, cut at 4000
 * characters as Claude Code 2.1.330 cuts it; with `tokenUsage`, the teammate's usage so far
 * (a muster addition the lead of a process teammate reads).
 */
export function buildIdleNotification(input: {
  agentName: string;
  result: TurnResult;
  facts: TurnFacts;
  dialect: ProtocolDialect;
  now?: Date;
  /** The teammate's usage so far, sent as `tokenUsage` (muster addition; process teammates). */
  tokenUsage?: TokenUsage;
}): IdleNotification {
  const { result, facts } = input;
  const notification: IdleNotification = {
    type: 'idle_notification',
    from: input.agentName,
    timestamp: (input.now ?? new Date()).toISOString(),
    idleReason: idleReasonOf(result),
  };
  if (facts.summary !== undefined) notification.summary = facts.summary;
  if (facts.completedTaskId !== undefined) {
    notification.completedTaskId = facts.completedTaskId;
    notification.completedStatus = 'success';
  }
  if (result.reason === 'failed') {
    notification.failureReason =
      result.error?.message ?? 'the turn failed without an error message';
  }
  const text = result.text.trim();
  if (input.dialect === 'v2' && text !== '') {
    notification.result =
      text.length > IDLE_RESULT_MAXIMUM_CHARACTERS
        ? `${text.slice(0, IDLE_RESULT_MAXIMUM_CHARACTERS)}${RESULT_CUT_MARKER}`
        : text;
  }
  if (input.tokenUsage !== undefined) {
    const usage = input.tokenUsage;
    notification.tokenUsage = {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheCreationInputTokens: usage.cacheCreationInputTokens,
      cacheReadInputTokens: usage.cacheReadInputTokens,
    };
  }
  return notification;
}
