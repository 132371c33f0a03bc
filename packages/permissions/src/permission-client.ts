import {
  createPermissionRequestId,
  type IdSources,
  type InboxMessage,
  type PermissionMode,
  type PermissionRequest,
  type PermissionUpdate,
  type ProtocolMessage,
} from '@muster/protocol';
import type { AuditSink } from './audit-log.js';
import type { PermissionDecision, ToolCall } from './decide-permission.js';
import type { AgentMessenger, MessageDelivery } from './messenger.js';
import { protocolMessageOf } from './messenger.js';
import {
  addTeamAllowedPathToContext,
  applyPermissionUpdates,
  decideInContext,
  type PermissionContext,
} from './permission-context.js';
import { PermissionsError } from './permissions-error.js';
import type { LeadTrust } from './lead-trust.js';
import { permissionResponseProblem } from './permission-answer-check.js';

/** What a worker asks the lead about. */
export interface PermissionAsk {
  /** Tool it wants to run. */
  toolName: string;
  /** The call's input. */
  input: Record<string, unknown>;
  /** The model's tool_use id (a fresh `toolu_muster…` id when not given). */
  toolUseId?: string;
  /** What the tool does, for the person deciding. */
  description?: string;
  /** Updates the lead may apply with its answer ("always allow …"). */
  permissionSuggestions?: PermissionUpdate[];
}

/** The lead's answer as the worker sees it. */
export type PermissionAnswer =
  | {
      behavior: 'allow';
      requestId: string;
      /** The input to run the tool with (possibly edited by the lead). */
      updatedInput: Record<string, unknown>;
      /** Rule changes the lead sent; the client applied them to its own context, except a `setMode` (the worker keeps its mode). */
      permissionUpdates: PermissionUpdate[];
    }
  | {
      behavior: 'deny';
      requestId: string;
      /** The text the tool call returns: the lead's message, or why no answer came. */
      message: string;
      /** `denied` by the lead, `timeout` without an answer, `closed` when the client closed. */
      reason: 'denied' | 'timeout' | 'closed';
    };

/** The result of {@link PermissionClient.authorize}. */
export interface Authorization {
  behavior: 'allow' | 'deny';
  /** The input to run the tool with. */
  input: Record<string, unknown>;
  /** The local decision. */
  decision: PermissionDecision;
  /** The lead's answer, when the local decision was `ask`. */
  answer?: PermissionAnswer;
  /** Why the call may not run (when denied). */
  message?: string;
}

/** Options of {@link createPermissionClient}. */
export interface PermissionClientOptions {
  /** Sends as this worker (to the lead's inbox, or in memory). */
  messenger: AgentMessenger;
  /** The team. */
  teamName: string;
  /**
   * Judges the lead's control messages (`createLeadTrust`): permission answers, team-wide
   * paths and mode changes take effect only when it verifies them. Its lead is the client's.
   */
  trust: LeadTrust;
  /** How long a request waits for an answer before it counts as denied. Default 5 minutes. */
  timeoutMs?: number;
  /** The worker's own permission context (for `authorize`). */
  context: PermissionContext;
  /** Where decisions and answers are recorded. */
  audit?: AuditSink;
  /** Time and randomness for request ids (tests). */
  idSources?: IdSources;
}

/** A worker's side of permission escalation. */
export interface PermissionClient {
  /** The worker's name. */
  readonly agentName: string;
  /** The team. */
  readonly teamName: string;
  /** The lead's name. */
  readonly leadName: string;
  /** The judge of the lead's control messages (shared with the plan gate and other handlers). */
  readonly trust: LeadTrust;
  /** The worker's current context (mode, rules, team allowed paths). */
  context(): PermissionContext;
  /** Replaces the context (e.g. after a plan approval switched the mode). */
  setContext(context: PermissionContext): void;
  /** Sets the mode only. */
  setMode(mode: PermissionMode): void;
  /** Sends a permission_request to the lead and waits for the answer (or the timeout). */
  requestPermission(ask: PermissionAsk): Promise<PermissionAnswer>;
  /**
   * Decides locally (`decidePermission` in the worker's context); asks the lead only when the
   * decision is `ask`. Never prompts anyone else.
   */
  authorize(call: ToolCall & { toolUseId?: string; description?: string }): Promise<Authorization>;
  /**
   * Handles `permission_response`, `team_permission_update` and `mode_set_request`. Each takes
   * effect only when `trust` verifies it came from the lead's runtime; a permission answer
   * must also answer a waiting request and approve exactly the input asked. Anything else of
   * these kinds is refused, changes nothing and is audited (`control_refused`). Returns false
   * for any other message.
   */
  handleMessage(message: InboxMessage, delivery?: MessageDelivery): Promise<boolean>;
  /** Ids of requests still waiting. */
  pendingRequestIds(): string[];
  /** Resolves every waiting request as denied (`closed`) and stops accepting answers. */
  close(): void;
  /** Records an event in the audit log (if any). */
  audit(entry: Parameters<AuditSink['append']>[0]): Promise<void>;
  /** Sends a protocol message as this worker. */
  send(recipient: string, message: ProtocolMessage): Promise<void>;
}

