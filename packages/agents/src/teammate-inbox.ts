// A teammate's inbox while it lives: one `watch` of the mailbox (pushed, not polled), each
// entry either a lead control message (judged by the lead trust and handed to the permission
// client, the plan gate or the shutdown gate) or text for the model, queued in priority order
// until the loop takes it. Waiting for the next message is a promise resolved by a push.
import type { DeliveredMessage, Mailbox } from '@muster/mailbox';
import { guardControlMessages, type LeadTrust, type MessageHandler } from '@muster/permissions';
import {
  formatInboxEntry,
  takeInPriorityOrder,
  type DeliveryRank,
  type PendingDelivery,
} from './inbox-delivery.js';

/** A mailbox delivery as `watch` yields it. */
type Delivery = DeliveredMessage;

/** Options of {@link openTeammateInbox}. */
export interface TeammateInboxOptions {
  /** The team's mailbox (read side). */
  mailbox: Mailbox;
  /** The teammate's name. */
  agentName: string;
  /** The judge of the lead's control messages. */
  trust: LeadTrust;
  /** Handlers of verified control messages (permission client, plan gate, shutdown gate). */
  controlHandlers: readonly MessageHandler[];
  /**
   * Judge plain text that claims the lead's name too (v2 teams, whose lead entries carry a
   * `msg_id`): what the trust cannot verify gets `verified="false"` and a peer's place.
   */
  verifyLeadText?: boolean;
}

/** The queue between the inbox and the loop. */
export interface TeammateInbox {
  /** Queues text for the model (a spawn prompt, a plan answer, a claimed task). */
  push(rank: DeliveryRank, text: string, onDelivered?: () => void): void;
  /** Takes what waits, in priority order (optionally only ranks up to `maximumRank`). */
  take(maximumRank?: DeliveryRank): PendingDelivery[];
  /** Resolves at the next push, a failure or `stop()`; at once when something waits. */
  waitForDelivery(): Promise<void>;
  /** Wakes `waitForDelivery` without a delivery (the lifecycle signal aborted). */
  wake(): void;
  /** Writes the read marks of the entries handed to the model so far. */
  markDelivered(): Promise<void>;
  /** The error that ended the watch, if one did. */
  failure(): { error: unknown } | undefined;
  /** Ends the watch and resolves once it has (the marks still pending are written). */
  stop(): Promise<void>;
}

/**
 * Starts watching `agentName`'s inbox. Control messages that the trust refuses are audited
 * and marked read without reaching the model; verified ones go to their handler and are
 * marked read at once; everything else waits in the queue and is marked read once the loop
 * handed it to the model.
 */
export function openTeammateInbox(options: TeammateInboxOptions): TeammateInbox {
  const { mailbox, agentName, trust } = options;
  const queue: PendingDelivery[] = [];
  const toMark: Delivery[] = [];
  const controller = new AbortController();
  const guard = guardControlMessages(trust, options.controlHandlers);
  let order = 0;
  let wake: (() => void) | undefined;
  let failed: { error: unknown } | undefined;
  let marking: Promise<void> = Promise.resolve();

  const wakeUp = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const push = (rank: DeliveryRank, text: string, onDelivered?: () => void) => {
    queue.push({ rank, order: order++, text, ...(onDelivered ? { onDelivered } : {}) });
    wakeUp();
  };

  const handle = async (delivery: Delivery) => {
    const { message } = delivery;
    if (trust.isControlMessage(message) && (await guard(message, { via: 'mailbox' }))) {
      await mailbox.markRead(agentName, [delivery]);
      return;
    }
    // In a v2 team every entry the lead's runtime writes can be verified: one that claims the
    // lead's name and cannot be is shown as unverified and waits with the peers.
    const claimsLead = message.from === trust.leadName;
    const unverified =
      claimsLead && options.verifyLeadText === true && !trust.classify(message).accepted;
    const rank = claimsLead && !unverified ? 1 : 2;
    push(rank, formatInboxEntry(message, unverified ? { verified: false } : {}), () => {
      toMark.push(delivery);
    });
  };

  const pump = (async () => {
    try {
      for await (const delivery of mailbox.watch(agentName, { signal: controller.signal })) {
        await handle(delivery);
        if (controller.signal.aborted) break;
      }
    } catch (error) {
      if (!controller.signal.aborted) failed = { error };
    } finally {
      wakeUp();
    }
  })();

  return {
    push,
    wake: wakeUp,
    take: (maximumRank) => takeInPriorityOrder(queue, maximumRank),
    waitForDelivery() {
      if (queue.length > 0 || failed !== undefined || controller.signal.aborted) {
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const previous = wake;
        wake = () => {
          previous?.();
          resolve();
        };
      });
    },
    markDelivered() {
      if (toMark.length > 0) {
        const batch = toMark.splice(0, toMark.length);
        // Each batch settles on its own: one failed mark must not fail every later one.
        marking = marking
          .catch(() => undefined)
          .then(() => mailbox.markRead(agentName, batch))
          .then(() => undefined);
      }
      return marking;
    },
    failure: () => failed,
    async stop() {
      controller.abort();
      wakeUp();
      await pump;
      await marking.catch(() => undefined);
    },
  };
}
