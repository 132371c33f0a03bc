// What the interactive app asks the runtime for on each tick: its teammates (`members()`) and
// its status line (`status()`), both answered at once without I/O, as the view-model's roster.
import type { TeamMemberStatus, TeamRuntime } from '@muster/agents';
import type { RosterMember, RosterStatus } from './session-model.js';

/** One teammate as the view-model takes it: an attach command or the reason there is no view. */
export function rosterMember(member: TeamMemberStatus): RosterMember {
  const look =
    member.view.kind === 'attach'
      ? `attach: ${member.view.command}`
      : member.view.kind === 'unavailable'
        ? member.view.reason
        : undefined;
  return {
    name: member.name,
    backendType: member.backendType,
    color: member.color,
    agentType: member.agentType,
    ...(member.model === undefined ? {} : { model: member.model }),
    ...(member.state === undefined ? {} : { state: member.state }),
    ...(member.usage === undefined ? {} : { usage: member.usage }),
    ...(member.costUsd === undefined ? {} : { costUsd: member.costUsd }),
    ...(look === undefined ? {} : { look }),
  };
}

/** The runtime's teammates and status line, now. */
export function readRoster(runtime: Pick<TeamRuntime, 'members' | 'status'>): {
  members: RosterMember[];
  status: RosterStatus;
} {
  const status = runtime.status();
  return {
    members: runtime.members().map(rosterMember),
    status: {
      model: status.model,
      permissionMode: status.permissionMode,
      ...(status.teamName === undefined ? {} : { teamName: status.teamName }),
      ...(status.leadCostUsd === undefined ? {} : { leadCostUsd: status.leadCostUsd }),
      unpricedAgents: status.unpricedAgents,
    },
  };
}

/** Reads the screen of `name` when it is a pty teammate; undefined otherwise. */
export async function readScreen(
  runtime: Pick<TeamRuntime, 'members'>,
  name: string,
): Promise<string | undefined> {
  const member = runtime.members().find((candidate) => candidate.name === name);
  if (member?.view.kind !== 'screen') return undefined;
  return member.view.read();
}
