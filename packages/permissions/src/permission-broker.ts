import { inputDigest } from '@muster/provenance';
import { readTeam } from '@muster/teams';
import {
  teamDialect,
  type ProtocolDialect,
  type InboxMessage,
  type PermissionMode,
  type PermissionRequest,
  type PermissionResponse,
  type PermissionUpdate,
  type TeamAllowedPath,
  type TeamConfig,
} from '@muster/protocol';
import type { AuditSink } from './audit-log.js';
import type { AgentMessenger, MessageDelivery } from './messenger.js';
import { protocolMessageOf } from './messenger.js';
import {
  addTeamAllowedPathToContext,
  applyPermissionUpdates,
  type PermissionContext,
  type SkippedPermissionUpdate,
} from './permission-context.js';
import { PermissionsError } from './permissions-error.js';
import { createPlanReview, type PendingPlanRequest, type PlanReview } from './plan-review.js';
import {
  createHostAccessReview,
  type HostAccessReview,
  type PendingHostRequest,
} from './host-access-review.js';
import { grantTeamPath } from './team-allowed-paths.js';
import { setWorkerModeInTeam } from './mode-control.js';
import { assertIsLead } from './team-lookup.js';

/** A permission request waiting for the lead, with the badge to show. */
export interface PendingPermissionRequest {
  requestId: string;
  /** The asking worker's name (the envelope's `from`). */
  workerName: string;
  /** Its color from the team config (else from the envelope), for the badge. */
  workerColor?: string;
  toolName: string;
  toolUseId: string;
  description: string;
  input: Record<string, unknown>;
  permissionSuggestions: PermissionUpdate[];
  /** When the lead received it. */
  receivedAt: string;
  /** `in-process` (handed over in memory) or `mailbox` (read from the lead's inbox). */
  via: MessageDelivery['via'];
  /** The request as received. */
  request: PermissionRequest;
}

/**
 * How to approve a permission request. An approval always carries the input the worker
 * asked about (workers refuse any other); to have other input run, deny with a message
 * saying what to run instead.
 */
export interface ApproveOptions {
  /** Rules to persist ("always allow …"): sent to the worker and added to the lead's context with its mode preserved. */
  permissionUpdates?: PermissionUpdate[];
  /** `once` (default), or `team`: the directory is approved for every member. */
  scope?: 'once' | 'team';
  /** With scope `team`: the directory to approve; default the call's directory. */
  teamPath?: string;
  /** Who approved (the lead, or the user at the lead's screen); default the lead's name. */
  approvedBy?: string;
}

/** What an approval did. */
export interface ApproveResult {
  response: PermissionResponse;
  /** Updates not applied to the lead (a `setMode`: the lead's mode is preserved). */
  skipped: SkippedPermissionUpdate[];
  /** The team-wide grant, with scope `team`. */
  teamAllowedPath?: TeamAllowedPath;
}

/** Options of {@link createPermissionBroker}. */
export interface PermissionBrokerOptions {
  /** Sends as the lead (to inboxes, or in memory). */
  messenger: AgentMessenger;
  /** The team. */
  teamName: string;
  /** The muster root holding the team config (for colors, team allowed paths, modes). */
  root?: string;
  /** The lead's own permission context. Approvals never change its mode. */
  leadContext: PermissionContext;
  /** Where answers are recorded. */
  audit?: AuditSink;
  /**
   * The team's dialect when there is no `root` to read it from: `v2` (default) answers carry
   * `tool_use_id`, `approved_request` (with the input digest) and `planDigest`, as Claude Code
   * 2.1.330 writes them; `v1` answers are 2.1.45's.
   */
  dialect?: ProtocolDialect;
}

/**
 * The lead's side: collects requests and answers them. Give it a messenger over the lead
 * runtime's mailbox (`createMailbox({ root, team, ...keyring.mailboxOptions() })`) so every
 * answer is signed for its recipient and recorded in the ledger: members refuse the rest.
 */
