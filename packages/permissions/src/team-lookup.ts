import { findMemberIndex, readTeam } from '@muster/teams';
import { parseAgentId, TEAM_LEAD_NAME, type TeamConfig, type TeamMember } from '@muster/protocol';
import { PermissionsError } from './permissions-error.js';

/** The lead's name in a config: the name part of `leadAgentId` (normally `team-lead`). */
export function leadNameOf(config: TeamConfig): string {
  return parseAgentId(config.leadAgentId)?.agentName ?? TEAM_LEAD_NAME;
}

/**
 * Refuses to answer for a team unless `agentName` is its lead: from the team config when a
 * root is given, else the default lead name. Throws `NOT_LEAD`; returns the config if read.
 */
export async function assertIsLead(options: {
  root: string | undefined;
  teamName: string;
  agentName: string;
  action: string;
}): Promise<TeamConfig | undefined> {
  const config =
    options.root === undefined ? undefined : await readTeam(options.root, options.teamName);
  const leadName = config === undefined ? TEAM_LEAD_NAME : leadNameOf(config);
  if (options.agentName !== leadName) {
    throw new PermissionsError({
      code: 'NOT_LEAD',
      message: `${options.agentName} may not ${options.action} in team ${options.teamName}: only the lead (${leadName}) may. Answer from the lead's session.`,
      details: { agentName: options.agentName, leadName, teamName: options.teamName },
    });
  }
  return config;
}

/** The member named `name`, or `UNKNOWN_MEMBER` listing who is there. */
export function requireTeamMember(config: TeamConfig, teamName: string, name: string): TeamMember {
  const index = findMemberIndex(config, name);
  if (index === -1) {
    throw new PermissionsError({
      code: 'UNKNOWN_MEMBER',
      message: `${name} is not a member of team ${teamName}. Members: ${config.members.map((member) => member.name).join(', ')}.`,
      details: { name, teamName },
    });
  }
  return config.members[index]!;
}
