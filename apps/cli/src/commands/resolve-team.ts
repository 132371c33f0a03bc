import { claudeCodeTeamFolderName, MusterError, sanitizeTeamName } from '@muster/protocol';
import { listTeams, TeamsError } from '@muster/teams';
import path from 'node:path';
import { CliError } from '../cli-error.js';
import type { CommandContext } from '../context.js';
import { formatMusterCommand, locationOptions, quoteShellArgument } from '../printed-command.js';
import { listEndedSessions } from '../session/ended-sessions.js';

/** How to get a first team, for messages that find none (with `--root` when one was chosen). */
export function howToCreateTeam(context: CommandContext): string {
  const root = context.root;
  // `<name>` stays a placeholder to fill in; the root the user chose is carried over.
  const location = locationOptions(context, undefined).map(quoteShellArgument).join(' ');
  return `Create one with "muster team create <name>"${location ? ` (with ${location})` : ''}, or run "muster demo" for a ready-made demo team. Claude Code keeps its teams under ~/.claude: pass --root ~/.claude (or --root "$CLAUDE_CONFIG_DIR") to use those. (Looked in ${path.join(root, 'teams')}.)`;
}

/**
 * The team a command acts on: the argument, else `--team`, else `$MUSTER_TEAM`, else the
 * only team under the root. Fails with a clear message — listing the teams there are — when
 * the named team does not exist, when there is none, or when there are several.
 */
export async function resolveTeam(context: CommandContext, argument?: string): Promise<string> {
  const { teams, problems } = await listTeams(context.root);
  const names = teams.map((team) => team.name);
  const wanted = argument ?? context.requestedTeam;
  if (wanted !== undefined) {
    if (names.includes(wanted)) return wanted;
    // The folder muster makes for the name, then the one Claude Code makes (they differ
    // only for names with accents: "Équipe" is "equipe" here and "-quipe" there).
    const candidates = [sanitizeTeamName, claudeCodeTeamFolderName].flatMap((sanitize) => {
      try {
        return [sanitize(wanted)];
      } catch {
        return [];
      }
    });
    const found = candidates.find((candidate) => names.includes(candidate));
    if (found !== undefined) return found;
    const broken = problems.find(
      (problem) => problem.folder === wanted || candidates.includes(problem.folder),
    );
    const source =
      argument !== undefined
        ? ''
        : context.requestedTeamSource === 'MUSTER_TEAM'
          ? ' (from $MUSTER_TEAM)'
          : '';
    throw new TeamsError({
      code: 'TEAM_NOT_FOUND',
      message: broken
        ? `Team "${wanted}"${source} cannot be read: ${broken.reason} Run "muster doctor" for details.`
        : `There is no team "${wanted}"${source} under ${path.join(context.root, 'teams')}. ` +
          (names.length > 0 ? `Teams there: ${names.join(', ')}.` : howToCreateTeam(context)),
      details: { team: wanted, root: context.root, existingTeams: names },
    });
  }
  if (names.length === 1) return names[0]!;
  if (names.length === 0 && problems.length > 0) {
    const unreadable = problems.map((problem) => `"${problem.folder}": ${problem.reason}`);
    throw new CliError({
      code: 'NO_TEAM',
      message:
        `No team under ${path.join(context.root, 'teams')} can be read. ` +
        `${unreadable.join(' ')} Run "muster doctor" for details.`,
      details: { root: context.root, unreadableTeams: problems.map((problem) => problem.folder) },
    });
  }
  if (names.length === 0) {
    const ended = await listEndedSessions(context.root);
    if (ended.length > 0) {
      const latest = ended[0]!.team;
      throw new CliError({
        code: 'NO_TEAM',
        message: `No team is running under ${path.join(context.root, 'teams')}: Claude Code session ${latest} ended${ended.length > 1 ? ` (and ${ended.length - 1} earlier)` : ''}, which removed its team folder and kept its task list. See it with ${formatMusterCommand(context, ['watch', latest], { team: latest, teamAsArgument: true })}; a new Claude Code session makes a new team.`,
        details: { root: context.root, endedSessions: ended.map((session) => session.team) },
      });
    }
    throw new CliError({
      code: 'NO_TEAM',
      message: `There is no team yet. ${howToCreateTeam(context)}`,
      details: { root: context.root },
    });
  }
  throw new CliError({
    code: 'AMBIGUOUS_TEAM',
    message: `There are ${names.length} teams under ${path.join(context.root, 'teams')}: ${names.join(', ')}. Choose one with --team <name> (or set MUSTER_TEAM).`,
    details: { root: context.root, existingTeams: names },
  });
}

/** The team a reading command shows: a team with its folder, or an ended session. */
export interface ResolvedTeam {
  team: string;
  /** The session ended: no team folder, only its kept task list and muster's history. */
  ended: boolean;
  /** Said before the output when muster chose among several ended sessions. */
  note?: string;
}

/**
 * Like {@link resolveTeam}, for commands that only read (`watch`, `inbox`, `tasks list`,
 * `team show`): when the named team has no folder but a Claude Code session of that name
 * ended and left its task list, or when no team runs at all but sessions ended, the
 * (latest) ended session is shown instead of an error.
 */
export async function resolveTeamOrEndedSession(
  context: CommandContext,
  argument?: string,
): Promise<ResolvedTeam> {
  const wanted = argument ?? context.requestedTeam;
  try {
    return { team: await resolveTeam(context, argument), ended: false };
  } catch (error) {
    const missing =
      MusterError.hasCode(error, 'TEAM_NOT_FOUND') || CliError.hasCode(error, 'NO_TEAM');
    if (!missing) throw error;
    const ended = await listEndedSessions(context.root);
    if (wanted !== undefined) {
      if (ended.some((session) => session.team === wanted)) return { team: wanted, ended: true };
      if (ended.length === 0 || !MusterError.hasCode(error, 'TEAM_NOT_FOUND')) throw error;
      throw new TeamsError({
        code: 'TEAM_NOT_FOUND',
        message: `${error.message} Ended Claude Code sessions there (their task lists are kept): ${ended.map((session) => session.team).join(', ')}.`,
        cause: error,
        details: {
          ...(error.details as object),
          endedSessions: ended.map((session) => session.team),
        },
      });
    }
    const { teams } = await listTeams(context.root);
    if (teams.length > 0 || ended.length === 0) throw error;
    const latest = ended[0]!.team;
    return {
      team: latest,
      ended: true,
      ...(ended.length > 1
        ? {
            note: `Showing the latest ended session, ${latest}; earlier ones: ${ended
              .slice(1)
              .map((session) => session.team)
              .join(', ')} (choose with --team).`,
          }
        : {}),
    };
  }
}
