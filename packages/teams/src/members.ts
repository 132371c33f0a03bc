import {
  BackendTypeSchema,
  formatAgentId,
  PermissionModeSchema,
  sanitizeAgentName,
  teamDialect,
  type BackendType,
  type PermissionMode,
  type TeamAllowedPath,
  type TeamMember,
} from '@muster/protocol';
import { z } from 'zod';
import { isLead, nextTeammateColor, requireMember, uniqueMemberName } from './member-names.js';
import { leaveUnchanged, updateTeamConfig, type TeamLockOptions } from './team-config-file.js';
import { TeamsError } from './teams-error.js';

/** What {@link addMember} needs to register a teammate. */
export interface AddMemberOptions {
  /** Requested name; sanitized, and suffixed `-2`, `-3`… when taken in the team. */
  name: string;
  /** Role or agent definition, e.g. `general-purpose`. */
  agentType: string;
  /** Model, e.g. `claude-opus-4-6`. */
  model: string;
  /** The spawn prompt. */
  prompt: string;
  /** Whether the teammate must have a plan approved before it may write. */
  planModeRequired: boolean;
  /** The teammate's working directory. */
  cwd: string;
  /** Where it runs: `in-process`, `tmux`, `iterm2` or `pty`. */
  backendType: BackendType;
  /** Pane id (`%3`), or `in-process`. */
  tmuxPaneId: string;
  /** Initial permission mode. */
  mode?: PermissionMode;
  /** Git worktree the teammate works in. */
  worktreePath?: string;
  /** Session id of the teammate's conversation. */
  sessionId?: string;
  /** Join time, epoch ms; default now. */
  now?: number;
}

const AddMemberOptionsSchema = z.object({
  name: z.string(),
  agentType: z.string().min(1),
  model: z.string().min(1),
  prompt: z.string(),
  planModeRequired: z.boolean(),
  cwd: z.string().min(1),
  backendType: BackendTypeSchema,
  tmuxPaneId: z.string(),
  mode: PermissionModeSchema.optional(),
  worktreePath: z.string().min(1).optional(),
  sessionId: z.string().min(1).optional(),
  now: z.number().int().nonnegative().optional(),
});

function invalidInput(team: string, what: string, issues: string): TeamsError {
  return new TeamsError({
    code: 'INVALID_INPUT',
    message: `Cannot ${what} in team "${team}": ${issues}. Fix the arguments and retry.`,
    details: { team },
  });
}

/**
 * Adds a teammate under the config's lock: unique name within the team (case-insensitive,
 * `-2`, `-3`…), agent id `name@team`, the next color in Claude Code's order, and the fields
 * in the order the team's dialect writes them: v1 (Claude Code 2.1.45) agentId, name,
 * agentType, model, prompt, color, planModeRequired, joinedAt, tmuxPaneId, cwd, subscriptions,
 * backendType; v2 (2.1.330, `leadProcess` or `protocolVersion: 2`) agentId, name, color,
 * joinedAt, tmuxPaneId, subscriptions, agentType, model, prompt, planModeRequired, cwd,
 * backendType; then mode, worktreePath, sessionId.
 * Returns the member as written.
 */
export async function addMember(
  root: string,
  team: string,
  input: AddMemberOptions,
  options: TeamLockOptions = {},
): Promise<TeamMember> {
  const checked = AddMemberOptionsSchema.safeParse(input);
  if (!checked.success) {
    const issues = checked.error.issues
      .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw invalidInput(team, 'add a member', issues);
  }
  let requested: string;
  try {
    requested = sanitizeAgentName(input.name);
  } catch (error) {
    throw new TeamsError({
      code: 'INVALID_NAME',
      message: (error as Error).message,
      cause: error,
      details: { team, requested: input.name },
    });
  }
  const joinedAt = input.now ?? Date.now();
  let added: TeamMember | undefined;
  await updateTeamConfig(
    root,
    team,
    (config) => {
      const name = uniqueMemberName(requested, config.members);
      const agentId = formatAgentId(name, config.name);
      const color = nextTeammateColor(config.members);
      // Same fields, in the order the team's Claude Code version writes them.
      const member: TeamMember =
        teamDialect(config) === 'v2'
          ? {
              agentId,
              name,
              color,
              joinedAt,
              tmuxPaneId: input.tmuxPaneId,
              subscriptions: [],
              agentType: input.agentType,
              model: input.model,
              prompt: input.prompt,
              planModeRequired: input.planModeRequired,
              cwd: input.cwd,
              backendType: input.backendType,
            }
          : {
              agentId,
              name,
              agentType: input.agentType,
              model: input.model,
              prompt: input.prompt,
              color,
              planModeRequired: input.planModeRequired,
              joinedAt,
              tmuxPaneId: input.tmuxPaneId,
              cwd: input.cwd,
              subscriptions: [],
              backendType: input.backendType,
            };
      if (input.mode !== undefined) member.mode = input.mode;
      if (input.worktreePath !== undefined) member.worktreePath = input.worktreePath;
      if (input.sessionId !== undefined) member.sessionId = input.sessionId;
      config.members.push(member);
      added = member;
      return config;
    },
    options,
  );
  return added!;
}

