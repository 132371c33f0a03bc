import path from 'node:path';
import { addTeamAllowedPath } from '@muster/teams';
import {
  normalizePosixPath,
  type PermissionUpdate,
  type TeamAllowedPath,
  type TeamPermissionUpdate,
} from '@muster/protocol';
import type { AgentMessenger } from './messenger.js';
import { PermissionsError } from './permissions-error.js';
import { assertIsLead, leadNameOf } from './team-lookup.js';
import { PATH_INPUT_FIELDS } from './tool-catalog.js';

/** The directory a call works in: a file's folder, or the directory a search tool was given. */
export function directoryOfCall(
  input: Record<string, unknown>,
  currentDirectory: string | undefined,
): string | undefined {
  for (const field of PATH_INPUT_FIELDS) {
    const value = input[field];
    if (typeof value !== 'string' || value === '') continue;
    const absolute = value.startsWith('/')
      ? value
      : currentDirectory === undefined
        ? undefined
        : `${currentDirectory}/${value}`;
    if (absolute === undefined) return undefined;
    const normalized = normalizePosixPath(absolute);
    return field === 'path' ? normalized : path.posix.dirname(normalized);
  }
  return undefined;
}

/** The update a `team_permission_update` carries: allow the tool under the directory. */
export function teamPathPermissionUpdate(entry: TeamAllowedPath): PermissionUpdate {
  return {
    type: 'addRules',
    rules: [{ toolName: entry.toolName, ruleContent: `/${entry.path.replace(/\/$/, '')}/**` }],
    behavior: 'allow',
    destination: 'session',
  };
}

/**
 * Approves a directory for the whole team: stores `{path, toolName, addedBy, addedAt}` in the
 * team config's `teamAllowedPaths` (through `@muster/teams`, under the config's lock) and
 * sends a `team_permission_update` to every member but the lead. Throws `INVALID_INPUT` when
 * no directory can be worked out and `NOT_LEAD` when the sender is not the lead.
 */
export async function grantTeamPath(options: {
  root: string | undefined;
  teamName: string;
  messenger: AgentMessenger;
  request: { workerName: string; toolName: string; input: Record<string, unknown> };
  addedBy: string;
  teamPath?: string;
}): Promise<TeamAllowedPath> {
  const { root, teamName, messenger, request } = options;
  if (root === undefined) {
    throw new PermissionsError({
      code: 'INVALID_INPUT',
      message: `Cannot approve ${request.toolName} for the whole team ${teamName}: the broker has no muster root, so the team config cannot be updated. Pass root to createPermissionBroker.`,
    });
  }
  const config = (await assertIsLead({
    root,
    teamName,
    agentName: messenger.agentName,
    action: 'approve paths for the whole team',
  }))!;
  const worker = config.members.find((member) => member.name === request.workerName);
  const directory =
    options.teamPath !== undefined
      ? normalizePosixPath(options.teamPath)
      : directoryOfCall(request.input, worker?.cwd);
  if (directory === undefined || !directory.startsWith('/')) {
    throw new PermissionsError({
      code: 'INVALID_INPUT',
      message: `Cannot approve ${request.toolName} for the whole team ${teamName}: no absolute directory could be worked out from the call (${JSON.stringify(request.input)}). Pass teamPath.`,
    });
  }
  const { entry } = await addTeamAllowedPath(root, teamName, {
    path: directory,
    toolName: request.toolName,
    addedBy: options.addedBy,
  });
  const update: TeamPermissionUpdate = {
    type: 'team_permission_update',
    permissionUpdate: teamPathPermissionUpdate(entry),
    directoryPath: entry.path,
    toolName: entry.toolName,
    from: messenger.agentName,
    timestamp: new Date().toISOString(),
  };
  const leadName = leadNameOf(config);
  const failures: string[] = [];
  for (const member of config.members) {
    if (member.name === leadName) continue;
    try {
      await messenger.send(member.name, update);
    } catch (error) {
      failures.push(`${member.name}: ${(error as Error).message}`);
    }
  }
  if (failures.length > 0) {
    throw new PermissionsError({
      code: 'IO_ERROR',
      message: `${entry.path} is approved for ${entry.toolName} in the team config of ${teamName}, but the team_permission_update did not reach every member (${failures.join('; ')}). They will see it when they next read the config; resend if needed.`,
      details: { entry, failures },
    });
  }
  return entry;
}
