import { randomBytes } from 'node:crypto';
import { lstat, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  acquireFileLock,
  FileLockError,
  readFileSnapshot,
  resolveInsideRoot,
  syncDirectory,
  type HeldLock,
} from '@muster/file-lock';
import {
  safeParseJsonFile,
  TeamConfigSchema,
  type RootLayout,
  type TeamConfig,
  type TeamMember,
} from '@muster/protocol';
import { isLead } from './member-names.js';
import {
  findMemberRuntime,
  isMemberProcessAlive,
  readMemberRuntime,
  type MemberRuntime,
} from './member-runtime.js';
import {
  assertTeamName,
  layoutFor,
  teamNotFound,
  updateTeamConfig,
  leaveUnchanged,
  type TeamLockOptions,
} from './team-config-file.js';
import { teamSessionState } from './session-state.js';
import { TeamsError, teamsIoError, translateFileError } from './teams-error.js';

/** How {@link deleteTeam} treats remaining members and their worktrees. */
export interface DeleteTeamOptions extends TeamLockOptions {
  /**
   * Remove members whose processes are gone, then delete if no live member remains.
   * Without it, any member other than the lead refuses the deletion. With it, a team whose
   * config cannot be read (corrupt, or already moved aside) is deleted too: nobody can be
   * checked then, which is what forcing means.
   */
  force?: boolean;
  /**
   * Decides whether a member still runs (`true`/`false`); `undefined` defers to the
   * sidecar's recorded pid. A member neither can vouch for counts as alive.
   */
  isMemberAlive?: (
    member: TeamMember,
    runtime: MemberRuntime | undefined,
  ) => boolean | undefined | Promise<boolean | undefined>;
  /** Called once per member `worktreePath` (after the team's folders are gone) to clean it up. */
  onWorktree?: (worktreePath: string, member: TeamMember) => void | Promise<void>;
}

/** What {@link deleteTeam} did. */
export interface DeleteTeamResult {
  teamName: string;
  /** Members removed because their processes were gone (only with `force`). */
  removedMembers: TeamMember[];
  /** Every member `worktreePath` handed to `onWorktree`. */
  worktreePaths: string[];
  /** `onWorktree` calls that threw: the team is deleted, these worktrees may remain. */
  worktreeFailures: Array<{ worktreePath: string; member: string; error: unknown }>;
}

const memberKey = (member: TeamMember) => `${member.agentId}\u0000${member.joinedAt}`;

/**
 * Deletes a team: `teams/{team}/` and `tasks/{team}/` entirely. Refused with
 * `TEAM_HAS_MEMBERS` (names listed, nothing changed) while members other than the lead
 * remain. With `force`, members whose processes are gone are first removed from the config;
 * deletion proceeds only if none remain. The last check and the removal happen under the
 * config's lock (both folders are renamed aside, then removed), so a member joining at the
 * same moment either blocks the deletion or finds the team gone — it is never lost silently.
 * A Claude Code 2.1.330 session team is refused with `TEAM_IN_USE` while its session runs
 * (even with `force`), and without `force` while its session cannot be checked.
 */
