// What `members()` and `status()` of the lead's runtime answer: each teammate's identity,
// state, usage, cost, current task and view, and the session's line for a status bar, from the
// ledger (events), the task watch (the task list) and the member handles. No I/O.
import type { PermissionMode } from '@muster/protocol';
import type { TokenUsage } from '@muster/query';
import type { TeamLedger } from './team-runtime-ledger.js';
import type { TeamMemberStatus, TeamRuntimeStatus } from './team-runtime-options.js';
import type { TaskWatch } from './team-runtime-tasks.js';
import type { LeadMember } from './team-runtime-team.js';
import { memberView } from './team-runtime-view.js';

/** One teammate's status. */
export function memberStatus(
  member: LeadMember,
  ledger: TeamLedger,
  tasks: TaskWatch,
): TeamMemberStatus {
  const entry = ledger.entry(member.name);
  const model = member.model ?? ledger.modelOf(member.name);
  const state = entry.state ?? (member.idleAt === undefined ? undefined : 'idle');
  const currentTask = tasks.currentTaskOf([member.name, member.agentId]);
  return {
    name: member.name,
    agentId: member.agentId,
    backendType: member.backendType,
    color: member.color ?? 'blue',
    agentType: member.agentType ?? 'general-purpose',
    ...(model === undefined ? {} : { model }),
    alive: member.handle.isAlive(),
    ...(state === undefined ? {} : { state }),
    ...(entry.usage === undefined ? {} : { usage: entry.usage }),
    ...(entry.costUsd === undefined ? {} : { costUsd: entry.costUsd }),
    ...(currentTask === undefined ? {} : { currentTask }),
    view: memberView(member.handle),
  };
}

/** The session's status line. */
export function runtimeStatus(parts: {
  model: string;
  permissionMode: PermissionMode;
  teamName: string | undefined;
  leadName: string;
  leadUsage: TokenUsage;
  ledger: TeamLedger;
  members: readonly LeadMember[];
}): TeamRuntimeStatus {
  const lead = parts.ledger.entry(parts.leadName);
  const unpricedAgents: string[] = [];
  let total: number | undefined;
  const count = (name: string, usage: TokenUsage | undefined, cost: number | undefined) => {
    if (cost !== undefined) total = (total ?? 0) + cost;
    else if (usage !== undefined) unpricedAgents.push(name);
  };
  // The lead, its teammates, then any other agent whose requests reached the stream (subagents).
  const names = [
    parts.leadName,
    ...parts.members.map((member) => member.name),
    ...parts.ledger.agentNames(),
  ];
  for (const name of new Set(names)) {
    const entry = parts.ledger.entry(name);
    count(name, entry.usage, entry.costUsd);
  }
  return {
    model: parts.model,
    permissionMode: parts.permissionMode,
    ...(parts.teamName === undefined ? {} : { teamName: parts.teamName }),
    leadUsage: parts.leadUsage,
    ...(lead.costUsd === undefined ? {} : { leadCostUsd: lead.costUsd }),
    ...(total === undefined ? {} : { totalCostUsd: total }),
    unpricedAgents,
  };
}
