import { ProtocolError } from './errors.js';

/** Sources of time and randomness, injectable for tests. */
export interface IdSources {
  /** Epoch milliseconds (default `Date.now()`). */
  now?: () => number;
  /** A float in [0, 1) (default `Math.random()`). */
  random?: () => number;
}

function randomBase36(length: number, random: () => number): string {
  let result = '';
  while (result.length < length) {
    const digit = Math.min(35, Math.max(0, Math.floor(random() * 36)));
    result += Number.isFinite(digit) ? digit.toString(36) : '0';
  }
  return result;
}

/** `shutdown-{epochMs}@{recipient}`, the id Claude Code puts on a shutdown_request. */
export function createShutdownRequestId(recipient: string, sources: IdSources = {}): string {
  return `shutdown-${(sources.now ?? Date.now)()}@${recipient}`;
}

/** `plan_approval-{epochMs}@{agent}@{team}`, the id of a plan_approval_request. */
export function createPlanApprovalRequestId(
  agentName: string,
  teamName: string,
  sources: IdSources = {},
): string {
  return `plan_approval-${(sources.now ?? Date.now)()}@${agentName}@${teamName}`;
}

/** `perm-{epochMs}-{7 base-36 characters}`, the id of a permission_request. */
export function createPermissionRequestId(sources: IdSources = {}): string {
  return `perm-${(sources.now ?? Date.now)()}-${randomBase36(7, sources.random ?? Math.random)}`;
}

/** `sandbox-{epochMs}-{7 base-36 characters}`, the id of a sandbox_permission_request. */
export function createSandboxRequestId(sources: IdSources = {}): string {
  return `sandbox-${(sources.now ?? Date.now)()}-${randomBase36(7, sources.random ?? Math.random)}`;
}

/** What a request id says about itself. */
export type ParsedRequestId =
  | { kind: 'shutdown'; createdAt: number; recipient: string }
  | { kind: 'plan_approval'; createdAt: number; agentName: string; teamName: string }
  | { kind: 'permission'; createdAt: number; suffix: string }
  | { kind: 'sandbox'; createdAt: number; suffix: string };

/** Parses any of the request id formats above; throws `INVALID_INPUT` for anything else. */
export function parseRequestId(requestId: string): ParsedRequestId {
  let match = /^shutdown-(\d+)@(.+)$/.exec(requestId);
  if (match) return { kind: 'shutdown', createdAt: Number(match[1]), recipient: match[2]! };
  match = /^plan_approval-(\d+)@([^@]+)@(.+)$/.exec(requestId);
  if (match) {
    return {
      kind: 'plan_approval',
      createdAt: Number(match[1]),
      agentName: match[2]!,
      teamName: match[3]!,
    };
  }
  match = /^(perm|sandbox)-(\d+)-([0-9a-z]+)$/.exec(requestId);
  if (match) {
    return {
      kind: match[1] === 'perm' ? 'permission' : 'sandbox',
      createdAt: Number(match[2]),
      suffix: match[3]!,
    };
  }
  throw new ProtocolError({
    code: 'INVALID_INPUT',
    message: `${JSON.stringify(requestId)} is not a request id muster or Claude Code writes (expected shutdown-…@…, plan_approval-…@…@…, perm-… or sandbox-…).`,
    details: { requestId },
  });
}