export async function deleteTeam(
  root: string,
  team: string,
  options: DeleteTeamOptions = {},
): Promise<DeleteTeamResult> {
  const layout = layoutFor(root);
  assertTeamName(team);
  const { force = false, isMemberAlive, onWorktree, ...lockOptions } = options;
  const config = await readConfigForDeletion(layout, team, force);
  if (config === undefined) {
    // Unreadable config and force: remove both folders, checking nobody (nobody can be).
    await removeFoldersUnderLock(root, team, lockOptions, true);
    return { teamName: team, removedMembers: [], worktreePaths: [], worktreeFailures: [] };
  }
  assertSessionNotRunning(team, config, force);
  const teammates = config.members.filter((member) => !isLead(config, member));
  if (teammates.length > 0 && !force) throw hasMembers(team, teammates, false);

  const removedMembers: TeamMember[] = [];
  if (teammates.length > 0) {
    const runtimes = await readMemberRuntime(root, team, lockOptions);
    const dead = new Set<string>();
    for (const member of teammates) {
      const runtime = findMemberRuntime(runtimes, member);
      const decided = await isMemberAlive?.(member, runtime);
      // Nobody can vouch that the process is gone: it counts as alive.
      const alive = decided ?? (runtime === undefined || isMemberProcessAlive(runtime));
      if (!alive) dead.add(memberKey(member));
    }
    if (dead.size > 0) {
      await updateTeamConfig(
        root,
        team,
        (current) => {
          const kept = current.members.filter((member) => !dead.has(memberKey(member)));
          if (kept.length === current.members.length) return leaveUnchanged;
          removedMembers.length = 0;
          removedMembers.push(...current.members.filter((member) => dead.has(memberKey(member))));
          current.members = kept;
          return current;
        },
        lockOptions,
      );
    }
  }

  const finalConfig = await removeFoldersUnderLock(root, team, lockOptions, force);
  const worktreePaths: string[] = [];
  const worktreeFailures: DeleteTeamResult['worktreeFailures'] = [];
  for (const member of [...(finalConfig?.members ?? []), ...removedMembers]) {
    if (member.worktreePath === undefined || worktreePaths.includes(member.worktreePath)) continue;
    worktreePaths.push(member.worktreePath);
    if (onWorktree === undefined) continue;
    try {
      await onWorktree(member.worktreePath, member);
    } catch (error) {
      worktreeFailures.push({ worktreePath: member.worktreePath, member: member.name, error });
    }
  }
  return { teamName: team, removedMembers, worktreePaths, worktreeFailures };
}

/**
 * Refuses to delete a Claude Code session team (one with `leadProcess`) whose session still
 * runs: Claude Code removes it itself at `/exit`, and deleting it under a running session
 * breaks that session. One that cannot be checked (another pid namespace) needs `force`.
 */
function assertSessionNotRunning(team: string, config: TeamConfig, force: boolean): void {
  if ((config as { leadProcess?: unknown }).leadProcess === undefined) return;
  const session = teamSessionState(config);
  if (session.state === 'ended' || (session.state === 'unknown' && force)) return;
  throw new TeamsError({
    code: 'TEAM_IN_USE',
    message:
      session.state === 'running'
        ? `Cannot delete team "${team}": it belongs to a Claude Code session that is still running (${session.reason}) Leave that session with /exit; Claude Code then removes the team itself.`
        : `Cannot delete team "${team}": it belongs to a Claude Code session that cannot be checked from here (${session.reason}) Make sure that session has ended, then pass force.`,
    details: { team, sessionState: session },
  });
}

function hasMembers(team: string, members: TeamMember[], forced: boolean): TeamsError {
  const names = members.map((member) => member.name);
  return new TeamsError({
    code: 'TEAM_HAS_MEMBERS',
    message:
      `Cannot delete team "${team}": ${names.length} member(s) besides the lead remain: ${names.join(', ')}. ` +
      (forced
        ? 'Their processes are still running (or cannot be checked): shut them down first, or remove them with removeMember.'
        : 'Shut them down first (shutdown_request), or pass force to remove members whose processes are gone.'),
    details: { team, members: names },
  });
}

/**
 * The config a deletion starts from, read without moving anything aside: a deletion that
 * fails must leave the team exactly as it was, so that it can be retried (with `force`).
 * `undefined` when the config is missing or does not parse and `force` was given; without
 * `force` that is a `CORRUPT_FILE` error that says so. A missing team folder is
 * `TEAM_NOT_FOUND`.
 */
async function readConfigForDeletion(
  layout: RootLayout,
  team: string,
  force: boolean,
): Promise<TeamConfig | undefined> {
  const configPath = layout.teamConfigPath(team);
  let snapshot;
  try {
    snapshot = await readFileSnapshot(configPath, { root: layout.root });
  } catch (error) {
    throw translateFileError(error, team, configPath);
  }
  if (snapshot === undefined && !(await isDirectory(layout.teamDirectory(team)))) {
    throw await teamNotFound(layout, team);
  }
  if (snapshot !== undefined) {
    const parsed = safeParseJsonFile(snapshot.text, TeamConfigSchema, configPath);
    if (parsed.success) return parsed.value;
  }
  if (force) return undefined;
  throw unreadableConfig(team, configPath, snapshot === undefined);
}