/**
 * Removes a teammate (by agent id or name) under the config's lock and returns it as it was.
 * `MEMBER_NOT_FOUND` lists the members; removing the lead is refused (`INVALID_INPUT`):
 * delete the team instead.
 */
export async function removeMember(
  root: string,
  team: string,
  agentIdOrName: string,
  options: TeamLockOptions = {},
): Promise<TeamMember> {
  let removed: TeamMember | undefined;
  await updateTeamConfig(
    root,
    team,
    (config) => {
      const member = requireMember(team, config, agentIdOrName);
      if (isLead(config, member)) {
        throw invalidInput(
          team,
          `remove "${member.name}"`,
          'it is the lead; delete the team instead',
        );
      }
      config.members = config.members.filter((candidate) => candidate !== member);
      removed = member;
      return config;
    },
    options,
  );
  return removed!;
}

/**
 * Applies `change` to one member under the config's lock (a key that already exists keeps
 * its place; a new key goes last, as Claude Code's spread does) and returns the member as it
 * now is. Writes nothing when `change` reports no difference.
 */
async function changeMember(
  root: string,
  team: string,
  agentIdOrName: string,
  change: (member: TeamMember) => boolean,
  options: TeamLockOptions,
): Promise<TeamMember> {
  let result: TeamMember | undefined;
  await updateTeamConfig(
    root,
    team,
    (config) => {
      const member = requireMember(team, config, agentIdOrName);
      result = member;
      return change(member) ? config : leaveUnchanged;
    },
    options,
  );
  return result!;
}

/** Sets a member's permission `mode`. */
export async function setMemberMode(
  root: string,
  team: string,
  agentIdOrName: string,
  mode: PermissionMode,
  options: TeamLockOptions = {},
): Promise<TeamMember> {
  if (!PermissionModeSchema.safeParse(mode).success) {
    throw invalidInput(
      team,
      `set the mode of "${agentIdOrName}"`,
      `${JSON.stringify(mode)} is not one of ${PermissionModeSchema.options.join(', ')}`,
    );
  }
  return changeMember(
    root,
    team,
    agentIdOrName,
    (member) => {
      if (member.mode === mode) return false;
      member.mode = mode;
      return true;
    },
    options,
  );
}

/** Marks a member active (`isActive: true`, working) or idle (`false`). */
export async function setMemberActive(
  root: string,
  team: string,
  agentIdOrName: string,
  isActive: boolean,
  options: TeamLockOptions = {},
): Promise<TeamMember> {
  if (typeof isActive !== 'boolean') {
    throw invalidInput(team, `set "${agentIdOrName}" active`, 'isActive must be true or false');
  }
  return changeMember(
    root,
    team,
    agentIdOrName,
    (member) => {
      if (member.isActive === isActive) return false;
      member.isActive = isActive;
      return true;
    },
    options,
  );
}

/** Sets a member's `worktreePath`, or removes the key when `worktreePath` is undefined. */
export async function setMemberWorktree(
  root: string,
  team: string,
  agentIdOrName: string,
  worktreePath: string | undefined,
  options: TeamLockOptions = {},
): Promise<TeamMember> {
  if (worktreePath !== undefined && (typeof worktreePath !== 'string' || worktreePath === '')) {
    throw invalidInput(team, `set the worktree of "${agentIdOrName}"`, 'the path is empty');
  }
  return changeMember(
    root,
    team,
    agentIdOrName,
    (member) => {
      if (member.worktreePath === worktreePath) return false;
      if (worktreePath === undefined) delete member.worktreePath;
      else member.worktreePath = worktreePath;
      return true;
    },
    options,
  );
}

/** A directory to approve for the whole team; `addedAt` defaults to now. */
export interface AddTeamAllowedPathOptions {
  path: string;
  toolName: string;
  addedBy: string;
  addedAt?: number;
}

/**
 * Appends an entry to the config's `teamAllowedPaths` (creating the key last when missing),
 * unless one with the same path and tool is already there. Returns whether it was added and
 * the entry now in force.
 */
export async function addTeamAllowedPath(
  root: string,
  team: string,
  allowedPath: AddTeamAllowedPathOptions,
  options: TeamLockOptions = {},
): Promise<{ added: boolean; entry: TeamAllowedPath }> {
  for (const key of ['path', 'toolName', 'addedBy'] as const) {
    if (typeof allowedPath[key] !== 'string' || allowedPath[key] === '') {
      throw invalidInput(team, 'add a team allowed path', `${key} is empty`);
    }
  }
  const entry: TeamAllowedPath = {
    path: allowedPath.path,
    toolName: allowedPath.toolName,
    addedBy: allowedPath.addedBy,
    addedAt: allowedPath.addedAt ?? Date.now(),
  };
  let outcome: { added: boolean; entry: TeamAllowedPath } | undefined;
  await updateTeamConfig(
    root,
    team,
    (config) => {
      const existing = config.teamAllowedPaths?.find(
        (candidate) => candidate.path === entry.path && candidate.toolName === entry.toolName,
      );
      if (existing !== undefined) {
        outcome = { added: false, entry: existing };
        return leaveUnchanged;
      }
      config.teamAllowedPaths = [...(config.teamAllowedPaths ?? []), entry];
      outcome = { added: true, entry };
      return config;
    },
    options,
  );
  return outcome!;
}
