// Checks a member spec before the in-process backend runs it: each problem names the field,
// what was wrong and what to pass instead.
import { isAbsolute } from 'node:path';
import { BackendError } from './backend-error.js';
import type { InProcessMemberContext, MemberSpec } from './backend-types.js';

/** Default time a member has to call `context.ready()` (the contract's 15 s). */
export const DEFAULT_READY_TIMEOUT_MS = 15_000;

/** Default time a graceful kill waits for the member's `run` to settle. */
export const DEFAULT_KILL_DEADLINE_MS = 5_000;

/** A spec the in-process backend accepted, with its defaults filled in. */
export interface CheckedInProcessSpec {
  readonly run: (context: InProcessMemberContext) => Promise<void>;
  readonly readyTimeoutMs: number;
}

/** Throws `BackendError('INVALID_SPEC')` naming the first problem of `spec` for the in-process backend. */
export function checkInProcessSpec(spec: MemberSpec): CheckedInProcessSpec {
  if (typeof spec !== 'object' || spec === null) {
    throw invalid('(none)', `the member spec must be an object, got ${describeValue(spec)}`);
  }
  const label =
    typeof spec.agentId === 'string' && spec.agentId !== '' ? spec.agentId : '(no agentId)';
  for (const field of ['root', 'teamName', 'agentName', 'agentId', 'cwd'] as const) {
    const value: unknown = spec[field];
    if (typeof value !== 'string' || value.trim() === '') {
      throw invalid(label, `spec.${field} must be a non-empty string, got ${describeValue(value)}`);
    }
  }
  if (spec.agentId !== `${spec.agentName}@${spec.teamName}`) {
    throw invalid(
      label,
      `spec.agentId must be "<agentName>@<teamName>" ("${spec.agentName}@${spec.teamName}"), got "${spec.agentId}"`,
    );
  }
  if (!isAbsolute(spec.cwd)) {
    throw invalid(
      label,
      `spec.cwd must be an absolute path (members never change the lead's directory), got "${spec.cwd}"`,
    );
  }
  if (typeof spec.run !== 'function') {
    throw invalid(
      label,
      spec.command === undefined
        ? 'the in-process backend runs spec.run(context), and spec.run is missing: pass the member body as an async function'
        : 'the in-process backend runs spec.run(context), not spec.command: pass the member body as spec.run, or choose a process backend (pty, tmux) for a command',
    );
  }
  const readiness: unknown = spec.readiness;
  if (readiness !== undefined && readiness !== 'connect-back' && readiness !== 'external') {
    throw invalid(
      label,
      `spec.readiness must be "connect-back" or "external", got ${describeValue(readiness)}`,
    );
  }
  const readyTimeoutMs = spec.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  checkDuration(readyTimeoutMs, 'spec.readyTimeoutMs', label);
  return { run: spec.run, readyTimeoutMs };
}

/** Throws `BackendError('INVALID_SPEC')` unless `value` is a finite, non-negative number of milliseconds. */
export function checkDuration(value: unknown, name: string, agentId: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalid(
      agentId,
      `${name} must be a finite number of milliseconds ≥ 0, got ${describeValue(value)}`,
    );
  }
  return value;
}

function invalid(agentId: string, problem: string): BackendError {
  return new BackendError({
    code: 'INVALID_SPEC',
    message: `In-process member ${agentId}: ${problem}.`,
    details: { agentId },
  });
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
