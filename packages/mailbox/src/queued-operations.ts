import type { InboxMessage } from '@muster/protocol';
import { planCompaction } from './compaction.js';
import { isInvalidEntry, messageDigest } from './inbox-format.js';
import type { MarkRequest, SpoolOperation } from './spool.js';

/** Read entries a claimed inbox keeps when a mark request names no window. */
export const defaultKeepRead = 20;

/** The inbox after the queued operations. */
export interface AppliedOperations {
  messages: InboxMessage[];
  /** Read entries compaction moved out (claimed inboxes, after a mark request). */
  archived: InboxMessage[];
  /** Entries appended. */
  appended: number;
  /** Entries turned from unread to read. */
  marked: number;
}

/**
 * Applies queued operations in order: appends add entries at the end (never anywhere else);
 * mark requests set `read: true` in place. When the inbox is claimed by a muster agent and a
 * mark request was applied, read entries beyond the window move to the archive — a send
 * alone never compacts.
 */
export function applyQueuedOperations(
  current: InboxMessage[],
  operations: readonly SpoolOperation[],
  isClaimed: () => boolean,
): AppliedOperations {
  let messages = current;
  let copied = false;
  let appended = 0;
  let marked = 0;
  let keepRead: number | null | undefined;
  let markRequests = 0;
  for (const operation of operations) {
    if (operation.kind === 'append') {
      messages = messages.concat(operation.messages);
      copied = true;
      appended += operation.messages.length;
      continue;
    }
    markRequests += 1;
    keepRead = operation.keepRead ?? keepRead;
    for (const index of markedIndices(messages, operation)) {
      const message = messages[index];
      if (message === undefined || isInvalidEntry(message) || message.read) continue;
      if (!copied) {
        messages = messages.slice();
        copied = true;
      }
      // Spreading keeps every key in place; `read` already exists, so it stays last.
      messages[index] = { ...message, read: true };
      marked += 1;
    }
  }
  if (markRequests > 0 && keepRead !== null && isClaimed()) {
    const window = keepRead ?? defaultKeepRead;
    const plan = planCompaction(messages, window, 2 * window);
    if (plan.archived.length > 0) {
      return { messages: plan.kept, archived: plan.archived, appended, marked };
    }
  }
  return { messages, archived: [], appended, marked };
}

/** The indices a mark request names in the current array. */
export function markedIndices(
  messages: readonly InboxMessage[],
  request: MarkRequest,
): readonly number[] {
  if ('all' in request) {
    return messages.flatMap((message, index) =>
      isInvalidEntry(message) || message.read ? [] : [index],
    );
  }
  if ('indices' in request) return request.indices;
  // Delivered entries: at their index when it still holds them, else the first unchosen
  // unread entry with the same digest (a compaction may have moved it).
  const chosen = new Set<number>();
  let digests: string[] | undefined;
  for (const { index, digest } of request.entries) {
    const atIndex = messages[index];
    if (atIndex !== undefined && !chosen.has(index) && messageDigest(atIndex) === digest) {
      chosen.add(index);
      continue;
    }
    digests ??= messages.map(messageDigest);
    const found = digests.findIndex(
      (candidate, position) =>
        candidate === digest &&
        !chosen.has(position) &&
        !isInvalidEntry(messages[position]) &&
        !messages[position]!.read,
    );
    if (found !== -1) chosen.add(found);
  }
  return [...chosen];
}