interface Waiting {
  ask: PermissionAsk;
  /** The tool_use_id the request carried. */
  toolUseId: string;
  resolve: (answer: PermissionAnswer) => void;
  timer: ReturnType<typeof setTimeout>;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

function toolUseIdFor(requestId: string): string {
  return `toolu_muster_${requestId.replace(/[^0-9a-z]/gi, '')}`;
}

/**
 * Creates a worker's permission client. Route the worker's inbox messages (or in-process
 * deliveries) to `handleMessage`; several requests may be in flight at once, each answered
 * by its own request id.
 */
export function createPermissionClient(options: PermissionClientOptions): PermissionClient {
  const { messenger, teamName } = options;
  const agentName = messenger.agentName;
  if (options.trust === undefined || typeof options.trust.admit !== 'function') {
    throw new PermissionsError({
      code: 'INVALID_INPUT',
      message: `createPermissionClient for ${agentName} needs trust (createLeadTrust with the lead's verify key or the runtime's ledger): without it no control message from the lead could be told from a forgery.`,
    });
  }
  const { trust } = options;
  const leadName = trust.leadName;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const waiting = new Map<string, Waiting>();
  let context = options.context;
  let closed = false;

  const audit = async (entry: Parameters<AuditSink['append']>[0]) => {
    if (options.audit !== undefined) await options.audit.append(entry);
  };

  const settle = (requestId: string, answer: PermissionAnswer) => {
    const entry = waiting.get(requestId);
    if (entry === undefined) return false;
    waiting.delete(requestId);
    clearTimeout(entry.timer);
    entry.resolve(answer);
    return true;
  };

  const requestPermission = async (ask: PermissionAsk): Promise<PermissionAnswer> => {
    if (closed) {
      throw new PermissionsError({
        code: 'CLOSED',
        message: `The permission client of ${agentName} in team ${teamName} is closed; create a new one to ask the lead.`,
      });
    }
    const requestId = createPermissionRequestId(options.idSources);
    const request: PermissionRequest = {
      type: 'permission_request',
      request_id: requestId,
      agent_id: agentName,
      tool_name: ask.toolName,
      tool_use_id: ask.toolUseId ?? toolUseIdFor(requestId),
      description: ask.description ?? `Run the ${ask.toolName} tool.`,
      input: ask.input,
      permission_suggestions: ask.permissionSuggestions ?? [],
    };
    const answer = new Promise<PermissionAnswer>((resolve) => {
      const timer = setTimeout(() => {
        const message = `No answer from ${leadName} within ${timeoutMs} ms to permission request ${requestId} for ${ask.toolName}; the call was denied. Ask again, or check that the lead is running and reading its inbox.`;
        if (settle(requestId, { behavior: 'deny', requestId, message, reason: 'timeout' })) {
          void audit({
            kind: 'permission_timed_out',
            actor: agentName,
            subject: agentName,
            requestId,
            toolName: ask.toolName,
            outcome: 'deny',
            detail: message,
          }).catch(() => undefined);
        }
      }, timeoutMs);
      timer.unref?.();
      waiting.set(requestId, { ask, toolUseId: request.tool_use_id, resolve, timer });
    });
    try {
      await messenger.send(leadName, request);
    } catch (error) {
      const entry = waiting.get(requestId);
      if (entry !== undefined) {
        waiting.delete(requestId);
        clearTimeout(entry.timer);
      }
      throw error;
    }
    await audit({
      kind: 'permission_requested',
      actor: agentName,
      subject: agentName,
      requestId,
      toolName: ask.toolName,
      data: { input: ask.input, to: leadName },
    });
    return answer;
  };

  const client: PermissionClient = {
    agentName,
    teamName,
    leadName,
    trust,
    context: () => context,
    setContext(next) {
      context = next;
    },
    setMode(mode) {
      context = { ...context, mode };
    },
    requestPermission,
    async authorize(call) {
      const decision = decideInContext(context, call);
      await audit({
        kind: 'decision',
        actor: agentName,
        subject: agentName,
        toolName: call.toolName,
        outcome: decision.behavior,
        detail: decision.reason.detail,
        data: { reason: decision.reason.kind, mode: decision.effectiveMode },
      });
      if (decision.behavior === 'allow') return { behavior: 'allow', input: call.input, decision };
      if (decision.behavior === 'deny') {
        return { behavior: 'deny', input: call.input, decision, message: decision.message };
      }
      const answer = await requestPermission({
        toolName: call.toolName,
        input: call.input,
        ...(call.toolUseId === undefined ? {} : { toolUseId: call.toolUseId }),
        ...(call.description === undefined ? {} : { description: call.description }),
      });
      if (answer.behavior === 'allow') {
        return { behavior: 'allow', input: answer.updatedInput, decision, answer };
      }
      return { behavior: 'deny', input: call.input, decision, answer, message: answer.message };
    },
    async handleMessage(message, delivery) {
      const protocol = protocolMessageOf(message);
      if (protocol === undefined) return false;
      const controls = ['permission_response', 'team_permission_update', 'mode_set_request'];
      if (!controls.includes(protocol.type)) return false;
      if (!(await trust.admit(message, delivery))) return true;
      if (protocol.type === 'permission_response') {
        const requestId = protocol.request_id;
        const entry = waiting.get(requestId);
        if (entry === undefined) {
          await trust.refuse(
            message,
            `permission_response for ${requestId}, which no request of ${agentName} is waiting for`,
          );
          return true;
        }
        const problem = permissionResponseProblem(protocol, {
          requestId,
          toolName: entry.ask.toolName,
          toolUseId: entry.toolUseId,
          input: entry.ask.input,
        });
        if (problem !== undefined) {
          await trust.refuse(message, problem, { type: protocol.type });
          return true;
        }
        let answer: PermissionAnswer;
        let skippedReasons: string[] = [];
        if (protocol.subtype === 'success') {
          const permissionUpdates = protocol.response.permission_updates ?? [];
          // The worker keeps its own mode (PROTOCOL.md 8.4): an approval adds rules and
          // directories but a `setMode` in it is skipped, so an approval never widens the mode.
          const applied = applyPermissionUpdates(context, permissionUpdates, {
            preserveMode: true,
          });
          context = applied.context;
          skippedReasons = applied.skipped.map((item) => item.reason);
          answer = {
            behavior: 'allow',
            requestId,
            updatedInput: protocol.response.updated_input,
            permissionUpdates,
          };
        } else {
          answer = { behavior: 'deny', requestId, message: protocol.error, reason: 'denied' };
        }
        settle(requestId, answer);
        await audit({
          kind: 'permission_answer_received',
          actor: agentName,
          subject: agentName,
          requestId,
          toolName: entry.ask.toolName,
          outcome: answer.behavior,
          ...(answer.behavior === 'deny' ? { detail: answer.message } : {}),
        });
        if (skippedReasons.length > 0) {
          await audit({
            kind: 'rules_persisted',
            actor: agentName,
            subject: agentName,
            requestId,
            outcome: `worker mode kept ${context.mode}`,
            detail: skippedReasons.join('; '),
          });
        }
        return true;
      }
      if (protocol.type === 'team_permission_update') {
        context = addTeamAllowedPathToContext(context, {
          path: protocol.directoryPath,
          toolName: protocol.toolName,
          addedBy: protocol.from ?? message.from,
          addedAt: Date.parse(protocol.timestamp ?? message.timestamp) || Date.now(),
        });
        return true;
      }
      if (protocol.type === 'mode_set_request') {
        const previous = context.mode;
        context = { ...context, mode: protocol.mode };
        await audit({
          kind: 'mode_applied',
          actor: agentName,
          subject: agentName,
          outcome: protocol.mode,
          detail: `mode ${previous} → ${protocol.mode} at the request of ${leadName}`,
        });
        return true;
      }
      return false;
    },
    pendingRequestIds: () => [...waiting.keys()],
    close() {
      closed = true;
      for (const [requestId] of [...waiting]) {
        settle(requestId, {
          behavior: 'deny',
          requestId,
          message: `The permission client of ${agentName} was closed before ${leadName} answered; the call was denied.`,
          reason: 'closed',
        });
      }
    },
    audit,
    send: (recipient, message) => messenger.send(recipient, message),
  };
  return client;
}
