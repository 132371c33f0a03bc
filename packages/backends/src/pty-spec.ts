// Checks a member spec before the pty backend starts anything: every refusal says which field
// is wrong and what it should be.
import path from 'node:path';
import { BackendError } from './backend-error.js';
import type { MemberSpec } from './backend-types.js';

function invalid(spec: Partial<MemberSpec> | undefined, what: string): BackendError {
  const who = typeof spec?.agentId === 'string' ? ` ${spec.agentId}` : '';
  return new BackendError({
    code: 'INVALID_SPEC',
    message: `pty backend: member spec${who} is invalid: ${what}`,
  });
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** Throws `INVALID_SPEC` unless `spec` can start a process member on a PTY. */
export function checkPtySpec(spec: MemberSpec): void {
  if (typeof spec !== 'object' || spec === null) {
    throw invalid(undefined, `expected an object, got ${String(spec)}`);
  }
  for (const field of ['root', 'teamName', 'agentName', 'agentId'] as const) {
    if (!isNonEmptyString(spec[field])) {
      throw invalid(
        spec,
        `${field} must be a non-empty string, got ${JSON.stringify(spec[field])}`,
      );
    }
  }
  if (!isNonEmptyString(spec.cwd) || !path.isAbsolute(spec.cwd)) {
    throw invalid(spec, `cwd must be an absolute path, got ${JSON.stringify(spec.cwd)}`);
  }
  const command = spec.command;
  if (
    typeof command !== 'object' ||
    command === null ||
    !isNonEmptyString(command.file) ||
    !Array.isArray(command.args) ||
    !command.args.every((argument) => typeof argument === 'string')
  ) {
    throw invalid(
      spec,
      'command must be { file: string, args: string[] } (the program and its arguments; a pty member runs a process, not spec.run)',
    );
  }
  if (spec.environment !== undefined) {
    const environment: unknown = spec.environment;
    if (typeof environment !== 'object' || environment === null || Array.isArray(environment)) {
      throw invalid(spec, 'environment must be an object of variable names to strings');
    }
    for (const [name, value] of Object.entries(environment)) {
      if (typeof value !== 'string' || name === '' || name.includes('=')) {
        throw invalid(
          spec,
          `environment variable ${JSON.stringify(name)} must have a name without "=" and a string value`,
        );
      }
    }
  }
  if (spec.readiness !== undefined && !['connect-back', 'external'].includes(spec.readiness)) {
    throw invalid(
      spec,
      `readiness must be 'connect-back' or 'external', got ${JSON.stringify(spec.readiness)}`,
    );
  }
  if (
    spec.readyTimeoutMs !== undefined &&
    (typeof spec.readyTimeoutMs !== 'number' ||
      !Number.isFinite(spec.readyTimeoutMs) ||
      spec.readyTimeoutMs <= 0)
  ) {
    throw invalid(
      spec,
      `readyTimeoutMs must be a positive number of milliseconds, got ${String(spec.readyTimeoutMs)}`,
    );
  }
}
