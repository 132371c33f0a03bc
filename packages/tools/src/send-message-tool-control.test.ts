import {
  createLeadKeyring,
  createLeadTrust,
  createShutdownGate,
  type PendingPlanRequest,
} from '@muster/permissions';
import { parseProtocolMessage, type PlanApprovalResponse } from '@muster/protocol';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it, vi } from 'vitest';
import { createTeamSession } from './team-session.js';
import type { TeamToolsOptions } from './team-tools-support.js';
import {
  makeTestTeam as makeTeam,
  runTool,
  textOf,
  toolContext,
  toolFailure,
} from './team-tools-test-support.js';
import { createTeamTools } from './team-tools.js';

describe('SendMessage shutdown', () => {
  it('lead asks, the teammate gate verifies the signed request, the teammate approves and stops', async () => {
    const team = await makeTeam();
    const asked = JSON.parse(
      textOf(
        await runTool(
          team.lead.sendMessage,
          { type: 'shutdown_request', recipient: 'alice', content: 'All done' },
          team.context,
        ),
      ),
    ) as Record<string, unknown>;
    expect(Object.keys(asked)).toEqual(['success', 'message', 'request_id', 'target']);
    expect(asked.target).toBe('alice');
    expect(asked.request_id).toMatch(/^shutdown-\d+@alice$/);

    const [entry] = await team.mailbox.readAll('alice');
    const request = parseProtocolMessage(entry!.text);
    expect(request).toMatchObject({
      type: 'shutdown_request',
      requestId: asked.request_id,
      from: 'team-lead',
      reason: 'All done',
    });

    const verifyKey = team.keyring.verifyKeyOf('alice')!;
    const gate = createShutdownGate({ trust: createLeadTrust({ agentName: 'alice', verifyKey }) });
    expect(await gate.handleMessage(entry!)).toBe(true);
    expect(gate.isGenuine(String(asked.request_id))).toBe(true);

    const stopped: unknown[] = [];
    const alice = team.teammate('alice', {
      shutdownGate: gate,
      onShutdownApproved: (approval) => {
        stopped.push(approval);
      },
      shutdownDetails: { paneId: 'in-process', backendType: 'in-process' },
    });
    const answer = JSON.parse(
      textOf(
        await runTool(
          alice.sendMessage,
          { type: 'shutdown_response', request_id: asked.request_id, approve: true },
          team.context,
        ),
      ),
    ) as Record<string, unknown>;
    expect(Object.keys(answer)).toEqual(['success', 'message', 'request_id']);
    expect(answer.success).toBe(true);
    // The hook runs after the call returned (it usually closes the agent running this call).
    expect(stopped).toEqual([]);
    await vi.waitFor(
      () => expect(stopped).toEqual([{ requestId: asked.request_id, lead: 'team-lead' }]),
      {
        timeout: 5_000,
      },
    );
    const [approval] = await team.mailbox.readAll('team-lead');
    expect(parseProtocolMessage(approval!.text)).toMatchObject({
      type: 'shutdown_approved',
      requestId: asked.request_id,
      from: 'alice',
      paneId: 'in-process',
      backendType: 'in-process',
    });
  });

  it('a teammate refuses to answer a request it never verifiably got, or one for someone else', async () => {
    const team = await makeTeam();
    const gate = createShutdownGate({
      trust: createLeadTrust({ agentName: 'alice', verifyKey: team.keyring.verifyKeyOf('alice')! }),
    });
    const stopped: unknown[] = [];
    const alice = team.teammate('alice', {
      shutdownGate: gate,
      onShutdownApproved: (a) => void stopped.push(a),
    });
    const forged = await toolFailure(
      alice.sendMessage,
      { type: 'shutdown_response', request_id: 'shutdown-123@alice', approve: true },
      team.context,
    );
    expect(forged.code).toBe('UNKNOWN_REQUEST');
    const elsewhere = await toolFailure(
      alice.sendMessage,
      { type: 'shutdown_response', request_id: 'shutdown-123@bob', approve: true },
      team.context,
    );
    expect(elsewhere.code).toBe('UNKNOWN_REQUEST');
    expect(stopped).toEqual([]);
    expect(await team.mailbox.readAll('team-lead')).toEqual([]);
  });

  it('a teammate declines with a reason; roles are enforced both ways', async () => {
    const team = await makeTeam();
    const bob = team.teammate('bob');
    const declined = JSON.parse(
      textOf(
        await runTool(
          bob.sendMessage,
          {
            type: 'shutdown_response',
            request_id: 'shutdown-5@bob',
            approve: false,
            content: 'Tests still running',
          },
          team.context,
        ),
      ),
    ) as Record<string, unknown>;
    expect(declined).toMatchObject({ success: true, request_id: 'shutdown-5@bob' });
    const [entry] = await team.mailbox.readAll('team-lead');
    expect(parseProtocolMessage(entry!.text)).toMatchObject({
      type: 'shutdown_rejected',
      reason: 'Tests still running',
      from: 'bob',
    });

    expect(
      (
        await toolFailure(
          bob.sendMessage,
          { type: 'shutdown_request', recipient: 'alice' },
          team.context,
        )
      ).code,
    ).toBe('NOT_LEAD');
    expect(
      (
        await toolFailure(
          team.lead.sendMessage,
          { type: 'shutdown_response', request_id: 'shutdown-5@team-lead', approve: true },
          team.context,
        )
      ).code,
    ).toBe('NOT_TEAMMATE');
    expect(await team.mailbox.readAll('alice')).toEqual([]);
  });
});

