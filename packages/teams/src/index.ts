// Public API of @muster/teams: the team registry (config CRUD under lock, members, unique
// names, colors, discovery) and muster's per-member runtime sidecar.
export { TeamsError } from './teams-error.js';
export type { TeamsErrorCode } from './teams-error.js';

export { createTeam } from './create-team.js';
export type { CreateTeamOptions, CreateTeamResult, TeamDialect } from './create-team.js';

export { listTeams, readTeam } from './read-teams.js';
export type { TeamListEntry, TeamListing, TeamListProblem } from './read-teams.js';

export { deleteTeam } from './delete-team.js';
export type { DeleteTeamOptions, DeleteTeamResult } from './delete-team.js';

export { assertTeamName, leaveUnchanged, updateTeamConfig } from './team-config-file.js';
export type { TeamConfigUpdater, TeamLockOptions } from './team-config-file.js';

export {
  addMember,
  addTeamAllowedPath,
  removeMember,
  setMemberActive,
  setMemberMode,
  setMemberWorktree,
} from './members.js';
export type { AddMemberOptions, AddTeamAllowedPathOptions } from './members.js';

export {
  findMemberIndex,
  isLead,
  isPaneStarting,
  nextTeammateColor,
  uniqueMemberName,
} from './member-names.js';

export { listTaskLists } from './task-lists.js';
export type { TaskListFolder, TaskListStatus } from './task-lists.js';

export {
  findMemberRuntime,
  heartbeat,
  isMemberProcessAlive,
  MEMBER_RUNTIME_FILE_NAME,
  MemberRuntimeFileSchema,
  MemberRuntimeSchema,
  readMemberRuntime,
  recordMemberRuntime,
} from './member-runtime.js';
export type {
  MemberRuntime,
  MemberRuntimeFile,
  RecordMemberRuntimeOptions,
} from './member-runtime.js';

export { currentPidSpace, isSessionTeamName, teamSessionState } from './session-state.js';
export type { TeamSessionState, TeamSessionStateName } from './session-state.js';
