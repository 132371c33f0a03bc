import {
  parseAgentId,
  TEAM_LEAD_NAME,
  TEAMMATE_COLORS,
  type TeamConfig,
  type TeamMember,
} from '@muster/protocol';
import { closestName } from './closest-name.js';
import { TeamsError } from './teams-error.js';

/**
 * The name a new member gets: `requested` if no member has it (compared case-insensitively),
 * else the first free `requested-2`, `requested-3`, … as Claude Code does.
 */
export function uniqueMemberName(requested: string, members: readonly TeamMember[]): string {
  const taken = new Set(members.map((member) => member.name.toLowerCase()));
  if (!taken.has(requested.toLowerCase())) return requested;
  let counter = 2;
  while (taken.has(`${requested}-${counter}`.toLowerCase())) counter += 1;
  return `${requested}-${counter}`;
}

/**
 * The color for the next teammate, in Claude Code's order (blue, green, yellow, …): the
 * first color no member uses; once all are in use, the least used one, earliest first, so
 * the palette cycles.
 */
export function nextTeammateColor(members: readonly TeamMember[]): string {
  const uses = new Map<string, number>(TEAMMATE_COLORS.map((color) => [color, 0]));
  for (const member of members) {
    if (member.color !== undefined && uses.has(member.color)) {
      uses.set(member.color, uses.get(member.color)! + 1);
    }
  }
  let chosen: string = TEAMMATE_COLORS[0];
  for (const color of TEAMMATE_COLORS) {
    if (uses.get(color)! < uses.get(chosen)!) chosen = color;
  }
  return chosen;
}

/** True for the team's lead (by name, or by the config's `leadAgentId`). */
export function isLead(config: TeamConfig, member: TeamMember): boolean {
  return member.name === TEAM_LEAD_NAME || member.agentId === config.leadAgentId;
}

/**
 * True for a pane teammate whose pane is still being set up: Claude Code 2.1.330 first writes
 * a pane teammate with `tmuxPaneId ""` and no `backendType`, then its `%<n>` and `tmux` a
 * moment later. Such a member is starting, not unknown. A muster `pty` member (which has no
 * pane id) and the lead never count as starting.
 */
export function isPaneStarting(config: TeamConfig, member: TeamMember): boolean {
  if (isLead(config, member) || member.tmuxPaneId !== '') return false;
  return (
    member.backendType === undefined ||
    member.backendType === 'tmux' ||
    member.backendType === 'iterm2'
  );
}

/**
 * Index of the member named by agent id (`alpha@team`) or by name (`alpha`); -1 when there
 * is none. Exact matches only: names are compared as stored.
 */
export function findMemberIndex(config: TeamConfig, agentIdOrName: string): number {
  const byId = config.members.findIndex((member) => member.agentId === agentIdOrName);
  if (byId !== -1) return byId;
  const byName = config.members.findIndex((member) => member.name === agentIdOrName);
  if (byName !== -1) return byName;
  const parsed = parseAgentId(agentIdOrName);
  if (parsed === undefined || parsed.teamName !== config.name) return -1;
  return config.members.findIndex((member) => member.name === parsed.agentName);
}

/** The `MEMBER_NOT_FOUND` error: lists the members and suggests the closest name. */
export function memberNotFound(team: string, config: TeamConfig, wanted: string): TeamsError {
  const members = config.members.map((member) => member.name);
  const suggestion = closestName(parseAgentId(wanted)?.agentName ?? wanted, members);
  return new TeamsError({
    code: 'MEMBER_NOT_FOUND',
    message:
      `Team "${team}" has no member ${JSON.stringify(wanted)}. Members: ${members.join(', ')}.` +
      (suggestion === undefined ? '' : ` Did you mean "${suggestion}"?`),
    details: { team, wanted, members, suggestion },
  });
}

/** The member named by agent id or name, or `MEMBER_NOT_FOUND`. */
export function requireMember(team: string, config: TeamConfig, agentIdOrName: string): TeamMember {
  const index = findMemberIndex(config, agentIdOrName);
  if (index === -1) throw memberNotFound(team, config, agentIdOrName);
  return config.members[index]!;
}
