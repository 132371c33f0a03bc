import { agentNameToFileName, type TeamMember } from '@muster/protocol';
import {
  isSessionTaskFolder,
  isSessionTeam,
  sentenceInside,
  sessionStateOf,
} from '../session/session-state.js';
import { checkEntryEnvelopes } from './check-entry-envelopes.js';
import type { Finding } from './doctor-types.js';
import type { FileValidator } from './file-validator.js';
import type { ScannedTeam } from './scan-root.js';

/** Whether a member's process is known to be gone (from muster's sidecar). */
export type MemberProcessLookup = (
  team: ScannedTeam,
  member: TeamMember,
) => 'alive' | 'gone' | 'unknown';

/** A sentence made to continue another: first letter lowered, final period dropped. */
function taskLabel(id: string): string {
  return `#${id}`;
}

/** Every dependency cycle among the tasks, each once, as id lists (`["2","3"]` for 2 → 3 → 2). */
export function findDependencyCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string) => {
    state.set(id, 'visiting');
    stack.push(id);
    for (const next of graph.get(id) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'visiting') {
        const cycle = stack.slice(stack.indexOf(next));
        const key = [...cycle].sort().join(',');
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(cycle);
        }
      } else if (state.get(next) === undefined) {
        visit(next);
      }
    }
    stack.pop();
    state.set(id, 'done');
  };
  for (const id of [...graph.keys()].sort((left, right) => Number(left) - Number(right))) {
    if (state.get(id) === undefined) visit(id);
  }
  return cycles;
}

/**
 * Checks one team's files against each other: inboxes of agents who are not members, tasks
 * owned by agents who are gone, dependencies on missing tasks and in cycles, members whose
 * process is gone. Files that did not validate are left out (already reported).
 */
