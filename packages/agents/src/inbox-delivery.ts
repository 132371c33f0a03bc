// How inbox entries reach a teammate's model: each as a `<teammate-message …>` block exactly as
// FORMAT.md shows (the renderer of @muster/protocol), a shutdown request with the call that
// answers it, a plan answer as plain text, and several unread entries joined into one turn.
import {
  renderTeammateMessage,
  TEAM_LEAD_NAME,
  type InboxMessage,
  type PlanApprovalResponse,
  type ShutdownRequest,
} from '@muster/protocol';

/** Where a message to the model comes from, which decides its place in the queue. */
export type DeliveryRank =
  /** A verified shutdown request: always first. */
  | 0
  /** The lead (its messages, its plan answers, the spawn prompt). */
  | 1
  /** A peer. */
  | 2
  /** Work the teammate took from the task list itself. */
  | 3;

/** One piece of text waiting to reach the model. */
export interface PendingDelivery {
  /** Its place in the priority order (lower first). */
  readonly rank: DeliveryRank;
  /** Arrival order, for ties. */
  readonly order: number;
  /** The text as the model reads it. */
  readonly text: string;
  /** Called once the text went to the model (marks the inbox entry read). */
  readonly onDelivered?: () => void;
}

/**
 * The text of one plain inbox entry: `<teammate-message teammate_id=… color=… summary=…>`, with
 * ` verified="false"` last when the entry claims a sender it cannot prove (Claude Code 2.1.330).
 */
export function formatInboxEntry(
  message: Pick<InboxMessage, 'from' | 'text' | 'color' | 'summary'>,
  options: { verified?: boolean } = {},
): string {
  const rendered = renderTeammateMessage(message);
  if (options.verified !== false) return rendered;
  // Attribute values are escaped, so the first ">" closes the opening tag.
  const end = rendered.indexOf('>');
  return `${rendered.slice(0, end)} verified="false"${rendered.slice(end)}`;
}

/** The spawn prompt as a teammate's first turn: from the lead, with the spawn's description as summary. */
export function formatSpawnPrompt(prompt: string, description?: string): string {
  if (typeof prompt !== 'string' || prompt === '') {
    throw new TypeError('formatSpawnPrompt: the spawn prompt must be a non-empty string.');
  }
  return renderTeammateMessage({
    from: TEAM_LEAD_NAME,
    text: prompt,
    ...(description === undefined || description === '' ? {} : { summary: description }),
  });
}

/**
 * A verified shutdown request as the model reads it: the entry as written, and inside the
 * same tag the SendMessage input that approves it and the one that declines it.
 */
export function formatShutdownRequest(
  message: Pick<InboxMessage, 'from' | 'text' | 'color' | 'summary'>,
  request: Pick<ShutdownRequest, 'requestId' | 'reason'>,
): string {
  const approve = JSON.stringify({
    type: 'shutdown_response',
    request_id: request.requestId,
    approve: true,
  });
  const decline = JSON.stringify({
    type: 'shutdown_response',
    request_id: request.requestId,
    approve: false,
    content: '<why you need to keep going>',
  });
  const instruction = [
    'The lead asks you to stop (a shutdown request).',
    `If your work is finished or can be dropped, agree by calling SendMessage with this input: ${approve} — you end once this turn is over.`,
    `If you are in the middle of something that must be finished first, refuse by calling SendMessage with: ${decline}`,
  ].join('\n');
  return renderTeammateMessage({ ...message, text: `${message.text}\n\n${instruction}` });
}

/** The lead's verified answer to this teammate's plan, as plain text (how Claude Code shows it). */
export function formatPlanAnswer(
  answer: Pick<PlanApprovalResponse, 'approved' | 'feedback'>,
): string {
  if (answer.approved) return '[Plan Approved] You can now proceed with implementation';
  const feedback = answer.feedback?.trim();
  return `[Plan Rejected] ${feedback === undefined || feedback === '' ? 'The lead gave no reason; revise the plan and submit it again with ExitPlanMode.' : feedback}`;
}

/** A task the teammate claimed from the list while idle, as its next turn. */
export function formatClaimedTask(task: {
  id: string;
  subject: string;
  description?: string;
}): string {
  const lines = [
    `You took task #${task.id} from the team's task list (it is now yours and in progress): ${task.subject}`,
  ];
  if (task.description !== undefined && task.description.trim() !== '') {
    lines.push('', task.description);
  }
  lines.push(
    '',
    'Do the work, then mark it completed with TaskUpdate and tell the lead what you did.',
  );
  return lines.join('\n');
}

/**
 * Takes every waiting delivery (or, with `maximumRank`, those ranked at most that) in priority
 * order: shutdown requests, the lead, peers, claimed tasks, each group in arrival order.
 * Removes them from `queue`.
 */
export function takeInPriorityOrder(
  queue: PendingDelivery[],
  maximumRank: DeliveryRank = 3,
): PendingDelivery[] {
  const taken = queue.filter((item) => item.rank <= maximumRank);
  if (taken.length === 0) return [];
  const kept = queue.filter((item) => item.rank > maximumRank);
  queue.splice(0, queue.length, ...kept);
  return taken.sort((left, right) => left.rank - right.rank || left.order - right.order);
}

/** Several deliveries as one user turn: their texts joined by a blank line. */
export function joinDeliveries(deliveries: readonly PendingDelivery[]): string {
  return deliveries.map((delivery) => delivery.text).join('\n\n');
}
