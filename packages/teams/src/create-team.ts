import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, constants, fsyncSync, writeSync } from 'node:fs';
import { link, mkdir, readdir, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import {
  makeDirectoryInsideRoot,
  openInsideRoot,
  resolveInsideRoot,
  syncDirectory,
} from '@muster/file-lock';
import {
  formatAgentId,
  formatJsonFile,
  sanitizeTeamName,
  TEAM_LEAD_NAME,
  type ProtocolDialect,
  type RootLayout,
  type TeamConfig,
  type TeamMember,
} from '@muster/protocol';
import { assertTeamName, layoutFor } from './team-config-file.js';
import { TeamsError, teamsIoError, translateFileError } from './teams-error.js';

/** What {@link createTeam} needs. */
export interface CreateTeamOptions {
  /** The muster root (`~/.muster`, or `~/.claude` to share Claude Code's teams). */
  root: string;
  /** Requested name; sanitized as Claude Code does (`"My Team"` → `"my-team"`). */
  name: string;
  /** What the team is for. */
  description?: string;
  /** The lead's `agentType`; default `team-lead`. */
  leadAgentType?: string;
  /** The lead's model, e.g. `claude-opus-4-6`; omitted from the file when not given. */
  leadModel?: string;
  /** The lead's session id; a fresh UUID when not given. */
  leadSessionId?: string;
  /** The lead's working directory. */
  cwd: string;
  /** Creation time (epoch ms) used for `createdAt` and the lead's `joinedAt`; default now. */
  now?: number;
  /**
   * Which team files to write. `v2` (default): muster's own teams speak Claude Code 2.1.330's
   * dialect, marked by `"protocolVersion": 2` after `leadSessionId`, the lead written as
   * 2.1.330 writes it (`tmuxPaneId "leader"`, `backendType "in-process"`). `v1`: exactly
   * what Claude Code 2.1.45 wrote (lead with `tmuxPaneId ""`, no `protocolVersion`).
   */
  dialect?: TeamDialect;
  /**
   * What to do when the sanitized name is taken: `suffix` (default, as Claude Code does)
   * tries `name-2`, `name-3`…; `fail` throws `TEAM_EXISTS`.
   */
  ifTaken?: 'suffix' | 'fail';
}

/**
 * The team files a team speaks: `v1` (Claude Code 2.1.45) or `v2` (Claude Code 2.1.330);
 * the same as `ProtocolDialect` in `@muster/protocol`.
 */
export type TeamDialect = ProtocolDialect;

/** What {@link createTeam} made. */
export interface CreateTeamResult {
  /** The config as written. */
  config: TeamConfig;
  /** The final team name: sanitized, with `-2`, `-3`… when the name was taken. */
  teamName: string;
  /** `{root}/teams/{team}/config.json` */
  configPath: string;
  /** `team-lead@{team}` */
  leadAgentId: string;
}

/**
 * Creates a team: sanitizes the name, picks the first free name (`name`, `name-2`, …), writes
 * `config.json` with the lead as its only member (Claude Code's fields and order, in the
 * chosen `dialect`: `v2` with `"protocolVersion": 2` unless `v1` is asked for), and creates
 * `tasks/{team}/` with its empty `.lock` file. Creation is race-free: the config is claimed
 * with a hard link, which fails if another process got there first, so an existing team is
 * never overwritten. Throws `INVALID_NAME` (nothing written) for a name without letters or
 * digits, and `TEAM_EXISTS` for a taken name when `ifTaken` is `fail`.
 */
export async function createTeam(options: CreateTeamOptions): Promise<CreateTeamResult> {
  const layout = layoutFor(options.root);
  const baseName = sanitizeRequestedName(options.name);
  if (typeof options.cwd !== 'string' || options.cwd === '') {
    throw new TeamsError({
      code: 'INVALID_INPUT',
      message: `Cannot create team "${baseName}": cwd (the lead's working directory) is empty. Pass the lead's directory.`,
      details: { team: baseName },
    });
  }
  const dialect = options.dialect ?? 'v2';
  if (dialect !== 'v1' && dialect !== 'v2') {
    throw new TeamsError({
      code: 'INVALID_INPUT',
      message: `Cannot create team "${baseName}": dialect ${JSON.stringify(dialect)} is unknown. Use "v2" (Claude Code 2.1.330, the default) or "v1" (Claude Code 2.1.45).`,
      details: { team: baseName, dialect },
    });
  }
  const now = options.now ?? Date.now();
  const leadSessionId = options.leadSessionId ?? randomUUID();
  try {
    makeDirectoryInsideRoot(layout.root, layout.teamsDirectory());
  } catch (error) {
    const translated = translateFileError(error, baseName, layout.teamsDirectory());
    if (translated !== error) throw translated;
    throw teamsIoError('create the teams folder', layout.teamsDirectory(), error);
  }
  for (let counter = 1; ; counter += 1) {
    const teamName = assertTeamName(counter === 1 ? baseName : `${baseName}-${counter}`);
    const config =
      dialect === 'v1'
        ? buildConfigV1(teamName, options, now, leadSessionId)
        : buildConfigV2(teamName, options, now, leadSessionId);
    const free =
      !(await hasLeftoverTasks(layout, teamName)) &&
      (await claimTeam(layout, teamName, formatJsonFile(config)));
    if (!free && options.ifTaken === 'fail') throw teamExists(layout, teamName);
    if (!free) continue;
    await createTasksFolder(layout, teamName);
    return {
      config,
      teamName,
      configPath: layout.teamConfigPath(teamName),
      leadAgentId: config.leadAgentId,
    };
  }
}

function teamExists(layout: RootLayout, teamName: string): TeamsError {
  return new TeamsError({
    code: 'TEAM_EXISTS',
    message:
      `Team "${teamName}" already exists (${layout.teamConfigPath(teamName)}, or tasks left in ` +
      `${layout.tasksDirectory(teamName)}). Choose another name, or delete the old team first.`,
    details: { team: teamName, root: layout.root },
  });
}

function sanitizeRequestedName(requested: string): string {
  try {
    return sanitizeTeamName(requested);
  } catch (error) {
    throw new TeamsError({
      code: 'INVALID_NAME',
      message: (error as Error).message,
      cause: error,
      details: { requested },
    });
  }
}

/** The config in Claude Code 2.1.45's key order; the lead member exactly as 2.1.45 writes it. */
function buildConfigV1(
  teamName: string,
  options: CreateTeamOptions,
  now: number,
  leadSessionId: string,
): TeamConfig {
  const leadAgentId = formatAgentId(TEAM_LEAD_NAME, teamName);
  const lead: TeamMember = {
    agentId: leadAgentId,
    name: TEAM_LEAD_NAME,
    agentType: options.leadAgentType ?? 'team-lead',
    ...(options.leadModel === undefined ? {} : { model: options.leadModel }),
    joinedAt: now,
    tmuxPaneId: '',
    cwd: options.cwd,
    subscriptions: [],
  };
  return {
    name: teamName,
    ...(options.description === undefined ? {} : { description: options.description }),
    createdAt: now,
    leadAgentId,
    leadSessionId,
    members: [lead],
  };
}

/**
 * A v2 config: Claude Code 2.1.330's key order with muster's `protocolVersion: 2` where
 * 2.1.330 puts `leadProcess` (muster's lead is no single process a later reader could check),
 * `description` kept when given, and the lead as 2.1.330 writes it (its `model` when given).
 */
function buildConfigV2(
  teamName: string,
  options: CreateTeamOptions,
  now: number,
  leadSessionId: string,
): TeamConfig {
  const leadAgentId = formatAgentId(TEAM_LEAD_NAME, teamName);
  const lead: TeamMember = {
    agentId: leadAgentId,
    name: TEAM_LEAD_NAME,
    agentType: options.leadAgentType ?? 'team-lead',
    ...(options.leadModel === undefined ? {} : { model: options.leadModel }),
    joinedAt: now,
    tmuxPaneId: 'leader',
    cwd: options.cwd,
    subscriptions: [],
    backendType: 'in-process',
  };
  return {
    name: teamName,
    ...(options.description === undefined ? {} : { description: options.description }),
    createdAt: now,
    leadAgentId,
    leadSessionId,
    protocolVersion: 2,
    members: [lead],
  };
}

/**
 * A task folder that still holds task files from an earlier team of this name: creating the
 * team there would hand it a dead team's tasks, so the name counts as taken.
 */
async function hasLeftoverTasks(layout: RootLayout, teamName: string): Promise<boolean> {
  try {
    // Never list a folder through a link (UNSAFE_PATH instead).
    const folder = resolveInsideRoot(layout.root, layout.tasksDirectory(teamName));
    const entries = await readdir(folder);
    return entries.some((entry) => /^[0-9]+\.json$/.test(entry));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code === 'ENOTDIR') return true;
    const translated = translateFileError(error, teamName, layout.tasksDirectory(teamName));
    if (translated !== error) throw translated;
    throw teamsIoError('read the tasks folder', layout.tasksDirectory(teamName), error);
  }
}

