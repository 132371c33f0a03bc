// What the interactive app reads from the team's files: the members' colors and types from
// the team config, and the task list. Read only; a file caught mid-write is read next time.
import { createTaskStore } from '@muster/tasks';
import { readTeam } from '@muster/teams';
import type { DiskSnapshot, TaskView } from './session-model.js';

/** Reads the team's config and task list (the task list only when the config is unreadable). */
export async function loadDiskSnapshot(root: string, teamName: string): Promise<DiskSnapshot> {
  const [config, listing] = await Promise.all([
    readTeam(root, teamName).catch(() => undefined),
    createTaskStore({ root, team: teamName })
      .list()
      .catch(() => undefined),
  ]);
  const tasks: TaskView[] = (listing?.tasks ?? []).map(({ task }) => ({
    id: task.id,
    subject: task.subject,
    status: task.status,
    ...(typeof task.owner === 'string' && task.owner !== '' ? { owner: task.owner } : {}),
    ...(typeof task.activeForm === 'string' && task.activeForm !== ''
      ? { activeForm: task.activeForm }
      : {}),
  }));
  return {
    teamName,
    members: (config?.members ?? []).map((member) => ({
      name: member.name,
      ...(typeof member.color === 'string' ? { color: member.color } : {}),
      ...(typeof member.agentType === 'string' ? { agentType: member.agentType } : {}),
      ...(typeof member.backendType === 'string' ? { backendType: member.backendType } : {}),
      ...(typeof member.model === 'string' ? { model: member.model } : {}),
    })),
    tasks,
  };
}
