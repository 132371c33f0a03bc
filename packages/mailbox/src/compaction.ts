import type { InboxMessage } from '@muster/protocol';
import { isInvalidEntry } from './inbox-format.js';

/** Which entries a compaction keeps and which it moves to the archive. */
export interface CompactionPlan {
  kept: InboxMessage[];
  archived: InboxMessage[];
}

/**
 * Plans a compaction: when the inbox holds more than `threshold` read entries, every read
 * entry except the newest `keepRead` moves to the archive. Unread entries always stay, and
 * everything that stays keeps its order.
 */
export function planCompaction(
  messages: readonly InboxMessage[],
  keepRead: number,
  threshold: number,
): CompactionPlan {
  // An entry that does not match the schema is never moved (nor counted): it stays in place.
  const isRead = (message: InboxMessage) => !isInvalidEntry(message) && message.read;
  const readCount = messages.reduce((count, message) => count + (isRead(message) ? 1 : 0), 0);
  if (readCount <= Math.max(threshold, keepRead)) return { kept: messages.slice(), archived: [] };
  let toArchive = readCount - Math.max(0, keepRead);
  const kept: InboxMessage[] = [];
  const archived: InboxMessage[] = [];
  for (const message of messages) {
    if (isRead(message) && toArchive > 0) {
      archived.push(message);
      toArchive -= 1;
    } else {
      kept.push(message);
    }
  }
  return { kept, archived };
}
