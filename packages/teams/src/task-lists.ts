import { readdir } from 'node:fs/promises';
import { resolveInsideRoot } from '@muster/file-lock';
import { existingTeamNames, layoutFor } from './team-config-file.js';
import { isSessionTeamName } from './session-state.js';
import { teamsIoError, translateFileError } from './teams-error.js';

/**
 * Whose a task list under `{root}/tasks/` is:
 * - `team`: `teams/<name>/config.json` exists; the list belongs to that team.
 * - `kept-from-ended-session`: no team folder, and the name is a Claude Code session's
 *   (`session-<8 hex>`, or an earlier version's session UUID). Claude Code 2.1.330 keeps
 *   these on purpose at `/exit` and picks them up again on `--resume`: normal, never debris.
 * - `leftover`: no team folder and not a session's name: a team deleted without its tasks
 *   (muster and Claude Code 2.1.45 remove both together) or whose config was lost.
 */
export type TaskListStatus = 'team' | 'kept-from-ended-session' | 'leftover';

/** One folder under `{root}/tasks/`, as {@link listTaskLists} found it. */
export interface TaskListFolder {
  /** The folder name, which is the team's name. */
  team: string;
  /** `{root}/tasks/<team>` */
  tasksDirectory: string;
  /** See {@link TaskListStatus}. */
  status: TaskListStatus;
  /** How many `<id>.json` task files it holds. */
  taskCount: number;
  /** The status in a sentence, for a listing or a doctor report. */
  reason: string;
}

/** `{id}.json` with a canonical id. */
const TASK_FILE_NAME = /^[1-9][0-9]*\.json$/;
/** A session id, as the task lists of sessions before session teams were named. */
const SESSION_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Every task list under `{root}/tasks/`, sorted by name, with whose it is (see
 * {@link TaskListStatus}): in particular the lists Claude Code 2.1.330 keeps after a session
 * ends (`tasks/session-<8 hex>/` without `teams/session-<8 hex>/`). Reads only; never follows
 * a link below the root (`UNSAFE_PATH`). Folders whose names start with `.` are skipped.
 */
export async function listTaskLists(root: string): Promise<TaskListFolder[]> {
  const layout = layoutFor(root);
  const tasksRoot = layout.tasksRootDirectory();
  let entries;
  try {
    entries = await readdir(resolveInsideRoot(layout.root, tasksRoot), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    const translated = translateFileError(error, '', tasksRoot);
    if (translated !== error) throw translated;
    throw teamsIoError('list the task lists in', tasksRoot, error);
  }
  const teams = new Set(await existingTeamNames(layout));
  const folders = entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  const result: TaskListFolder[] = [];
  for (const team of folders) {
    let tasksDirectory: string;
    try {
      tasksDirectory = layout.tasksDirectory(team);
    } catch {
      continue; // A name the layout refuses is no team's task list.
    }
    let names: string[];
    try {
      names = await readdir(tasksDirectory);
    } catch (error) {
      throw teamsIoError('list the task list', tasksDirectory, error);
    }
    const taskCount = names.filter((name) => TASK_FILE_NAME.test(name)).length;
    result.push({ team, tasksDirectory, taskCount, ...classify(team, teams.has(team)) });
  }
  return result;
}

function classify(team: string, hasTeam: boolean): Pick<TaskListFolder, 'status' | 'reason'> {
  if (hasTeam) return { status: 'team', reason: `The task list of team ${team}.` };
  if (isSessionTeamName(team) || SESSION_UUID.test(team)) {
    return {
      status: 'kept-from-ended-session',
      reason:
        `Kept from an ended Claude Code session: there is no teams/${team}/ any more, and Claude ` +
        'Code keeps a session’s tasks on purpose (it reuses them on --resume). Nothing to repair.',
    };
  }
  return {
    status: 'leftover',
    reason:
      `There is no teams/${team}/config.json: the team was deleted without its tasks, or its ` +
      'config was lost. Look at the tasks before removing the folder.',
  };
}
