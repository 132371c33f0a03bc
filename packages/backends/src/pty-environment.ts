// What a PTY member starts with: its command resolved to a real executable, and its
// environment (the lead's, minus model credentials, plus the spec's and the lead link's).
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { isModelCredentialVariable } from '@muster/protocol';
import { BackendError } from './backend-error.js';
import type { MemberSpec } from './backend-types.js';

/** The lead's environment without undefined values and without model credentials. */
export function scrubbedLeadEnvironment(
  environment: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    if (typeof value === 'string' && !isModelCredentialVariable(name)) result[name] = value;
  }
  return result;
}

/**
 * A PTY member's environment: the lead's (scrubbed), `TERM=xterm-256color` (its screen is an
 * xterm emulation), the spec's `environment`, then `linkVariables` (lead socket, agent id),
 * which the spec cannot override.
 */
export function ptyMemberEnvironment(
  spec: MemberSpec,
  leadEnvironment: Readonly<Record<string, string | undefined>>,
  linkVariables: Readonly<Record<string, string>>,
): Record<string, string> {
  return {
    ...scrubbedLeadEnvironment(leadEnvironment),
    TERM: 'xterm-256color',
    ...spec.environment,
    ...linkVariables,
  };
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The absolute path of the program `file` names, looked up as `execvp` would (a name without a
 * slash on `PATH`, else relative to `cwd`). Throws `SPAWN_FAILED` naming what was searched: a
 * PTY child that cannot exec only prints an error and exits 1, which is much harder to read.
 */
export function resolveExecutable(
  file: string,
  cwd: string,
  environment: Readonly<Record<string, string>>,
  agentId: string,
): string {
  if (file.includes('/')) {
    const absolute = path.resolve(cwd, file);
    if (isExecutableFile(absolute)) return absolute;
    throw new BackendError({
      code: 'SPAWN_FAILED',
      message: `pty backend: cannot start member ${agentId}: ${absolute} is not an executable file; check spec.command.file and its permissions`,
      details: { agentId, file: absolute },
    });
  }
  const searchPath = environment.PATH ?? '';
  for (const folder of searchPath.split(':')) {
    if (folder === '') continue;
    const candidate = path.resolve(cwd, folder, file);
    if (isExecutableFile(candidate)) return candidate;
  }
  throw new BackendError({
    code: 'SPAWN_FAILED',
    message: `pty backend: cannot start member ${agentId}: no executable "${file}" on its PATH (${searchPath || 'empty'}); install it, give an absolute path, or set PATH in spec.environment`,
    details: { agentId, file },
  });
}
