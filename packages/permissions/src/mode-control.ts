import { setMemberMode } from '@muster/teams';
import { PermissionModeSchema, type ModeSetRequest, type PermissionMode } from '@muster/protocol';
import type { AgentMessenger } from './messenger.js';
import { PermissionsError } from './permissions-error.js';
import { assertIsLead, requireTeamMember } from './team-lookup.js';

/**
 * The lead sets a worker's mode remotely: checks that the sender is the lead and the worker a
 * member, records the mode on the member in the team config (through `@muster/teams`, under
 * the config's lock) and sends a `mode_set_request` to the worker.
 */
export async function setWorkerModeInTeam(options: {
  messenger: AgentMessenger;
  teamName: string;
  workerName: string;
  mode: PermissionMode;
  root?: string;
}): Promise<ModeSetRequest> {
  if (!PermissionModeSchema.safeParse(options.mode).success) {
    throw new PermissionsError({
      code: 'INVALID_MODE',
      message: `Cannot set ${options.workerName} to ${JSON.stringify(options.mode)}: it is not a permission mode (${PermissionModeSchema.options.join(', ')}).`,
    });
  }
  const config = await assertIsLead({
    root: options.root,
    teamName: options.teamName,
    agentName: options.messenger.agentName,
    action: `set the mode of ${options.workerName}`,
  });
  if (config !== undefined) {
    requireTeamMember(config, options.teamName, options.workerName);
    await setMemberMode(options.root!, options.teamName, options.workerName, options.mode);
  }
  const request: ModeSetRequest = {
    type: 'mode_set_request',
    mode: options.mode,
    from: options.messenger.agentName,
    timestamp: new Date().toISOString(),
  };
  await options.messenger.send(options.workerName, request);
  return request;
}