export interface PermissionBroker
  extends Omit<PlanReview, 'receivePlan'>, Omit<HostAccessReview, 'receiveHostRequest'> {
  /** The lead's name. */
  readonly leadName: string;
  /** Handles `permission_request`, `plan_approval_request` and `sandbox_permission_request`; false for anything else. */
  handleMessage(message: InboxMessage, delivery?: MessageDelivery): Promise<boolean>;
  /** Requests waiting for an answer, oldest first. */
  pendingPermissions(): PendingPermissionRequest[];
  /** Calls `listener` for every new permission request; returns an unsubscribe function. */
  onPermissionRequest(listener: (request: PendingPermissionRequest) => void): () => void;
  /** Resolves with the next request satisfying `predicate` (a waiting one counts). */
  nextPermissionRequest(
    predicate?: (request: PendingPermissionRequest) => boolean,
  ): Promise<PendingPermissionRequest>;
  /** Approves: writes a `permission_response` with subtype `success`. */
  approve(requestId: string, options?: ApproveOptions): Promise<ApproveResult>;
  /** Denies: writes a `permission_response` with subtype `error` carrying `message`. */
  deny(requestId: string, message: string): Promise<PermissionResponse>;
  /** The lead's current context; its mode changes only through {@link setLeadMode}. */
  leadContext(): PermissionContext;
  /** Changes the lead's own mode (the user's choice, never a worker's approval). */
  setLeadMode(mode: PermissionMode): void;
  /** Sends `mode_set_request` to a worker and records the mode in the team config. */
  setWorkerMode(workerName: string, mode: PermissionMode): Promise<void>;
}

