// What the iTerm2 backend checks before it starts anything, and what it borrows from the
// lifecycle part (the lead link members connect back to).
import path from 'node:path';
import { BackendError } from './backend-error.js';
import type { MemberSpec } from './backend-types.js';

/** How to install the `it2` CLI (runtime.md §6.1). */
export const ITERM_INSTALL_FIX =
  'Install the it2 CLI (uv tool install it2, or pipx install it2, or pip install --user it2) and enable iTerm2 → Settings → General → Magic → Enable Python API.';

/** The part of the lead link the iTerm2 backend uses. */
export interface ITermLeadLink {
  readonly socketPath: string;
  waitForReady(
    agentId: string,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<void>;
  /** The member's link variables, with a new secret the link now expects (`LeadLink.memberEnvironment`). */
  memberEnvironment(agentId: string): Record<string, string>;
  close(): Promise<void>;
}

/** Refuses a spec the iTerm2 backend cannot run, saying what to fix. */
export function checkITermSpec(spec: MemberSpec): void {
  const problem = (what: string) =>
    new BackendError({
      code: 'INVALID_SPEC',
      message: `Cannot start ${typeof spec?.agentId === 'string' ? spec.agentId : 'a member'} in iTerm2: ${what}`,
    });
  if (typeof spec !== 'object' || spec === null) throw problem('pass a MemberSpec object.');
  for (const key of ['root', 'teamName', 'agentName', 'agentId', 'cwd'] as const) {
    if (typeof spec[key] !== 'string' || spec[key] === '') {
      throw problem(`${key} must be a non-empty string.`);
    }
  }
  if (!path.isAbsolute(spec.cwd)) throw problem(`cwd must be an absolute path, got ${spec.cwd}.`);
  if (
    typeof spec.command !== 'object' ||
    spec.command === null ||
    typeof spec.command.file !== 'string' ||
    spec.command.file === '' ||
    !Array.isArray(spec.command.args) ||
    !spec.command.args.every((argument) => typeof argument === 'string')
  ) {
    throw problem(
      'command { file, args } is required (an iTerm2 member is a process; use the in-process backend for a run function).',
    );
  }
  if ([spec.command.file, ...spec.command.args].some((part) => part.includes('\0'))) {
    throw problem('command holds a NUL character.');
  }
  for (const [name, value] of Object.entries(spec.environment ?? {})) {
    if (
      !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ||
      typeof value !== 'string' ||
      value.includes('\0')
    ) {
      throw problem(
        `environment variable ${JSON.stringify(name)} needs a valid name and a string value without NUL.`,
      );
    }
  }
  if (
    spec.readiness !== undefined &&
    spec.readiness !== 'connect-back' &&
    spec.readiness !== 'external'
  ) {
    throw problem(
      `readiness must be "connect-back" or "external", got ${JSON.stringify(spec.readiness)}.`,
    );
  }
  if (
    spec.readyTimeoutMs !== undefined &&
    !(Number.isFinite(spec.readyTimeoutMs) && spec.readyTimeoutMs > 0)
  ) {
    throw problem('readyTimeoutMs must be a positive number of milliseconds.');
  }
}
