import { planDigest } from '@muster/provenance';
import {
  createPlanApprovalRequestId,
  type IdSources,
  type InboxMessage,
  type PermissionMode,
  type PlanApprovalRequest,
} from '@muster/protocol';
import type { Authorization, PermissionClient } from './permission-client.js';
import type { ToolCall } from './decide-permission.js';
import { protocolMessageOf, type MessageDelivery } from './messenger.js';
import { PermissionsError } from './permissions-error.js';
import { MODES_NOT_GRANTED_BY_PLAN_APPROVAL } from './plan-review.js';

/** The lead's answer to a plan. */
export type PlanAnswer =
  | { approved: true; requestId: string; permissionMode: PermissionMode }
  | { approved: false; requestId: string; feedback: string };

/** Where a plan-mode worker stands. */
export type PlanGateStatus = 'planning' | 'awaiting_approval' | 'approved' | 'rejected';

/** A plan-mode worker's gate: shut (only reads and the plan file) until the lead approves. */
export interface PlanGate {
  /** Current status. */
  status(): PlanGateStatus;
  /** Whether writes are decided normally again (the worker left plan mode). */
  isOpen(): boolean;
  /**
   * Sends a `plan_approval_request` to the lead (no color, as Claude Code writes it) and
   * resolves with the lead's answer. On approval the worker switches to the granted mode; on
   * rejection it stays in plan mode with the feedback. Only one plan is out at a time.
   */
  submitPlan(plan: { planFilePath: string; planContent: string }): Promise<PlanAnswer>;
  /** `authorize` through the client: while shut, writes other than the plan file are denied. */
  authorize(call: ToolCall & { toolUseId?: string; description?: string }): Promise<Authorization>;
  /**
   * Handles `plan_approval_response`: it takes effect only when the client's trust verifies
   * it came from the lead's runtime, it answers the plan that is out, and its `planDigest`
   * (when present) is that plan's. Anything else is refused, changes nothing and is audited
   * (`control_refused`). False for other messages.
   */
  handleMessage(message: InboxMessage, delivery?: MessageDelivery): Promise<boolean>;
}

/**
 * Creates the plan gate of a worker whose client context is in `plan` mode (a worker spawned
 * with planModeRequired). The gate uses the client's messenger, lead, audit log and context.
 */
export function createPlanGate(options: {
  client: PermissionClient;
  idSources?: IdSources;
}): PlanGate {
  const { client } = options;
  let status: PlanGateStatus = client.context().mode === 'plan' ? 'planning' : 'approved';
  let outstanding:
    | {
        requestId: string;
        planFilePath: string;
        planContent: string;
        resolve: (answer: PlanAnswer) => void;
      }
    | undefined;

  const refuse = async (message: InboxMessage, why: string) => {
    await client.trust.refuse(message, why, { type: 'plan_approval_response' });
    return true;
  };

  return {
    status: () => status,
    isOpen: () => client.context().mode !== 'plan',
    async submitPlan(plan) {
      if (client.context().mode !== 'plan') {
        throw new PermissionsError({
          code: 'INVALID_MODE',
          message: `${client.agentName} is in ${client.context().mode} mode, not plan mode: there is no plan to approve. Only plan-mode workers submit plans.`,
        });
      }
      if (outstanding !== undefined) {
        throw new PermissionsError({
          code: 'INVALID_INPUT',
          message: `${client.agentName} already has plan ${outstanding.requestId} waiting for ${client.leadName}; wait for that answer before submitting another.`,
        });
      }
      const requestId = createPlanApprovalRequestId(
        client.agentName,
        client.teamName,
        options.idSources,
      );
      const request: PlanApprovalRequest = {
        type: 'plan_approval_request',
        from: client.agentName,
        timestamp: new Date().toISOString(),
        planFilePath: plan.planFilePath,
        planContent: plan.planContent,
        requestId,
      };
      client.setContext({ ...client.context(), planFilePath: plan.planFilePath });
      const answer = new Promise<PlanAnswer>((resolve) => {
        outstanding = {
          requestId,
          planFilePath: plan.planFilePath,
          planContent: plan.planContent,
          resolve,
        };
      });
      const previousStatus = status;
      status = 'awaiting_approval';
      try {
        await client.send(client.leadName, request);
      } catch (error) {
        outstanding = undefined;
        status = previousStatus;
        throw error;
      }
      await client.audit({
        kind: 'plan_submitted',
        actor: client.agentName,
        subject: client.agentName,
        requestId,
        detail: `plan ${plan.planFilePath} sent to ${client.leadName}`,
        data: { planContent: plan.planContent },
      });
      return answer;
    },
    authorize: (call) => client.authorize(call),
    async handleMessage(message, delivery) {
      const protocol = protocolMessageOf(message);
      if (protocol?.type !== 'plan_approval_response') return false;
      if (!(await client.trust.admit(message, delivery))) return true;
      if (outstanding === undefined || outstanding.requestId !== protocol.requestId) {
        return refuse(
          message,
          `plan_approval_response for ${protocol.requestId}, which is not the plan waiting (${outstanding?.requestId ?? 'none'})`,
        );
      }
      const digest = (protocol as { planDigest?: unknown }).planDigest;
      if (digest !== undefined && digest !== planDigest(outstanding.planContent)) {
        return refuse(
          message,
          `plan_approval_response for ${protocol.requestId} carries planDigest ${String(digest)}, which is not the digest of the plan that was submitted: it answers another plan`,
        );
      }
      const { resolve, requestId } = outstanding;
      outstanding = undefined;
      let answer: PlanAnswer;
      if (protocol.approved) {
        const granted = protocol.permissionMode ?? 'default';
        // A lead that is not muster could name plan or delegate; neither lets the worker start.
        const permissionMode = MODES_NOT_GRANTED_BY_PLAN_APPROVAL.has(granted)
          ? 'default'
          : granted;
        client.setMode(permissionMode);
        status = 'approved';
        answer = { approved: true, requestId, permissionMode };
      } else {
        status = 'rejected';
        answer = { approved: false, requestId, feedback: protocol.feedback ?? '' };
      }
      await client.audit({
        kind: 'plan_answer_received',
        actor: client.agentName,
        subject: client.agentName,
        requestId,
        outcome: answer.approved ? `approved: ${answer.permissionMode}` : 'rejected',
        ...(answer.approved ? {} : { detail: answer.feedback }),
      });
      resolve(answer);
      return true;
    },
  };
}