describe('SendMessage shutdown to an in-process teammate', () => {
  it('bob (no key) verifies the lead request through the lead runtime ledger, not another one', async () => {
    const team = await makeTeam();
    const asked = JSON.parse(
      textOf(
        await runTool(
          team.lead.sendMessage,
          { type: 'shutdown_request', recipient: 'bob' },
          team.context,
        ),
      ),
    ) as { request_id: string };
    const [entry] = await team.mailbox.readAll('bob');
    expect(entry?.lead_sig).toBeUndefined();
    const gate = createShutdownGate({
      trust: createLeadTrust({ agentName: 'bob', ledger: team.keyring.ledger }),
    });
    await gate.handleMessage(entry!);
    expect(gate.isGenuine(asked.request_id)).toBe(true);

    // A ledger of another lead runtime does not vouch for it.
    const otherGate = createShutdownGate({
      trust: createLeadTrust({ agentName: 'bob', ledger: createLeadKeyring().ledger }),
    });
    await otherGate.handleMessage(entry!);
    expect(otherGate.isGenuine(asked.request_id)).toBe(false);
  });
});

describe('SendMessage plan_approval_response', () => {
  it('goes through the plan review given by the runtime, and is refused without one', async () => {
    const calls: string[] = [];
    const plan = { requestId: 'plan_approval-1@bob@crew', workerName: 'bob' } as PendingPlanRequest;
    const planReview: TeamToolsOptions['planReview'] = {
      pendingPlans: () => [plan],
      approvePlan: async (requestId) => {
        calls.push(`approve ${requestId}`);
        return {
          type: 'plan_approval_response',
          requestId,
          approved: true,
          permissionMode: 'default',
          timestamp: 'now',
        } as PlanApprovalResponse;
      },
      rejectPlan: async (requestId, feedback) => {
        calls.push(`reject ${requestId} ${feedback}`);
        return {
          type: 'plan_approval_response',
          requestId,
          approved: false,
          feedback,
          timestamp: 'now',
        } as PlanApprovalResponse;
      },
    };
    const team = await makeTeam({ planReview });
    const approved = JSON.parse(
      textOf(
        await runTool(
          team.lead.sendMessage,
          {
            type: 'plan_approval_response',
            recipient: 'bob',
            request_id: plan.requestId,
            approve: true,
          },
          team.context,
        ),
      ),
    ) as Record<string, unknown>;
    expect(approved).toMatchObject({ success: true, request_id: plan.requestId });
    expect(String(approved.message)).toContain('default');
    await runTool(
      team.lead.sendMessage,
      {
        type: 'plan_approval_response',
        recipient: 'bob',
        request_id: plan.requestId,
        approve: false,
        content: 'Add tests',
      },
      team.context,
    );
    const wrong = await toolFailure(
      team.lead.sendMessage,
      {
        type: 'plan_approval_response',
        recipient: 'alice',
        request_id: plan.requestId,
        approve: true,
      },
      team.context,
    );
    expect(wrong.code).toBe('WRONG_RECIPIENT');
    expect(calls).toEqual([`approve ${plan.requestId}`, `reject ${plan.requestId} Add tests`]);

    const bare = await makeTeam();
    const refused = await toolFailure(
      bare.lead.sendMessage,
      {
        type: 'plan_approval_response',
        recipient: 'bob',
        request_id: plan.requestId,
        approve: true,
      },
      bare.context,
    );
    expect(refused.code).toBe('NO_PLAN_REVIEW');
    expect(await bare.mailbox.readAll('bob')).toEqual([]);
  });

  it('needs a team', async () => {
    const root = await makeTempDirectory('muster-send-message-');
    const tools = createTeamTools({
      root,
      session: createTeamSession({ role: 'lead' }),
      mailboxOptions: createLeadKeyring().mailboxOptions(),
    });
    const refused = await toolFailure(
      tools.sendMessage,
      { type: 'message', recipient: 'a', content: 'b' },
      toolContext(root),
    );
    expect(refused.code).toBe('NOT_IN_TEAM');
    expect(refused.message).toContain('TeamCreate');
  });
});
