import { parseMessageContent, type InboxMessage, type MessageContent } from '@muster/protocol';
import { isInvalidEntry } from './inbox-format.js';

/** An unread entry as delivered: where it is, the entry itself, and what its text holds. */
export interface DeliveredMessage {
  /** Position in the inbox array when it was read (Claude Code marks read by this). */
  index: number;
  /** The entry exactly as in the file. */
  message: InboxMessage;
  /** A typed protocol message, or free text. */
  content: MessageContent;
}

/**
 * 0 for a shutdown request, 1 for anything from the lead, 2 for everything else (peers,
 * including protocol messages from peers).
 */
export function priorityRank(delivered: DeliveredMessage, leadName: string): number {
  const { content, message } = delivered;
  if (content.kind === 'protocol' && content.message.type === 'shutdown_request') return 0;
  if (message.from === leadName) return 1;
  return 2;
}

/**
 * The unread entries in the order an agent should handle them: shutdown requests first,
 * then the lead's messages, then peers — each group in arrival order.
 */
export function unreadInPriorityOrder(
  messages: readonly InboxMessage[],
  leadName: string,
): DeliveredMessage[] {
  const unread: Array<{ delivered: DeliveredMessage; rank: number }> = [];
  messages.forEach((message, index) => {
    // Entries that do not match the schema are skipped (reported by entryProblems).
    if (isInvalidEntry(message) || message.read) return;
    const delivered = { index, message, content: parseMessageContent(message.text) };
    unread.push({ delivered, rank: priorityRank(delivered, leadName) });
  });
  unread.sort(
    (left, right) => left.rank - right.rank || left.delivered.index - right.delivered.index,
  );
  return unread.map((entry) => entry.delivered);
}
