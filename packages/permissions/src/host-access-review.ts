import type {
  InboxMessage,
  SandboxPermissionRequest,
  SandboxPermissionResponse,
} from '@muster/protocol';
import type { AuditSink } from './audit-log.js';
import type { AgentMessenger } from './messenger.js';
import { PermissionsError } from './permissions-error.js';

/** A network-access request waiting for the lead. */
export interface PendingHostRequest {
  requestId: string;
  /** The asking worker (the envelope's `from`). */
  workerName: string;
  host: string;
  /** When the lead received it. */
  receivedAt: string;
  request: SandboxPermissionRequest;
}

/** The lead's side of network access (part of the permission broker). */
export interface HostAccessReview {
  /** Network-access requests waiting for an answer, oldest first. */
  pendingHostRequests(): PendingHostRequest[];
  /** Resolves with the next request satisfying `predicate` (a waiting one counts). */
  nextHostRequest(
    predicate?: (request: PendingHostRequest) => boolean,
  ): Promise<PendingHostRequest>;
  /** Answers a request: writes a `sandbox_permission_response` to the worker. */
  answerHostRequest(requestId: string, allow: boolean): Promise<SandboxPermissionResponse>;
  /** @internal Takes a sandbox_permission_request off the lead's inbox. */
  receiveHostRequest(message: InboxMessage, request: SandboxPermissionRequest): boolean;
}

/** Builds the network-access half of a broker. */
export function createHostAccessReview(options: {
  messenger: AgentMessenger;
  teamName: string;
  audit: (entry: Parameters<AuditSink['append']>[0]) => Promise<void>;
}): HostAccessReview {
  const pending = new Map<string, PendingHostRequest>();
  const listeners = new Set<(request: PendingHostRequest) => void>();
  return {
    pendingHostRequests: () => [...pending.values()],
    nextHostRequest(predicate = () => true) {
      const waiting = [...pending.values()].find(predicate);
      if (waiting !== undefined) return Promise.resolve(waiting);
      return new Promise((resolve) => {
        const listener = (request: PendingHostRequest) => {
          if (!predicate(request)) return;
          listeners.delete(listener);
          resolve(request);
        };
        listeners.add(listener);
      });
    },
    async answerHostRequest(requestId, allow) {
      const request = pending.get(requestId);
      if (request === undefined) {
        throw new PermissionsError({
          code: 'UNKNOWN_REQUEST',
          message: `No network-access request ${requestId} is waiting in team ${options.teamName} (answered already, or never received). Waiting: ${[...pending.keys()].join(', ') || 'none'}.`,
          details: { requestId },
        });
      }
      if (typeof allow !== 'boolean') {
        throw new PermissionsError({
          code: 'INVALID_INPUT',
          message: `Answering network-access request ${requestId} needs allow true or false, not ${JSON.stringify(allow)}.`,
        });
      }
      pending.delete(requestId);
      const response: SandboxPermissionResponse = {
        type: 'sandbox_permission_response',
        requestId,
        host: request.host,
        allow,
        timestamp: new Date().toISOString(),
      };
      try {
        await options.messenger.send(request.workerName, response);
      } catch (error) {
        pending.set(requestId, request);
        throw error;
      }
      await options.audit({
        kind: allow ? 'permission_approved' : 'permission_denied',
        actor: options.messenger.agentName,
        subject: request.workerName,
        requestId,
        outcome: allow ? 'allow' : 'deny',
        detail: `network access to ${request.host}`,
      });
      return response;
    },
    receiveHostRequest(message, request) {
      if (pending.has(request.requestId)) return true;
      const entry: PendingHostRequest = {
        requestId: request.requestId,
        workerName: message.from,
        host: request.hostPattern.host,
        receivedAt: new Date().toISOString(),
        request,
      };
      pending.set(entry.requestId, entry);
      for (const listener of [...listeners]) listener(entry);
      return true;
    },
  };
}
