import type { DashboardModel, MemberState } from './dashboard-model.js';
import { buildDashboardModel } from './dashboard-model.js';
import { loadTeamSnapshot } from './load-team-snapshot.js';

/** Each member's state, by name, as `muster watch` shows it. */
export async function readMemberStates(
  root: string,
  team: string,
): Promise<Record<string, MemberState>> {
  const model: DashboardModel = buildDashboardModel(await loadTeamSnapshot(root, team));
  return Object.fromEntries(model.members.map((member) => [member.name, member.state]));
}

const STATE_ORDER: readonly MemberState[] = [
  'working',
  'awaiting plan approval',
  'idle',
  'stopping',
  'starting',
  'unknown',
  'gone',
];

/** How many members are in each state, in words: `1 working, 2 idle, 1 gone`. */
export function describeMemberStates(states: Readonly<Record<string, MemberState>>): string {
  const counts = new Map<MemberState, number>();
  for (const state of Object.values(states)) counts.set(state, (counts.get(state) ?? 0) + 1);
  return STATE_ORDER.filter((state) => counts.has(state))
    .map((state) => `${counts.get(state)} ${state}`)
    .join(', ');
}
