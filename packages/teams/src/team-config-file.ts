import { readdir, stat } from 'node:fs/promises';
import { readFileSnapshot, skipWrite, updateFile } from '@muster/file-lock';
import {
  assertSafePathSegment,
  createRootLayout,
  formatJsonFile,
  safeParseJsonFile,
  safeValidate,
  TeamConfigSchema,
  type RootLayout,
  type TeamConfig,
} from '@muster/protocol';
import { closestName } from './closest-name.js';
import { TeamsError, translateFileError } from './teams-error.js';

/** Lock settings accepted by every function that changes a team's files. */
export interface TeamLockOptions {
  /** Total wait for a lock before failing with `LOCK_TIMEOUT`. Default 20 000 ms. */
  deadlineMs?: number;
}

/** Return this from an {@link updateTeamConfig} updater to leave the file untouched. */
export const leaveUnchanged: unique symbol = Symbol.for('muster.teams.leaveUnchanged');

/** Changes a copy of the config: mutate it and return it, or return {@link leaveUnchanged}. */
export type TeamConfigUpdater = (config: TeamConfig) => TeamConfig | typeof leaveUnchanged;

/** The layout for a root, with `INVALID_INPUT` for an empty root. */
export function layoutFor(root: string): RootLayout {
  try {
    return createRootLayout(root);
  } catch (error) {
    throw new TeamsError({
      code: 'INVALID_INPUT',
      message: `The muster root ${JSON.stringify(root)} cannot be used: ${(error as Error).message}`,
      cause: error,
      details: { root },
    });
  }
}

/**
 * Checks a team's folder name (as stored on disk, already sanitized): one safe path segment
 * that does not start with `.`. Throws `INVALID_NAME`; touches nothing on disk.
 */
export function assertTeamName(team: string): string {
  try {
    assertSafePathSegment(team, 'team name');
  } catch (error) {
    throw new TeamsError({
      code: 'INVALID_NAME',
      message: (error as Error).message,
      cause: error,
      details: { team },
    });
  }
  if (team.startsWith('.')) {
    throw new TeamsError({
      code: 'INVALID_NAME',
      message: `The team name ${JSON.stringify(team)} starts with ".": team folders never do. Use the name listTeams shows.`,
      details: { team },
    });
  }
  return team;
}

/** Parses `config.json` text; throws a `ProtocolError` when it is not a valid team config. */
export function parseTeamConfigText(text: string, file: string): TeamConfig {
  const result = safeParseJsonFile(text, TeamConfigSchema, file);
  if (!result.success) throw result.error;
  return result.value;
}

/** Folder names under `{root}/teams` that hold a `config.json`, sorted. */
export async function existingTeamNames(layout: RootLayout): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(layout.teamsDirectory());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const names: string[] = [];
  for (const entry of entries.sort()) {
    if (entry.startsWith('.')) continue;
    try {
      if ((await stat(layout.teamConfigPath(entry))).isFile()) names.push(entry);
    } catch {
      // No config (or a name the layout refuses): not a team.
    }
  }
  return names;
}

/** The `TEAM_NOT_FOUND` error for `team`, listing the teams that do exist. */
export async function teamNotFound(layout: RootLayout, team: string): Promise<TeamsError> {
  const existingTeams = await existingTeamNames(layout);
  const suggestion = closestName(team, existingTeams);
  const known =
    existingTeams.length === 0
      ? `There are no teams under ${layout.teamsDirectory()}.`
      : `Teams under ${layout.teamsDirectory()}: ${existingTeams.join(', ')}.`;
  return new TeamsError({
    code: 'TEAM_NOT_FOUND',
    message:
      `Team "${team}" does not exist (no ${layout.teamConfigPath(team)}). ${known}` +
      (suggestion === undefined
        ? ' Create it first, or check --root.'
        : ` Did you mean "${suggestion}"?`),
    details: { team, root: layout.root, existingTeams, suggestion },
  });
}

