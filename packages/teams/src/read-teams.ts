import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { readFileSnapshot, type FileSnapshot } from '@muster/file-lock';
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

/** What {@link listTeams} found under `{root}/teams`. */
export interface TeamListing {
  /** Readable teams, sorted by name. */
  teams: TeamListEntry[];
  /** Folders that are not readable teams, with the reason. */
  problems: TeamListProblem[];
  /**
   * Folders named `<team>.deleted-<uuid>`: Claude Code 2.1.330 renames a session team's
   * folder to such a name at `/exit` and removes it right after. Neither a team nor a problem.
   */
  beingRemoved: string[];
}

/** `<team>.deleted-<uuid>`: a team folder Claude Code is removing. */
const BEING_REMOVED = /\.deleted-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** How long a config that does not parse is read again while it is locked or changing. */
const SETTLE_BUDGET_MS = 2_000;
/** Pause between those reads (Claude Code rewrites `config.json` in place). */
const REREAD_DELAY_MS = 25;

/**
 * Every team under `{root}/teams`, sorted by name. Folders without a valid `config.json` are
 * skipped and reported in `problems` (nothing is moved or changed: a listing never writes).
 * A config that does not parse is read again while its `config.json.lock` is held or its text
 * keeps changing (Claude Code 2.1.330 rewrites it in place under that lock, so a reader can
 * catch it half-written), and is a problem only once the same text fails twice unlocked. Folders whose names start with `.` are muster's own and are
 * not teams; `<team>.deleted-<uuid>` folders are listed in `beingRemoved`.
 */
export async function listTeams(root: string): Promise<TeamListing> {
  const layout = layoutFor(root);
  let entries;
  try {
    entries = await readdir(layout.teamsDirectory(), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { teams: [], problems: [], beingRemoved: [] };
    }
    throw teamsIoError('list the teams in', layout.teamsDirectory(), error);
  }
  const teams: TeamListEntry[] = [];
  const problems: TeamListProblem[] = [];
  const directories = entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  const beingRemoved = directories.filter((name) => BEING_REMOVED.test(name));
  const folders = directories.filter((name) => !BEING_REMOVED.test(name));
  for (const folder of folders) {
    let configPath: string;
    try {
      configPath = layout.teamConfigPath(folder);
    } catch (error) {
      problems.push({ folder, configPath: '', reason: (error as Error).message });
      continue;
    }
    const read = await readSettledConfig(layout.root, configPath);
    if ('config' in read) teams.push({ name: folder, config: read.config, configPath });
    else problems.push({ folder, configPath, reason: read.reason });
  }
  return { teams, problems, beingRemoved };
}

/**
 * Reads a config without its lock. Claude Code 2.1.330 rewrites it in place under
 * `config.json.lock`, so a text that does not parse is read again while that lock is held
 * or the file keeps changing (up to {@link SETTLE_BUDGET_MS}); it is broken only when the same
 * version (same text, inode, size and modification time) fails twice with nobody holding the
 * lock.
 */
async function readSettledConfig(
  root: string,
  configPath: string,
): Promise<{ config: TeamConfig } | { reason: string }> {
  const startedAt = Date.now();
  let previous: FileSnapshot | undefined;
  for (;;) {
    let snapshot;
    try {
      snapshot = await readFileSnapshot(configPath, { root });
    } catch (error) {
      // A link below the root (never followed) or an unreadable file: report, never guess.
      return { reason: (error as Error).message };
    }
    if (snapshot === undefined) return { reason: 'the folder has no config.json' };
    const parsed = safeParseJsonFile(snapshot.text, TeamConfigSchema, configPath);
    if (parsed.success) return { config: parsed.value };
    const locked = existsSync(`${configPath}.lock`);
    const unchanged =
      previous !== undefined &&
      snapshot.text === previous.text &&
      JSON.stringify(snapshot.identity) === JSON.stringify(previous.identity);
    if (!locked && unchanged) return { reason: parsed.error.message };
    if (Date.now() - startedAt > SETTLE_BUDGET_MS) {
      return {
        reason: `${parsed.error.message} (still ${locked ? 'locked' : 'changing'} after ${SETTLE_BUDGET_MS} ms)`,
      };
    }
    previous = snapshot;
    await new Promise((resolve) => setTimeout(resolve, REREAD_DELAY_MS));
  }
}
