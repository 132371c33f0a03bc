import { unreadKeys } from './inbox-format.js';
import { messageIdOf } from './message-id-log.js';
import type { InboxChanges, MailboxStore } from './mailbox-store.js';
import { unreadInPriorityOrder, type DeliveredMessage } from './priority.js';

/** Options of `watch`. */
export interface WatchOptions {
  /** Stops the watch; the loop ends after the current message. */
  signal?: AbortSignal;
  /**
   * Mark each message read once the consumer is done with it (when it asks for the next
   * one or leaves the loop). Marks are written in batches, in one locked write each. In a
   * Claude Code 2.1.330 session team the delivered entries are taken out of the inbox
   * instead (a copy goes to the archive), as Claude Code's own readers do. Default false.
   */
  markRead?: boolean;
  /** Polling fallback interval. Default 500 ms. */
  pollIntervalMs?: number;
}

/** Unmarked deliveries written per batch at most. */
const markBatchSize = 64;
/** How long marks wait for more messages before they are written. */
const markDelayMs = 50;
/**
 * While messages are queued for the consumer, changes are re-read at most this often: often
 * enough that a shutdown request still jumps the queue, rarely enough that a busy inbox is
 * not re-parsed before every single message.
 */
const rescanIntervalMs = 20;

/** True when a change arrives within `milliseconds` (without consuming it). */
async function settlesWithin(changes: InboxChanges, milliseconds: number): Promise<boolean> {
  const deadline = Date.now() + milliseconds;
  while (!changes.hasPendingChange && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return changes.hasPendingChange;
}

/**
 * Yields each unread message of `agent` once, as it arrives, in priority order (shutdown
 * requests, then the lead, then peers). Re-scans on every change the store reports — also
 * between messages (at most every 20 ms) when a change came in meanwhile, so a late
 * shutdown request still jumps the queue.
 */
export async function* watchMessages(
  store: MailboxStore,
  agent: string,
  leadName: () => Promise<string>,
  options: WatchOptions = {},
  removeOnDelivery: () => Promise<boolean> = async () => false,
): AsyncGenerator<DeliveredMessage, void, undefined> {
  const changes = store.watch(agent, {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
  });
  const iterator = changes[Symbol.asyncIterator]();
  let delivered = new Set<string>();
  let queue: Array<{ item: DeliveredMessage; key: string }> = [];
  const toMark: Array<{ index: number; digest: string; messageId?: string }> = [];
  // Marks are written in the background, one batch at a time, so delivery never waits for
  // them; a failed batch is thrown from the loop at the next step (never dropped).
  let flushing: Promise<void> = Promise.resolve();
  let flushError: { error: unknown } | undefined;
  const startFlush = () => {
    if (toMark.length === 0) return;
    const batch = toMark.splice(0, toMark.length);
    flushing = flushing
      .then(async () =>
        store.mark(agent, {
          entries: batch,
          ...((await removeOnDelivery()) ? { remove: true } : {}),
        }),
      )
      .catch((error: unknown) => {
        flushError ??= { error };
      });
  };
  let lastScanAt = 0;
  try {
    for (;;) {
      if (flushError !== undefined) throw flushError.error;
      if (options.signal?.aborted) return;
      const rescanDue = changes.hasPendingChange && Date.now() - lastScanAt >= rescanIntervalMs;
      if (queue.length === 0 || rescanDue) {
        if (queue.length === 0 && toMark.length > 0 && !changes.hasPendingChange) {
          // Marks wait for a quiet moment (or a full batch): while messages keep coming,
          // one write marks many.
          if (!(await settlesWithin(changes, markDelayMs))) startFlush();
        }
        const next = await iterator.next();
        if (next.done) return;
        lastScanAt = Date.now();
        const messages = await store.read(agent);
        const keys = unreadKeys(messages);
        const unread = unreadInPriorityOrder(messages, await leadName());
        const stillUnread = new Set(unread.map((item) => keys[item.index]!));
        delivered = new Set([...delivered].filter((key) => stillUnread.has(key)));
        queue = unread
          .map((item) => ({ item, key: keys[item.index]! }))
          .filter((entry) => !delivered.has(entry.key));
        continue;
      }
      const { item, key } = queue.shift()!;
      delivered.add(key);
      // Queued before the yield so that leaving the loop (return) still marks it.
      if (options.markRead) {
        const messageId = messageIdOf(item.message);
        toMark.push({
          index: item.index,
          digest: key.slice(key.indexOf(':') + 1),
          ...(messageId !== undefined ? { messageId } : {}),
        });
      }
      yield item;
      if (toMark.length >= markBatchSize) startFlush();
    }
  } finally {
    changes.close();
    startFlush();
    await flushing;
    // Leaving the loop (return, break) must still surface a failed mark write.
    // eslint-disable-next-line no-unsafe-finally -- deliberate: see the line above
    if (flushError !== undefined) throw flushError.error;
  }
}
