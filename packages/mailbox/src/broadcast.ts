import { randomUUID } from 'node:crypto';
import type { InboxMessage, ProtocolDialect } from '@muster/protocol';
import { checkedMessageId, recipientMessageId } from './inbox-entry-v2.js';
import type { InboxMessageInput } from './inbox-format.js';
import { MailboxError } from './mailbox-error.js';
import type { BroadcastReceipt, SendInput } from './mailbox.js';
import type { TeamDirectory, TeamSpeech } from './team-directory.js';

/** What a broadcast needs from its mailbox. */
export interface BroadcastContext {
  directory: TeamDirectory;
  resolveColor: (from: string, color: string | null | undefined) => Promise<string | undefined>;
  speech: () => Promise<TeamSpeech>;
  compose: (
    recipient: string,
    fields: InboxMessageInput,
    dialect: ProtocolDialect,
    messageId: string | undefined,
  ) => { message: InboxMessage; messageId?: string };
  write: (
    recipient: string,
    composed: { message: InboxMessage; messageId?: string },
    named: boolean,
  ) => Promise<void>;
}

/**
 * One entry to every member but the sender. In a v2 team each inbox gets its own `msg_id`,
 * derived from the broadcast's id (given, or fresh), so a broadcast sent again with the same
 * id reaches nobody twice. `BROADCAST_INCOMPLETE` names who did not get it.
 */
export async function broadcastMessage(
  context: BroadcastContext,
  from: string,
  input: Omit<SendInput, 'from'>,
  messageId: string | undefined,
): Promise<BroadcastReceipt> {
  const config = await context.directory.require('broadcast');
  const recipients = config.members.map((member) => member.name).filter((name) => name !== from);
  const color = await context.resolveColor(from, input.color);
  const { dialect } = await context.speech();
  const fields: InboxMessageInput = {
    from,
    text: input.text,
    ...(input.summary !== undefined ? { summary: input.summary } : {}),
    timestamp: input.timestamp ?? new Date().toISOString(),
    ...(color !== undefined ? { color } : {}),
  };
  const broadcastId =
    dialect === 'v2' ? checkedMessageId(messageId ?? randomUUID(), 'the broadcast') : messageId;
  // Every entry is built (and checked) before any is written: a bad message reaches no one.
  const composed = recipients.map((recipient) =>
    context.compose(
      recipient,
      fields,
      dialect,
      broadcastId === undefined || dialect === 'v1'
        ? broadcastId
        : recipientMessageId(broadcastId, recipient),
    ),
  );
  const outcomes = await Promise.allSettled(
    recipients.map((recipient, position) =>
      context.write(recipient, composed[position]!, messageId !== undefined),
    ),
  );
  const failed = outcomes.flatMap((outcome, position) =>
    outcome.status === 'rejected'
      ? [{ recipient: recipients[position]!, error: outcome.reason }]
      : [],
  );
  const first = composed[0]?.message ?? context.compose(from, fields, 'v1', undefined).message;
  if (failed.length > 0) {
    const delivered = recipients.filter((name) => !failed.some((item) => item.recipient === name));
    throw new MailboxError({
      code: 'BROADCAST_INCOMPLETE',
      message:
        `The broadcast from ${from} reached ${delivered.length} of ${recipients.length} members; ` +
        `it failed for ${failed
          .map(
            (item) =>
              `${item.recipient} (${item.error instanceof Error ? item.error.message : String(item.error)})`,
          )
          .join('; ')}. ` +
        (broadcastId !== undefined && dialect === 'v2'
          ? `Broadcast it again with { messageId: '${broadcastId}' }: no one gets it twice.`
          : 'Resend to those members only (send), not the whole broadcast.'),
      cause: failed[0]!.error,
      details: {
        delivered,
        failed: failed.map((item) => item.recipient),
        message: first,
        ...(dialect === 'v2' ? { messageId: broadcastId } : {}),
      },
    });
  }
  if (dialect === 'v1') return { recipients, message: first };
  const messageIds = Object.fromEntries(
    recipients.map((recipient, position) => [recipient, composed[position]!.messageId!]),
  );
  return { recipients, message: first, messageId: broadcastId!, messageIds };
}