const teamMissing = Symbol('team missing');

/** How often a config that is not JSON is read again before it is judged corrupt. */
const TORN_READ_RETRIES = 10;
/** The pause between those reads (a rewrite in place takes well under this). */
const TORN_READ_DELAY_MS = 25;

/**
 * Reads a team's config. A first read that does not parse is retried under the lock (Claude
 * Code rewrites the file in place, so an unlocked read can be torn); a file that still does
 * not parse is quarantined and reported as `CORRUPT_FILE`.
 */
export async function readTeamConfigFile(
  layout: RootLayout,
  team: string,
  options: TeamLockOptions = {},
): Promise<TeamConfig> {
  const file = layout.teamConfigPath(assertTeamName(team));
  let snapshot;
  try {
    snapshot = await readFileSnapshot(file, { root: layout.root });
  } catch (error) {
    throw translateFileError(error, team, file);
  }
  if (snapshot === undefined) throw await teamNotFound(layout, team);
  let quick = safeParseJsonFile(snapshot.text, TeamConfigSchema, file);
  // Text that is not JSON may be a write in progress by a writer that takes no lock and does
  // not replace the file atomically (Claude Code rewrites config.json in place): read again a
  // few times before the locked read below, which quarantines a file that really is corrupt.
  for (
    let attempt = 0;
    !quick.success && quick.error.code === 'INVALID_JSON' && attempt < TORN_READ_RETRIES;
    attempt += 1
  ) {
    await new Promise((resolve) => setTimeout(resolve, TORN_READ_DELAY_MS));
    let again;
    try {
      again = await readFileSnapshot(file, { root: layout.root });
    } catch (error) {
      throw translateFileError(error, team, file);
    }
    if (again === undefined) throw await teamNotFound(layout, team);
    quick = safeParseJsonFile(again.text, TeamConfigSchema, file);
  }
  if (quick.success) return quick.value;
  let result;
  try {
    result = await updateFile(file, {
      ...options,
      root: layout.root,
      createIfMissing: false,
      parse: parseTeamConfigText,
      serialize: formatJsonFile,
      update: () => skipWrite,
    });
  } catch (error) {
    throw translateFileError(error, team, file);
  }
  if (result.value === undefined) throw await teamNotFound(layout, team);
  return result.value;
}

/**
 * Read-modify-write of `teams/{team}/config.json` under its lock: re-reads inside the lock,
 * hands the updater a deep copy of the raw parsed object (unknown fields stay in place and in
 * order), validates the result and replaces the file atomically in Claude Code's format. The
 * updater may run more than once, so it must only compute. Returns the config now on disk.
 */
export async function updateTeamConfig(
  root: string,
  team: string,
  updater: TeamConfigUpdater,
  options: TeamLockOptions = {},
): Promise<{ config: TeamConfig; written: boolean }> {
  const layout = layoutFor(root);
  const file = layout.teamConfigPath(assertTeamName(team));
  let result;
  try {
    result = await updateFile<TeamConfig>(file, {
      ...options,
      root: layout.root,
      createIfMissing: false,
      parse: parseTeamConfigText,
      serialize: formatJsonFile,
      update: (current) => {
        if (current === undefined) throw teamMissing;
        const next = updater(structuredClone(current));
        if (next === leaveUnchanged) return skipWrite;
        const checked = safeValidate(next, TeamConfigSchema, `the new ${file}`);
        if (!checked.success) {
          throw new TeamsError({
            code: 'INVALID_INPUT',
            message: `Refusing to write ${file}: ${checked.error.message}`,
            cause: checked.error,
            details: { team, file },
          });
        }
        return next;
      },
    });
  } catch (error) {
    if (error === teamMissing) throw await teamNotFound(layout, team);
    throw translateFileError(error, team, file);
  }
  if (result.value === undefined) throw await teamNotFound(layout, team);
  return { config: result.value, written: result.written };
}
