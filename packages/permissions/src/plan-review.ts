import { planDigest } from '@muster/provenance';
import { setMemberMode } from '@muster/teams';
import type {
  ProtocolDialect,
  InboxMessage,
  PermissionMode,
  PlanApprovalRequest,
  PlanApprovalResponse,
} from '@muster/protocol';
import type { AuditSink } from './audit-log.js';
import type { AgentMessenger } from './messenger.js';
import { PermissionsError } from './permissions-error.js';
import { assertIsLead } from './team-lookup.js';

/** A plan waiting for the lead. */
export interface PendingPlanRequest {
  requestId: string;
  /** The worker that submitted it. */
  workerName: string;
  planFilePath: string;
  planContent: string;
  /** When the lead received it. */
  receivedAt: string;
  request: PlanApprovalRequest;
}

/** Modes a plan approval may never switch a worker into. */
export const MODES_NOT_GRANTED_BY_PLAN_APPROVAL: ReadonlySet<PermissionMode> = new Set([
  'plan',
  'delegate',
]);

/** The lead's side of plan approval (part of the permission broker). */
export interface PlanReview {
  /** Plans waiting for an answer, oldest first. */
  pendingPlans(): PendingPlanRequest[];
  /** Resolves with the next submitted plan satisfying `predicate` (a waiting one counts). */
  nextPlanRequest(predicate?: (plan: PendingPlanRequest) => boolean): Promise<PendingPlanRequest>;
  /**
   * Approves a plan: the worker leaves plan mode for `permissionMode` (default: the lead's
   * mode, or `default` when the lead itself is in `plan` or `delegate`). `plan` and
   * `delegate` are refused with `INVALID_MODE`. The member's mode in the team config follows.
   */
  approvePlan(
    requestId: string,
    options?: { permissionMode?: PermissionMode },
  ): Promise<PlanApprovalResponse>;
  /** Rejects a plan with feedback; the worker stays in plan mode. */
  rejectPlan(requestId: string, feedback: string): Promise<PlanApprovalResponse>;
  /** @internal Takes a plan_approval_request off the lead's inbox. */
  receivePlan(message: InboxMessage, request: PlanApprovalRequest): Promise<boolean>;
}

/** Builds the plan-review half of a broker. */
export function createPlanReview(options: {
  messenger: AgentMessenger;
  teamName: string;
  root?: string;
  audit: (entry: Parameters<AuditSink['append']>[0]) => Promise<void>;
  leadMode: () => PermissionMode;
  /** The team's dialect: `v2` approvals carry `planDigest`. */
  dialect: () => Promise<ProtocolDialect>;
}): PlanReview {
  const { messenger, teamName, audit } = options;
  const pending = new Map<string, PendingPlanRequest>();
  const listeners = new Set<(plan: PendingPlanRequest) => void>();

  const take = async (requestId: string, action: string): Promise<PendingPlanRequest> => {
    await assertIsLead({ root: options.root, teamName, agentName: messenger.agentName, action });
    const plan = pending.get(requestId);
    if (plan === undefined) {
      throw new PermissionsError({
        code: 'UNKNOWN_REQUEST',
        message: `No plan ${requestId} is waiting in team ${teamName} (answered already, or never received). Waiting: ${[...pending.keys()].join(', ') || 'none'}.`,
        details: { requestId },
      });
    }
    pending.delete(requestId);
    return plan;
  };

  const review: PlanReview = {
    pendingPlans: () => [...pending.values()],
    nextPlanRequest(predicate = () => true) {
      const waiting = [...pending.values()].find(predicate);
      if (waiting !== undefined) return Promise.resolve(waiting);
      return new Promise((resolve) => {
        const listener = (plan: PendingPlanRequest) => {
          if (!predicate(plan)) return;
          listeners.delete(listener);
          resolve(plan);
        };
        listeners.add(listener);
      });
    },
    async approvePlan(requestId, approveOptions = {}) {
      const requested = approveOptions.permissionMode;
      if (requested !== undefined && MODES_NOT_GRANTED_BY_PLAN_APPROVAL.has(requested)) {
        throw new PermissionsError({
          code: 'INVALID_MODE',
          message: `A plan approval cannot switch a worker into ${requested} mode (plan ${requestId}): approving means the worker may start, so choose default, acceptEdits, dontAsk or bypassPermissions.`,
          details: { requestId, permissionMode: requested },
        });
      }
      const plan = await take(requestId, 'approve plans');
      const leadMode = options.leadMode();
      const permissionMode =
        requested ?? (MODES_NOT_GRANTED_BY_PLAN_APPROVAL.has(leadMode) ? 'default' : leadMode);
      const response: PlanApprovalResponse = {
        type: 'plan_approval_response',
        requestId,
        approved: true,
        timestamp: new Date().toISOString(),
        permissionMode,
        ...((await options.dialect()) === 'v1' ? {} : { planDigest: planDigest(plan.planContent) }),
      };
      await messenger.send(plan.workerName, response);
      if (options.root !== undefined) {
        await setMemberMode(options.root, teamName, plan.workerName, permissionMode);
      }
      await audit({
        kind: 'plan_approved',
        actor: messenger.agentName,
        subject: plan.workerName,
        requestId,
        outcome: permissionMode,
        detail: `${messenger.agentName} approved the plan ${plan.planFilePath} of ${plan.workerName}; it continues in ${permissionMode} mode`,
      });
      return response;
    },
    async rejectPlan(requestId, feedback) {
      if (typeof feedback !== 'string' || feedback.trim() === '') {
        throw new PermissionsError({
          code: 'INVALID_INPUT',
          message: `Rejecting plan ${requestId} needs feedback: the worker revises its plan from it.`,
        });
      }
      const plan = await take(requestId, 'reject plans');
      const response: PlanApprovalResponse = {
        type: 'plan_approval_response',
        requestId,
        approved: false,
        feedback,
        timestamp: new Date().toISOString(),
      };
      await messenger.send(plan.workerName, response);
      await audit({
        kind: 'plan_rejected',
        actor: messenger.agentName,
        subject: plan.workerName,
        requestId,
        outcome: 'rejected',
        detail: feedback,
      });
      return response;
    },
    async receivePlan(message, request) {
      if (pending.has(request.requestId)) return true;
      const plan: PendingPlanRequest = {
        requestId: request.requestId,
        workerName: message.from,
        planFilePath: request.planFilePath,
        planContent: request.planContent,
        receivedAt: new Date().toISOString(),
        request,
      };
      pending.set(plan.requestId, plan);
      for (const listener of [...listeners]) listener(plan);
      return true;
    },
  };
  return review;
}