function unreadableConfig(team: string, configPath: string, missing: boolean): TeamsError {
  return new TeamsError({
    code: 'CORRUPT_FILE',
    message:
      `Cannot delete team "${team}": its config ${configPath} ` +
      (missing ? 'is missing' : 'does not parse') +
      ', so nobody can check who is still a member. Nothing was changed. ' +
      'Repair the file, or pass force to delete the team folder and its tasks anyway.',
    details: { team, file: configPath, missing },
  });
}

async function isDirectory(directory: string): Promise<boolean> {
  try {
    return (await lstat(directory)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Under the config's lock: re-reads the config, refuses if a teammate remains, then renames
 * `tasks/{team}` and `teams/{team}` aside (tasks first, so a new team of the same name never
 * loses a fresh tasks folder) and removes them. Returns the config as it was; `undefined`
 * when it was missing or unreadable and `allowUnreadable` let the deletion go on.
 */
async function removeFoldersUnderLock(
  root: string,
  team: string,
  lockOptions: TeamLockOptions,
  allowUnreadable: boolean,
): Promise<TeamConfig | undefined> {
  const layout = layoutFor(root);
  const configPath = layout.teamConfigPath(team);
  let lock: HeldLock;
  try {
    lock = await acquireFileLock(configPath, { ...lockOptions, root: layout.root });
  } catch (error) {
    if (FileLockError.hasCode(error, 'IO_ERROR') && error.details.folderMissing === true) {
      throw await teamNotFound(layout, team);
    }
    throw translateFileError(error, team, configPath);
  }
  const suffix = `.deleted-${process.pid}-${randomBytes(4).toString('hex')}`;
  const tasksAside = path.join(layout.tasksRootDirectory(), `.${team}${suffix}`);
  const teamAside = path.join(layout.teamsDirectory(), `.${team}${suffix}`);
  let config: TeamConfig | undefined;
  let renamed = false;
  try {
    const snapshot = await readFileSnapshot(configPath, { root: layout.root });
    if (snapshot === undefined && !allowUnreadable) throw await teamNotFound(layout, team);
    // Both folders are renamed and removed: neither may be (or lie behind) a link.
    resolveInsideRoot(layout.root, layout.tasksDirectory(team));
    resolveInsideRoot(layout.root, layout.teamDirectory(team));
    const parsed =
      snapshot === undefined
        ? undefined
        : safeParseJsonFile(snapshot.text, TeamConfigSchema, configPath);
    if (parsed?.success) {
      const current = parsed.value;
      assertSessionNotRunning(team, current, allowUnreadable);
      const teammates = current.members.filter((member) => !isLead(current, member));
      if (teammates.length > 0) throw hasMembers(team, teammates, true);
      config = current;
    } else if (!allowUnreadable) {
      // Read under the lock, so not torn by a locked writer: corrupt. Left as it is.
      throw unreadableConfig(team, configPath, snapshot === undefined);
    }
  } catch (error) {
    await lock.release().catch(() => undefined);
    throw translateFileError(error, team, configPath);
  }
  try {
    const tasksMoved = await renameIfPresent(layout.tasksDirectory(team), tasksAside);
    try {
      await rename(layout.teamDirectory(team), teamAside);
    } catch (error) {
      if (tasksMoved) await rename(tasksAside, layout.tasksDirectory(team)).catch(() => undefined);
      throw teamsIoError(
        'move the team folder aside for deletion',
        layout.teamDirectory(team),
        error,
      );
    }
    renamed = true;
    if (tasksMoved) syncDirectory(layout.tasksRootDirectory());
    syncDirectory(layout.teamsDirectory());
  } finally {
    // The lock folder moved away with the team folder: losing it then is expected.
    await lock.release().catch((error: unknown) => {
      if (!(renamed && FileLockError.hasCode(error, 'LOCK_LOST'))) throw error;
    });
  }
  try {
    await rm(tasksAside, { recursive: true, force: true, maxRetries: 3 });
    await rm(teamAside, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    throw teamsIoError('remove the deleted team folders', `${teamAside} and ${tasksAside}`, error);
  }
  return config;
}

async function renameIfPresent(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw teamsIoError('move the tasks folder aside for deletion', from, error);
  }
}
