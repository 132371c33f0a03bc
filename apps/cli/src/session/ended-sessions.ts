import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { inboxHistoryAgents, readInboxHistory } from '@muster/mailbox';
import { createRootLayout, type InboxMessage, type TeamConfig } from '@muster/protocol';
import { createTaskStore } from '@muster/tasks';
import type { TeamSnapshot } from '../watch/dashboard-model.js';
import { isSessionTaskFolder } from './session-state.js';

/** A session whose team folder is gone and whose task list Claude Code kept. */
export interface EndedSession {
  /** The session team's name (`session-<8 hex>`), also its task folder's name. */
  team: string;
  /** The latest change to its task list or to muster's recorded history (epoch ms). */
  lastChangedAt: number;
}

async function modifiedAt(folder: string): Promise<number> {
  try {
    return (await stat(folder)).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * The ended sessions under a root, newest first: task folders of sessions
 * (`tasks/session-<8 hex>`, `tasks/<session uuid>`) without a `teams/<same>` folder, the
 * normal state after Claude Code 2.1.330's `/exit`.
 */
export async function listEndedSessions(root: string): Promise<EndedSession[]> {
  const layout = createRootLayout(root);
  let names: string[];
  try {
    names = await readdir(path.join(root, 'tasks'));
  } catch {
    return [];
  }
  const sessions: EndedSession[] = [];
  for (const name of names) {
    if (!isSessionTaskFolder(name)) continue;
    if ((await modifiedAt(layout.teamDirectory(name))) !== 0) continue;
    const tasksFolder = await modifiedAt(layout.tasksDirectory(name));
    if (tasksFolder === 0) continue;
    const history = await modifiedAt(path.join(root, '.muster', 'history', name));
    sessions.push({ team: name, lastChangedAt: Math.max(tasksFolder, history) });
  }
  return sessions.sort((left, right) => right.lastChangedAt - left.lastChangedAt);
}

/** Every entry muster recorded for each inbox of a team (works after the folder is gone). */
export async function readTeamHistory(
  root: string,
  team: string,
  problems: string[],
): Promise<{ agent: string; messages: InboxMessage[] }[]> {
  const inboxes = [];
  for (const agent of await inboxHistoryAgents({ root, team })) {
    const entries = await readInboxHistory({
      root,
      team,
      agent,
      onProblem: (file, problem) => problems.push(`${path.basename(file)}: ${problem}`),
    });
    // The session is over: everything recorded was delivered (or went with the folder).
    inboxes.push({ agent, messages: entries.map((item) => ({ ...item.entry, read: true })) });
  }
  return inboxes;
}

/**
 * What the dashboard shows of an ended session: no members (the config went with the team
 * folder), the kept task list, and every message muster recorded while following it.
 */
export async function loadEndedSessionSnapshot(root: string, team: string): Promise<TeamSnapshot> {
  const problems: string[] = [];
  const listing = await createTaskStore({ root, team }).list({ includeInternal: true });
  for (const problem of listing.problems) problems.push(problem.message);
  const inboxes = await readTeamHistory(root, team, problems);
  if (inboxes.every((inbox) => inbox.messages.length === 0)) {
    problems.push(
      `muster recorded no messages of session ${team}: messages are recorded while muster watch (or another muster follower) runs on a team, since Claude Code removes each one within a second of delivering it.`,
    );
  }
  // Only for display: the real config was removed with the team folder.
  const config = {
    name: team,
    createdAt: 0,
    leadAgentId: `team-lead@${team}`,
    leadSessionId: '',
    members: [],
  } as unknown as TeamConfig;
  return {
    teamName: team,
    config,
    inboxes,
    tasks: listing.tasks,
    memberProcesses: new Map(),
    observedAt: Date.now(),
    problems,
    session: {
      state: 'ended',
      reason: `teams/${team} was removed when the session ended; tasks/${team} is kept`,
      teamFolderRemoved: true,
    },
  };
}
