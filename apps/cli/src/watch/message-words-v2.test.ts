import type { InboxMessage } from '@muster/protocol';
import { describe, expect, it } from 'vitest';
import { referenceEntry2_1_330 } from '../test-support/reference.js';
import { describeMessage } from './message-words.js';

const entry = async (name: string) => (await referenceEntry2_1_330(name)) as InboxMessage;

const sentence = async (name: string, recipient: string, approvedPlans?: Set<string>) =>
  describeMessage(await entry(name), {
    recipient,
    ...(approvedPlans ? { approvedPlans } : {}),
  }).sentence;

describe('describeMessage on Claude Code 2.1.330 entries', () => {
  it("shows an idle teammate's result, and the peer message summary as [to <name>]", async () => {
    expect(await sentence('idle_notification', 'team-lead')).toBe(
      'alpha went idle - said: [step:A07] Task 1 is complete.',
    );
    expect(await sentence('idle_notification_with_peer_dm_summary', 'team-lead')).toBe(
      'alpha went idle: [to beta] Task 1 done, greet available - said: [step:A09] Told beta.',
    );
    const long = await entry('idle_notification');
    const payload = JSON.parse(long.text) as Record<string, unknown>;
    const cut = `${'word '.repeat(900)}[result truncated — ask the agent for the rest via SendMessage]`;
    const words = describeMessage(
      { ...long, text: JSON.stringify({ ...payload, result: cut }) },
      { recipient: 'team-lead' },
    );
    expect(words.sentence).toMatch(/said: (word ){10,}.*…$/);
    expect(words.sentence).not.toContain('result truncated');
    expect(words.sentence.length).toBeLessThan(120);
    expect(words.detail).toContain('[result truncated');
  });

  it('tells the automatic plan approval from the later rejection the teammate ignores', async () => {
    const approval = await entry('plan_approval_response_approved');
    const requestId = (JSON.parse(approval.text) as { requestId: string }).requestId;
    expect(await sentence('plan_approval_response_approved', 'beta')).toMatch(
      /^beta's plan was approved automatically \(plan sha256 [0-9a-f]{12}…, mode default\)$/,
    );
    const rejection = await entry('plan_approval_response_rejected');
    const sameRequest = {
      ...rejection,
      text: JSON.stringify({ ...JSON.parse(rejection.text), requestId }),
    };
    expect(
      describeMessage(sameRequest, { recipient: 'beta', approvedPlans: new Set([requestId]) })
        .sentence,
    ).toBe(
      "team-lead rejected beta's plan after it was approved; beta ignores it as stale: Please also cover the empty-name case.",
    );
    // Without an approval before it, a rejection is an ordinary one.
    expect(await sentence('plan_approval_response_rejected', 'beta')).toBe(
      "beta's plan was rejected: Please also cover the empty-name case.",
    );
  });

  it('names the tool of a version 2 permission answer and says a lead entry is signed', async () => {
    expect(await sentence('permission_response_success_lead_signed', 'gamma')).toBe(
      'team-lead allowed gamma to run Write (request perm-1795479486918-nsxqk2a) (signed)',
    );
    expect(await sentence('permission_response_error_lead_signed', 'gamma')).toMatch(
      /^team-lead refused to let gamma run Write \(request perm-[0-9a-z-]+\): Permission denied \(signed\)$/,
    );
    const signed = describeMessage(
      await entry('plain_message_with_summary_from_lead_lead_signed'),
      {
        recipient: 'alpha',
      },
    );
    expect(signed.signed).toBe(true);
    expect(signed.sentence).toMatch(/^team-lead to alpha \(signed\): /);
    expect(
      describeMessage(await entry('plain_message_with_summary_from_lead'), { recipient: 'alpha' })
        .signed,
    ).toBe(false);
  });

  it("says where a pane teammate's shutdown approval came from", async () => {
    expect(await sentence('shutdown_approved_pane', 'team-lead')).toBe(
      'beta agreed to shut down (pane %3, tmux)',
    );
    expect(await sentence('shutdown_approved', 'team-lead')).toBe(
      'alpha agreed to shut down (in-process)',
    );
  });
});
