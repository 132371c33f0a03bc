import type { InboxMessage } from '@muster/protocol';
import { planCompaction } from './compaction.js';
import { isInvalidEntry, messageDigest } from './inbox-format.js';
import { messageIdOf } from './message-id-log.js';
import type { MarkRequest, SpoolOperation } from './spool.js';

/** Read entries a claimed inbox keeps when a mark request names no window. */
export const defaultKeepRead = 20;

/** The inbox after the queued operations. */
export interface AppliedOperations {
  messages: InboxMessage[];
  /**
   * Entries that left the inbox: read entries compaction moved out (claimed inboxes, after a
   * mark request), and delivered entries a removing mark request took out.
   */
  archived: InboxMessage[];
  /** Entries appended. */
  appended: number;
  /** `msg_id`s of the entries appended (for the message-id log). */
  appendedIds: string[];
  /** Entries not appended because their `msg_id` was delivered before. */
  skippedDuplicates: number;
  /** Entries turned from unread to read (or removed as delivered). */
  marked: number;
}

/** Where a commit looks for ids delivered before (read lazily, only when needed). */
export interface DeliveredIdLookup {
  /** Ids in the message-id log. */
  loggedIds(): ReadonlySet<string>;
  /** Whether the archive holds an entry with this id. */
  inArchive(id: string): boolean;
}

/**
 * Applies queued operations in order: appends add entries at the end (never anywhere else),
 * skipping an entry whose `msg_id` is already in the inbox (or, when the sender named its
 * ids, in the message-id log or the archive: delivered before); mark requests set
 * `read: true` in place, or take delivered entries out into the archive (`remove`). When
 * the inbox is claimed by a muster agent and a mark request was applied, read entries
 * beyond the window move to the archive — a send alone never compacts.
 */
export function applyQueuedOperations(
  current: InboxMessage[],
  operations: readonly SpoolOperation[],
  isClaimed: () => boolean,
  delivered?: DeliveredIdLookup,
): AppliedOperations {
  let messages = current;
  let copied = false;
  let appended = 0;
  let marked = 0;
  let keepRead: number | null | undefined;
  let markRequests = 0;
  const appendedIds: string[] = [];
  let skippedDuplicates = 0;
  const removed: InboxMessage[] = [];
  let presentIds: Set<string> | undefined;
  for (const operation of operations) {
    if (operation.kind === 'append') {
      const fresh = operation.messages.filter((message) => {
        const id = messageIdOf(message);
        if (id === undefined) return true;
        presentIds ??= new Set(messages.flatMap((entry) => messageIdOf(entry) ?? []));
        const duplicate =
          presentIds.has(id) ||
          (operation.deduplicate === true &&
            delivered !== undefined &&
            (delivered.loggedIds().has(id) || delivered.inArchive(id)));
        if (duplicate) {
          skippedDuplicates += 1;
          return false;
        }
        presentIds.add(id);
        appendedIds.push(id);
        return true;
      });
      if (fresh.length === 0) continue;
      messages = messages.concat(fresh);
      copied = true;
      appended += fresh.length;
      continue;
    }
    markRequests += 1;
    keepRead = operation.keepRead ?? keepRead;
    const chosen = [...new Set(markedIndices(messages, operation))].filter((index) => {
      const message = messages[index];
      return message !== undefined && !isInvalidEntry(message) && !message.read;
    });
    if (chosen.length === 0) continue;
    if (!copied) {
      messages = messages.slice();
      copied = true;
    }
    for (const index of chosen) {
      // Spreading keeps every key in place; `read` already exists, so it stays where it is.
      messages[index] = { ...messages[index]!, read: true };
      marked += 1;
    }
    if (operation.remove) {
      // Delivered by removal (Claude Code 2.1.330): out of the inbox, a copy in the archive.
      const taken = new Set(chosen);
      removed.push(...chosen.sort((left, right) => left - right).map((index) => messages[index]!));
      messages = messages.filter((_, index) => !taken.has(index));
      presentIds = undefined;
    }
  }
  if (markRequests > 0 && keepRead !== null && isClaimed()) {
    const window = keepRead ?? defaultKeepRead;
    const plan = planCompaction(messages, window, 2 * window);
    if (plan.archived.length > 0) {
      return {
        messages: plan.kept,
        archived: [...removed, ...plan.archived],
        appended,
        appendedIds,
        skippedDuplicates,
        marked,
      };
    }
  }
  return { messages, archived: removed, appended, appendedIds, skippedDuplicates, marked };
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
  // Delivered entries: by `msg_id` when known (the first unread entry carrying it; none
  // when it is gone); else at their index when it still holds them, else the first
  // unchosen unread entry with the same digest (a compaction may have moved it).
  const chosen = new Set<number>();
  let digests: string[] | undefined;
  for (const { index, digest, messageId } of request.entries) {
    if (messageId !== undefined) {
      const found = messages.findIndex(
        (message, position) =>
          !chosen.has(position) && messageIdOf(message) === messageId && !message.read,
      );
      if (found !== -1) chosen.add(found);
      continue;
    }
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
