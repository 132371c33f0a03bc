import { readdir } from 'node:fs/promises';
import { readFileSnapshot } from '@muster/file-lock';
import { safeParseJsonFile, TeamConfigSchema, type TeamConfig } from '@muster/protocol';
import { layoutFor, readTeamConfigFile, type TeamLockOptions } from './team-config-file.js';
import { teamsIoError } from './teams-error.js';

/**
 * Reads `teams/{team}/config.json`. Throws `INVALID_NAME` for a name such as `../x`,
 * `TEAM_NOT_FOUND` (listing the teams that exist) when there is no config, and `CORRUPT_FILE`
 * when it does not parse even when re-read under its lock (it is then moved aside to
 * `config.json.corrupt-<timestamp>`). The returned object is the file's own JSON, unknown
 * fields included.
 */
export async function readTeam(
  root: string,
  team: string,
  options: TeamLockOptions = {},
): Promise<TeamConfig> {
  return readTeamConfigFile(layoutFor(root), team, options);
}

/** One team found by {@link listTeams}. */
export interface TeamListEntry {
  /** The team's folder name. */
  name: string;
  config: TeamConfig;
  configPath: string;
}

/** A folder under `{root}/teams` that is not a readable team. */
export interface TeamListProblem {
  /** The folder name. */
  folder: string;
  /** The config path that was looked at. */
  configPath: string;
  /** Why it was skipped: no config, or the config does not parse (with the details). */
  reason: string;
}

/**
 * Every team under `{root}/teams`, sorted by name. Folders without a valid `config.json` are
 * skipped and reported in `problems` (nothing is moved or changed: a listing never writes).
 * Folders whose names start with `.` are muster's own and are not teams.
 */
export async function listTeams(
  root: string,
): Promise<{ teams: TeamListEntry[]; problems: TeamListProblem[] }> {
  const layout = layoutFor(root);
  let entries;
  try {
    entries = await readdir(layout.teamsDirectory(), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { teams: [], problems: [] };
    throw teamsIoError('list the teams in', layout.teamsDirectory(), error);
  }
  const teams: TeamListEntry[] = [];
  const problems: TeamListProblem[] = [];
  const folders = entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  for (const folder of folders) {
    let configPath: string;
    try {
      configPath = layout.teamConfigPath(folder);
    } catch (error) {
      problems.push({ folder, configPath: '', reason: (error as Error).message });
      continue;
    }
    let snapshot;
    try {
      snapshot = await readFileSnapshot(configPath, { root: layout.root });
    } catch (error) {
      // A link below the root (never followed) or an unreadable file: report, never guess.
      problems.push({ folder, configPath, reason: (error as Error).message });
      continue;
    }
    if (snapshot === undefined) {
      problems.push({ folder, configPath, reason: 'the folder has no config.json' });
      continue;
    }
    const parsed = safeParseJsonFile(snapshot.text, TeamConfigSchema, configPath);
    if (!parsed.success) {
      problems.push({ folder, configPath, reason: parsed.error.message });
      continue;
    }
    teams.push({ name: folder, config: parsed.value, configPath });
  }
  return { teams, problems };
}
