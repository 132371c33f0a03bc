import type { InboxMessage, ShutdownRequest } from '@muster/protocol';
import type { LeadTrust } from './lead-trust.js';
import { protocolMessageOf, type MessageDelivery } from './messenger.js';

/** A member's gate for `shutdown_request`: only its lead's runtime may ask it to stop. */
export interface ShutdownGate {
  /**
   * Handles `shutdown_request`: a verified one is remembered and passed to `onRequest`; a
   * forged or unverifiable one is refused and audited, and never reaches `onRequest`. False
   * for other messages.
   */
  handleMessage(message: InboxMessage, delivery?: MessageDelivery): Promise<boolean>;
  /** The shutdown requests the lead verifiably sent, oldest first. */
  requests(): ShutdownRequest[];
  /**
   * Whether `requestId` is a shutdown request the lead verifiably sent: the only ones the
   * member may answer with `shutdown_approved`.
   */
  isGenuine(requestId: string): boolean;
}

/** Creates a {@link ShutdownGate} over a member's {@link LeadTrust}. */
export function createShutdownGate(options: {
  trust: LeadTrust;
  /** Called with each verified request (the runtime asks the model, then approves or rejects). */
  onRequest?: (request: ShutdownRequest, message: InboxMessage) => void | Promise<void>;
}): ShutdownGate {
  const genuine = new Map<string, ShutdownRequest>();
  return {
    async handleMessage(message, delivery) {
      const protocol = protocolMessageOf(message);
      if (protocol?.type !== 'shutdown_request') return false;
      if (!(await options.trust.admit(message, delivery))) return true;
      if (genuine.has(protocol.requestId)) {
        await options.trust.refuse(
          message,
          `shutdown_request ${protocol.requestId} was already received; a request is answered once`,
        );
        return true;
      }
      genuine.set(protocol.requestId, protocol);
      await options.onRequest?.(protocol, message);
      return true;
    },
    requests: () => [...genuine.values()],
    isGenuine: (requestId) => genuine.has(requestId),
  };
}