/**
 * Claims `teams/{team}/config.json`: writes the content to a temporary file and hard-links it
 * into place. `link` fails with `EEXIST` when the config exists, so of several processes
 * claiming one name exactly one wins, and the file appears complete or not at all.
 */
async function claimTeam(layout: RootLayout, teamName: string, text: string): Promise<boolean> {
  let folder: string;
  let configPath: string;
  try {
    folder = resolveInsideRoot(layout.root, layout.teamDirectory(teamName));
    configPath = resolveInsideRoot(layout.root, layout.teamConfigPath(teamName));
  } catch (error) {
    throw translateFileError(error, teamName, layout.teamDirectory(teamName));
  }
  let createdFolder = false;
  try {
    await mkdir(folder);
    createdFolder = true;
    syncDirectory(path.dirname(folder));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw teamsIoError('create the team folder', folder, error);
    }
  }
  const temporary = path.join(
    folder,
    `.config.json.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    // O_EXCL + O_NOFOLLOW: a link put in the folder's place (checked above) is refused.
    const descriptor = openInsideRoot(
      layout.root,
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
      0o644,
    );
    try {
      const bytes = Buffer.from(text, 'utf8');
      for (let written = 0; written < bytes.length;) {
        written += writeSync(descriptor, bytes, written, bytes.length - written);
      }
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
  } catch (error) {
    // A file (not a folder) with the team's name: the name is taken by something else.
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
    const translated = translateFileError(error, teamName, temporary);
    if (translated !== error) throw translated;
    throw teamsIoError('write the new team config', temporary, error);
  }
  let linkError: unknown;
  try {
    await link(temporary, configPath);
  } catch (error) {
    linkError = error;
  }
  await unlink(temporary).catch(() => undefined);
  if (linkError === undefined) {
    // The new config's name must survive a power cut once createTeam returns.
    syncDirectory(folder);
    return true;
  }
  if ((linkError as NodeJS.ErrnoException).code === 'EEXIST') return false;
  if (createdFolder) await rmdir(folder).catch(() => undefined);
  throw teamsIoError('claim the team config', configPath, linkError);
}

/**
 * `tasks/{team}/` and its empty `.lock` file (an existing one is left as it is), never
 * through a link, flushed to the disk.
 */
async function createTasksFolder(layout: RootLayout, teamName: string): Promise<void> {
  const lockFile = layout.tasksLockPath(teamName);
  try {
    const folder = makeDirectoryInsideRoot(layout.root, layout.tasksDirectory(teamName));
    closeSync(
      openInsideRoot(
        layout.root,
        lockFile,
        constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND,
        0o644,
      ),
    );
    syncDirectory(folder);
  } catch (error) {
    const translated = translateFileError(error, teamName, lockFile);
    if (translated !== error) throw translated;
    throw teamsIoError('create the tasks folder and its .lock file', lockFile, error);
  }
}