export function checkTeam(
  team: ScannedTeam,
  processOf: MemberProcessLookup,
  validator: FileValidator,
): Finding[] {
  const findings: Finding[] = [];
  const config = team.config;
  if (!team.hasTeamDirectory && team.hasTasksDirectory && isSessionTaskFolder(team.name)) {
    // Claude Code 2.1.330 removes teams/<session> at /exit and keeps the task list on purpose.
    findings.push({
      severity: 'note',
      code: 'KEPT_TASK_LIST',
      file: team.tasksDirectory,
      message: `is the task list of session "${team.name}", which has ended (Claude Code removes the team folder at /exit and keeps the tasks, as here). Nothing to do: muster tasks list --team ${team.name} shows it.`,
    });
  } else if (!team.hasTeamDirectory && team.hasTasksDirectory) {
    findings.push({
      severity: 'warning',
      code: 'TASKS_WITHOUT_TEAM',
      file: team.tasksDirectory,
      message: `holds the tasks of a team "${team.name}" that does not exist (no teams/${team.name}). Delete the folder if the tasks are no longer needed.`,
    });
  }
  const memberNames = new Set(config?.members.map((member) => member.name) ?? []);
  const goneMembers = new Set<string>();
  if (config) {
    const inboxNames = new Set(config.members.map((member) => agentNameToFileName(member.name)));
    const sessionTeam = isSessionTeam(config);
    const session = sessionStateOf(config);
    if (session?.state === 'ended') {
      // Left behind by a crash or a kill; the next Claude Code session removes it itself, so
      // it is worth knowing but nothing is broken.
      findings.push({
        severity: 'warning',
        code: 'SESSION_ENDED',
        file: team.teamDirectory,
        message: `session ended; team folder left behind: ${sentenceInside(session.reason)}. Claude Code removes a session's team folder at /exit, so this session stopped without it (a crash or a kill). Delete ${team.teamDirectory} (the task list in ${team.tasksDirectory} is kept, as Claude Code keeps it); the next Claude Code session also removes it.`,
      });
    }
    findings.push(...checkEntryEnvelopes(config, team.inboxes, validator));
    for (const inbox of team.inboxes) {
      if (inboxNames.has(inbox.agentFileName)) continue;
      // 2.1.330 keeps a removed teammate's inbox, emptied, until the session ends: normal.
      if (sessionTeam && inbox.messages?.length === 0) continue;
      // Claude Code leaves the inbox of a member that shut down: a normal state, not a fault.
      findings.push({
        severity: 'warning',
        code: 'INBOX_OF_NON_MEMBER',
        file: inbox.file,
        message: `belongs to "${inbox.agentFileName}", who is not a member of team "${team.name}" (members: ${[...memberNames].join(', ')}); Claude Code leaves such inboxes behind when a member shuts down. Nothing reads it any more: delete it once nothing in it is needed.`,
      });
    }
    const seen = new Map<string, number>();
    for (const member of config.members) seen.set(member.name, (seen.get(member.name) ?? 0) + 1);
    for (const [name, count] of seen) {
      if (count < 2) continue;
      findings.push({
        severity: 'problem',
        code: 'DUPLICATE_MEMBER_NAME',
        file: team.configPath,
        message: `lists ${count} members named "${name}". Names address inboxes and tasks, so their messages and tasks mix; remove the extra entries from "members" (keep the one whose agentId the team uses).`,
      });
    }
    for (const member of config.members) {
      if (processOf(team, member) !== 'gone') continue;
      goneMembers.add(member.name);
      findings.push({
        severity: 'problem',
        code: 'MEMBER_PROCESS_GONE',
        file: team.configPath,
        message: `lists "${member.name}" as a member, but the process muster recorded for it is no longer running. Remove the member or start it again; its unfinished tasks are unassigned by muster doctor --fix.`,
      });
    }
  }

  const tasks = new Map(team.tasks.map((scanned) => [scanned.task.id, scanned]));
  for (const { task, file } of team.tasks) {
    if (config && task.owner !== undefined && task.status !== 'completed') {
      const notMember = !memberNames.has(task.owner);
      if (notMember || goneMembers.has(task.owner)) {
        findings.push({
          severity: 'problem',
          code: 'TASK_OWNER_GONE',
          file,
          message: `task ${taskLabel(task.id)} (${task.status.replace('_', ' ')}) is owned by "${task.owner}", who ${notMember ? 'is not a member of the team' : 'is gone'}; nobody will finish it. muster doctor --fix unassigns it so another member can claim it.`,
          repair: { kind: 'unassign-task', team: team.name, taskId: task.id, owner: task.owner },
        });
      }
    }
    for (const [field, ids] of [
      ['blockedBy', task.blockedBy],
      ['blocks', task.blocks],
    ] as const) {
      const missing = ids.filter((id) => !tasks.has(id) && !team.unusableTaskIds.has(id));
      if (missing.length === 0) continue;
      findings.push({
        severity: 'problem',
        code: 'MISSING_DEPENDENCY',
        file,
        message: `task ${taskLabel(task.id)} ${field === 'blockedBy' ? 'waits for' : 'blocks'} ${missing.map(taskLabel).join(', ')}, which ${missing.length === 1 ? 'does' : 'do'} not exist. Remove ${missing.length === 1 ? 'that id' : 'those ids'} from "${field}" in the file.`,
      });
    }
    for (const blocked of task.blocks) {
      const other = tasks.get(blocked);
      if (other && !other.task.blockedBy.includes(task.id)) {
        findings.push({
          severity: 'warning',
          code: 'ONE_SIDED_DEPENDENCY',
          file,
          message: `task ${taskLabel(task.id)} says it blocks ${taskLabel(blocked)}, but ${taskLabel(blocked)} does not list it in blockedBy. Run muster tasks block ${blocked} --by ${task.id} to record both sides.`,
        });
      }
    }
  }
  const graph = new Map(team.tasks.map(({ task }) => [task.id, task.blockedBy]));
  for (const cycle of findDependencyCycles(graph)) {
    const path = [...cycle, cycle[0]!].map(taskLabel).join(' waits for ');
    findings.push({
      severity: 'problem',
      code: 'CYCLIC_DEPENDENCY',
      file: tasks.get(cycle[0]!)!.file,
      message: `tasks wait for each other in a circle (${path}), so none of them can ever start. Remove one of those ids from "blockedBy" (and the matching "blocks").`,
    });
  }
  return findings;
}
