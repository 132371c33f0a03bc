// Which team an agent is in, as its team tools see it. A lead enters a team with TeamCreate
// and leaves it with TeamDelete; a teammate is born into one team and never leaves it.
import { TEAM_LEAD_NAME } from '@muster/protocol';
import { ToolError } from '@muster/query';
import { assertTeamName } from '@muster/teams';

/** Whether the agent leads its team or works in one. */
export type TeamRole = 'lead' | 'teammate';

/** What changed in a {@link TeamSession}. */
export interface TeamSessionChange {
  /** The team entered (`enter`) or left (`leave`). */
  kind: 'enter' | 'leave';
  /** The team's folder name. */
  teamName: string;
}

/** The team an agent's tools act on; one per agent, shared by its team, task and message tools. */
export interface TeamSession {
  /** `lead` (TeamCreate and TeamDelete are its tools) or `teammate` (its team is fixed). */
  readonly role: TeamRole;
  /** The agent's name in its team (`team-lead` for a lead). */
  readonly agentName: string;
  /** The team the agent is in now, or undefined (a lead before TeamCreate or after TeamDelete). */
  teamName(): string | undefined;
  /**
   * The task list TaskCreate/TaskGet/TaskUpdate/TaskList use: the team's, or, for a lead
   * outside a team, the `taskListName` it was created with; undefined when there is none.
   */
  taskListName(): string | undefined;
  /** A lead enters the team it just created. Refused for a teammate or a lead already in a team. */
  enterTeam(teamName: string): void;
  /** A lead leaves the team it deleted. Refused for a teammate or another team's name. */
  leaveTeam(teamName: string): void;
  /** Calls `listener` after every change (to start or stop inbox readers); returns an unsubscribe. */
  onChange(listener: (change: TeamSessionChange) => void): () => void;
}

/** Options of {@link createTeamSession}. */
export type TeamSessionOptions =
  | {
      /** A lead: its team comes from TeamCreate (or `teamName`, when it resumes one). */
      role: 'lead';
      /** The lead's name; must be `team-lead`, the name `createTeam` writes for the lead. */
      agentName?: string;
      /** A team this lead already leads (a resumed session). */
      teamName?: string;
      /** The task list to use while the lead is not in a team (e.g. its session id). */
      taskListName?: string;
    }
  | {
      /** A teammate: its team is fixed for its whole life. */
      role: 'teammate';
      /** The teammate's name in the team (`alice`). */
      agentName: string;
      /** The team it was spawned into. */
      teamName: string;
    };

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

function invalid(message: string): ToolError {
  return new ToolError(message, 'INVALID_OPTIONS');
}

function checkName(value: unknown, what: string): string {
  if (typeof value !== 'string' || !NAME.test(value)) {
    throw invalid(
      `createTeamSession: ${what} ${JSON.stringify(value)} is not a valid name (letters, digits, ".", "_" or "-", at most 128, starting with a letter or digit).`,
    );
  }
  return value;
}

function checkTeamName(value: unknown): string {
  try {
    return assertTeamName(value as string);
  } catch (error) {
    throw invalid(
      `createTeamSession: teamName ${JSON.stringify(value)}: ${(error as Error).message}`,
    );
  }
}

/**
 * Creates the {@link TeamSession} of one agent. Names are checked at once; a lead's name
 * must be `team-lead` (what the team config calls its lead), a teammate's team is required.
 */
export function createTeamSession(options: TeamSessionOptions): TeamSession {
  if (options === null || typeof options !== 'object') {
    throw invalid(
      'createTeamSession needs options: { role: "lead" } or { role: "teammate", agentName, teamName }.',
    );
  }
  if (options.role !== 'lead' && options.role !== 'teammate') {
    throw invalid(
      `createTeamSession: role must be "lead" or "teammate", not ${JSON.stringify((options as { role?: unknown }).role)}.`,
    );
  }
  const role = options.role;
  const agentName =
    role === 'lead'
      ? checkName(options.agentName ?? TEAM_LEAD_NAME, 'agentName')
      : checkName(options.agentName, 'agentName');
  if (role === 'lead' && agentName !== TEAM_LEAD_NAME) {
    throw invalid(
      `createTeamSession: a lead is called "${TEAM_LEAD_NAME}" in its team config, not ${JSON.stringify(agentName)}; drop agentName or pass "${TEAM_LEAD_NAME}".`,
    );
  }
  let current = options.teamName === undefined ? undefined : checkTeamName(options.teamName);
  if (role === 'teammate' && current === undefined) {
    throw invalid('createTeamSession: a teammate needs the teamName it was spawned into.');
  }
  const fallbackTaskList =
    role === 'lead' && options.taskListName !== undefined
      ? checkName(options.taskListName, 'taskListName')
      : undefined;
  const listeners = new Set<(change: TeamSessionChange) => void>();
  // A listener that throws must not undo or fail the change it hears about.
  const notify = (change: TeamSessionChange) => {
    for (const listener of [...listeners]) {
      try {
        listener(change);
      } catch (error) {
        process.emitWarning(
          `A TeamSession listener of ${agentName} failed on ${change.kind} ${change.teamName}: ${(error as Error)?.message ?? String(error)}`,
          { code: 'MUSTER_TEAM_SESSION_LISTENER_FAILED' },
        );
      }
    }
  };

  return {
    role,
    agentName,
    teamName: () => current,
    taskListName: () => current ?? fallbackTaskList,
    enterTeam(teamName) {
      if (role !== 'lead') {
        throw new ToolError(
          `${agentName} is a teammate of ${current}: only a lead creates and enters teams.`,
          'NOT_LEAD',
        );
      }
      if (current !== undefined) {
        throw new ToolError(
          `${agentName} already leads team "${current}"; a lead leads one team at a time. Delete it with TeamDelete first.`,
          'ALREADY_IN_TEAM',
        );
      }
      current = checkTeamName(teamName);
      notify({ kind: 'enter', teamName: current });
    },
    leaveTeam(teamName) {
      if (role !== 'lead') {
        throw new ToolError(
          `${agentName} is a teammate of ${current}: only the lead deletes the team.`,
          'NOT_LEAD',
        );
      }
      if (current !== teamName) {
        throw new ToolError(
          `${agentName} is not in team "${teamName}" (current team: ${current ?? 'none'}).`,
          'NOT_IN_TEAM',
        );
      }
      current = undefined;
      notify({ kind: 'leave', teamName });
    },
    onChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
