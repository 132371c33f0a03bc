import {
  createSandboxRequestId,
  type IdSources,
  type InboxMessage,
  type SandboxPermissionRequest,
} from '@muster/protocol';
import { protocolMessageOf, type MessageDelivery } from './messenger.js';
import type { PermissionClient } from './permission-client.js';
import { PermissionsError } from './permissions-error.js';

/** The lead's answer about a network host, as the sandboxed worker sees it. */
export interface HostAccessAnswer {
  requestId: string;
  host: string;
  /** Whether the worker's code may reach the host. */
  allow: boolean;
  /** `answered` by the lead, `timeout` without an answer, `closed` when the gate closed. */
  reason: 'answered' | 'timeout' | 'closed';
}

/** A sandboxed worker's side of network access (`sandbox_permission_request`/`_response`). */
export interface HostAccessGate {
  /** Asks the lead whether the worker's code may reach `host`; resolves with the answer. */
  requestHost(host: string): Promise<HostAccessAnswer>;
  /** Hosts the lead allowed, in the order allowed. */
  allowedHosts(): string[];
  /** Ids of requests still waiting. */
  pendingRequestIds(): string[];
  /**
   * Handles `sandbox_permission_response`: it takes effect only when the client's trust
   * verifies it came from the lead's runtime and it answers a waiting request for the same
   * host; anything else is refused and audited. False for other messages.
   */
  handleMessage(message: InboxMessage, delivery?: MessageDelivery): Promise<boolean>;
  /** Resolves every waiting request as not allowed (`closed`). */
  close(): void;
}

const HOST = /^[A-Za-z0-9*]([A-Za-z0-9.*-]{0,252})$/;

/** Creates a worker's {@link HostAccessGate}; it sends through the client's messenger. */
export function createHostAccessGate(options: {
  client: PermissionClient;
  /** Color for the lead's badge. */
  workerColor?: string;
  /** How long a request waits before it counts as not allowed. Default 5 minutes. */
  timeoutMs?: number;
  idSources?: IdSources;
}): HostAccessGate {
  const { client } = options;
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  const waiting = new Map<
    string,
    { host: string; resolve: (answer: HostAccessAnswer) => void; timer: NodeJS.Timeout }
  >();
  const allowed: string[] = [];
  const settle = (requestId: string, allow: boolean, reason: HostAccessAnswer['reason']) => {
    const entry = waiting.get(requestId);
    if (entry === undefined) return;
    waiting.delete(requestId);
    clearTimeout(entry.timer);
    entry.resolve({ requestId, host: entry.host, allow, reason });
  };
  return {
    async requestHost(host) {
      if (typeof host !== 'string' || !HOST.test(host)) {
        throw new PermissionsError({
          code: 'INVALID_INPUT',
          message: `Cannot ask for network access to ${JSON.stringify(host)}: give a host name such as registry.npmjs.org (letters, digits, ".", "-", "*").`,
        });
      }
      const requestId = createSandboxRequestId(options.idSources);
      const request: SandboxPermissionRequest = {
        type: 'sandbox_permission_request',
        requestId,
        workerId: `${client.agentName}@${client.teamName}`,
        workerName: client.agentName,
        ...(options.workerColor === undefined ? {} : { workerColor: options.workerColor }),
        hostPattern: { host },
        createdAt: Date.now(),
      };
      const answer = new Promise<HostAccessAnswer>((resolve) => {
        const timer = setTimeout(() => settle(requestId, false, 'timeout'), timeoutMs);
        timer.unref?.();
        waiting.set(requestId, { host, resolve, timer });
      });
      try {
        await client.send(client.leadName, request);
      } catch (error) {
        const entry = waiting.get(requestId);
        if (entry !== undefined) clearTimeout(entry.timer);
        waiting.delete(requestId);
        throw error;
      }
      await client.audit({
        kind: 'permission_requested',
        actor: client.agentName,
        subject: client.agentName,
        requestId,
        detail: `network access to ${host} asked of ${client.leadName}`,
      });
      return answer;
    },
    allowedHosts: () => [...allowed],
    pendingRequestIds: () => [...waiting.keys()],
    async handleMessage(message, delivery) {
      const protocol = protocolMessageOf(message);
      if (protocol?.type !== 'sandbox_permission_response') return false;
      if (!(await client.trust.admit(message, delivery))) return true;
      const entry = waiting.get(protocol.requestId);
      if (entry === undefined) {
        await client.trust.refuse(
          message,
          `sandbox_permission_response for ${protocol.requestId}, which no request of ${client.agentName} is waiting for`,
        );
        return true;
      }
      if (protocol.host !== entry.host) {
        await client.trust.refuse(
          message,
          `sandbox_permission_response for ${protocol.requestId} answers for ${protocol.host}, but ${entry.host} was asked`,
        );
        return true;
      }
      if (protocol.allow && !allowed.includes(entry.host)) allowed.push(entry.host);
      settle(protocol.requestId, protocol.allow, 'answered');
      await client.audit({
        kind: 'permission_answer_received',
        actor: client.agentName,
        subject: client.agentName,
        requestId: protocol.requestId,
        outcome: protocol.allow ? 'allow' : 'deny',
        detail: `network access to ${entry.host}`,
      });
      return true;
    },
    close() {
      for (const requestId of [...waiting.keys()]) settle(requestId, false, 'closed');
    },
  };
}