/** Creates the lead's broker. Route the lead's inbox (and in-process deliveries) to `handleMessage`. */
export function createPermissionBroker(options: PermissionBrokerOptions): PermissionBroker {
  const { messenger, teamName } = options;
  const leadName = messenger.agentName;
  let leadContext = options.leadContext;
  const pending = new Map<string, PendingPermissionRequest>();
  const listeners = new Set<(request: PendingPermissionRequest) => void>();

  const audit = async (entry: Parameters<AuditSink['append']>[0]) => {
    if (options.audit !== undefined) await options.audit.append(entry);
  };
  const readConfig = async (): Promise<TeamConfig | undefined> =>
    options.root === undefined ? undefined : readTeam(options.root, teamName);
  const dialect = async (): Promise<ProtocolDialect> => {
    const config = await readConfig();
    return config === undefined ? (options.dialect ?? 'v2') : teamDialect(config);
  };

  const review = createPlanReview({
    messenger,
    teamName,
    audit,
    leadMode: () => leadContext.mode,
    dialect,
    ...(options.root === undefined ? {} : { root: options.root }),
  });
  const hostReview = createHostAccessReview({ messenger, teamName, audit });

  const take = async (requestId: string, action: string): Promise<PendingPermissionRequest> => {
    await assertIsLead({ root: options.root, teamName, agentName: leadName, action });
    const request = pending.get(requestId);
    if (request === undefined) {
      throw new PermissionsError({
        code: 'UNKNOWN_REQUEST',
        message: `No permission request ${requestId} is waiting in team ${teamName} (answered already, or never received). Waiting: ${[...pending.keys()].join(', ') || 'none'}.`,
        details: { requestId },
      });
    }
    pending.delete(requestId);
    return request;
  };

  const { receivePlan, ...planMethods } = review;
  const { receiveHostRequest, ...hostMethods } = hostReview;
  /** v2: which call the answer is for (`tool_use_id`, `approved_request` with the input digest). */
  const answerFields = async (request: PendingPermissionRequest) =>
    (await dialect()) === 'v1'
      ? {}
      : {
          tool_use_id: request.toolUseId,
          approved_request: {
            tool_use_id: request.toolUseId,
            tool_name: request.toolName,
            input_digest: inputDigest(request.toolName, request.input),
          },
        };

  const broker: PermissionBroker = {
    ...planMethods,
    ...hostMethods,
    leadName,
    async handleMessage(message, delivery = { via: 'mailbox' }) {
      const protocol = protocolMessageOf(message);
      if (protocol === undefined) return false;
      if (protocol.type === 'plan_approval_request') return receivePlan(message, protocol);
      if (protocol.type === 'sandbox_permission_request') {
        return receiveHostRequest(message, protocol);
      }
      if (protocol.type !== 'permission_request') return false;
      if (pending.has(protocol.request_id)) return true;
      const config = await readConfig();
      const member = config?.members.find((candidate) => candidate.name === message.from);
      const workerColor = member?.color ?? message.color;
      const entry: PendingPermissionRequest = {
        requestId: protocol.request_id,
        workerName: message.from,
        ...(workerColor === undefined ? {} : { workerColor }),
        toolName: protocol.tool_name,
        toolUseId: protocol.tool_use_id,
        description: protocol.description,
        input: protocol.input,
        permissionSuggestions: protocol.permission_suggestions,
        receivedAt: new Date().toISOString(),
        via: delivery.via,
        request: protocol,
      };
      pending.set(entry.requestId, entry);
      for (const listener of [...listeners]) listener(entry);
      return true;
    },
    pendingPermissions: () => [...pending.values()],
    onPermissionRequest(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    nextPermissionRequest(predicate = () => true) {
      const waiting = [...pending.values()].find(predicate);
      if (waiting !== undefined) return Promise.resolve(waiting);
      return new Promise((resolve) => {
        const unsubscribe = broker.onPermissionRequest((request) => {
          if (!predicate(request)) return;
          unsubscribe();
          resolve(request);
        });
      });
    },
    async approve(requestId, approveOptions = {}) {
      if ((approveOptions as { updatedInput?: unknown }).updatedInput !== undefined) {
        throw new PermissionsError({
          code: 'INVALID_INPUT',
          message: `approve(${requestId}) got updatedInput: a worker runs only the input it asked about and refuses an approval of other input. Deny with a message saying what to run instead; the worker asks again.`,
          details: { requestId },
        });
      }
      const request = await take(requestId, 'approve permission requests');
      const approvedBy = approveOptions.approvedBy ?? leadName;
      const permissionUpdates = approveOptions.permissionUpdates ?? [];
      let teamAllowedPath: TeamAllowedPath | undefined;
      if (approveOptions.scope === 'team') {
        try {
          teamAllowedPath = await grantTeamPath({
            root: options.root,
            teamName,
            messenger,
            request,
            addedBy: approvedBy,
            ...(approveOptions.teamPath === undefined ? {} : { teamPath: approveOptions.teamPath }),
          });
        } catch (error) {
          pending.set(requestId, request);
          throw error;
        }
        leadContext = addTeamAllowedPathToContext(leadContext, teamAllowedPath);
      }
      const applied = applyPermissionUpdates(leadContext, permissionUpdates, {
        preserveMode: true,
      });
      leadContext = applied.context;
      const fields = await answerFields(request);
      const response: PermissionResponse = {
        type: 'permission_response',
        request_id: requestId,
        subtype: 'success',
        ...fields,
        response: {
          updated_input: request.input,
          // 2.1.330 leaves the list out when it is empty.
          ...(permissionUpdates.length === 0 && 'approved_request' in fields
            ? {}
            : { permission_updates: permissionUpdates }),
        },
      };
      await messenger.send(request.workerName, response);
      await audit({
        kind: 'permission_approved',
        actor: approvedBy,
        subject: request.workerName,
        requestId,
        toolName: request.toolName,
        outcome: 'allow',
        detail: `${approvedBy} approved ${request.toolName} for ${request.workerName}${approveOptions.scope === 'team' ? ` for the whole team (${teamAllowedPath!.path})` : ''}`,
        data: { input: response.response.updated_input, via: request.via },
      });
      if (permissionUpdates.length > 0) {
        await audit({
          kind: 'rules_persisted',
          actor: approvedBy,
          subject: request.workerName,
          requestId,
          outcome: `lead mode kept ${leadContext.mode}`,
          detail:
            applied.skipped.map((item) => item.reason).join('; ') || 'no mode change requested',
          data: { permissionUpdates },
        });
      }
      return {
        response,
        skipped: applied.skipped,
        ...(teamAllowedPath === undefined ? {} : { teamAllowedPath }),
      };
    },
    async deny(requestId, message) {
      if (typeof message !== 'string' || message.trim() === '') {
        throw new PermissionsError({
          code: 'INVALID_INPUT',
          message: `Denying ${requestId} needs a message: the worker's tool call returns it as the reason.`,
        });
      }
      const request = await take(requestId, 'deny permission requests');
      const response: PermissionResponse = {
        type: 'permission_response',
        request_id: requestId,
        subtype: 'error',
        ...(await answerFields(request)),
        error: message,
      };
      await messenger.send(request.workerName, response);
      await audit({
        kind: 'permission_denied',
        actor: leadName,
        subject: request.workerName,
        requestId,
        toolName: request.toolName,
        outcome: 'deny',
        detail: message,
        data: { via: request.via },
      });
      return response;
    },
    leadContext: () => leadContext,
    setLeadMode(mode) {
      leadContext = { ...leadContext, mode };
    },
    async setWorkerMode(workerName, mode) {
      await setWorkerModeInTeam({
        messenger,
        teamName,
        workerName,
        mode,
        ...(options.root === undefined ? {} : { root: options.root }),
      });
      await audit({
        kind: 'mode_set',
        actor: leadName,
        subject: workerName,
        outcome: mode,
        detail: `${leadName} set the mode of ${workerName} to ${mode}`,
      });
    },
  };
  return broker;
}

export type { PendingHostRequest, PendingPlanRequest };
