import { MusterError } from '@muster/protocol';

/**
 * Why a team operation failed:
 * - `TEAM_NOT_FOUND`: no `teams/{team}/config.json`; `details.existingTeams` lists the teams.
 * - `TEAM_EXISTS`: a team with that exact name is already there.
 * - `TEAM_HAS_MEMBERS`: deletion refused while teammates remain; `details.members` names them.
 * - `MEMBER_NOT_FOUND`: no such member; `details.members` lists them, `details.suggestion`
 *   is the closest name.
 * - `INVALID_NAME`: a team or agent name that cannot be used (empty, `../`, separators).
 * - `INVALID_INPUT`: another argument is wrong (unknown mode or backend, removing the lead).
 * - `CORRUPT_FILE`: a file did not parse; reads move it aside (`details.quarantinedTo`),
 *   `deleteTeam` leaves it in place so the deletion can be forced.
 * - `LOCK_TIMEOUT`: another process held the file's lock past the deadline.
 * - `IO_ERROR`: the file system refused an operation (permissions, a full disk, …).
 * - `TEAM_IN_USE`: deletion refused for a Claude Code session team whose session still runs
 *   (or, without `force`, cannot be checked); `details.sessionState` says why.
 * - `UNSAFE_PATH`: a symbolic link below the root was met (`details.link`); muster never
 *   follows one, so nothing outside the root was touched.
 */
export type TeamsErrorCode =
  | 'TEAM_NOT_FOUND'
  | 'TEAM_EXISTS'
  | 'TEAM_HAS_MEMBERS'
  | 'MEMBER_NOT_FOUND'
  | 'INVALID_NAME'
  | 'INVALID_INPUT'
  | 'CORRUPT_FILE'
  | 'LOCK_TIMEOUT'
  | 'IO_ERROR'
  | 'TEAM_IN_USE'
  | 'UNSAFE_PATH';

/** The error `@muster/teams` throws; branch on `code` (see {@link TeamsErrorCode}). */
export class TeamsError extends MusterError<TeamsErrorCode> {}

/**
 * Turns the lock layer's `LOCK_TIMEOUT`, `UNSAFE_PATH` and `CORRUPT_FILE` into a `TeamsError` that names the
 * team; every other error is returned unchanged.
 */
export function translateFileError(error: unknown, team: string, file: string): unknown {
  if (MusterError.hasCode(error, 'LOCK_TIMEOUT')) {
    return new TeamsError({
      code: 'LOCK_TIMEOUT',
      message: `Timed out waiting for the lock on ${file} (team "${team}"): ${error.message}`,
      cause: error,
      details: { ...error.details, team, file },
    });
  }
  if (MusterError.hasCode(error, 'UNSAFE_PATH')) {
    return new TeamsError({
      code: 'UNSAFE_PATH',
      message: `Team "${team}": ${error.message}`,
      cause: error,
      details: { ...error.details, team, file },
    });
  }
  if (MusterError.hasCode(error, 'CORRUPT_FILE')) {
    return new TeamsError({
      code: 'CORRUPT_FILE',
      message: `Team "${team}": ${error.message}`,
      cause: error,
      details: { ...error.details, team, file },
    });
  }
  return error;
}

/** An `IO_ERROR` naming the operation and the path. */
export function teamsIoError(operation: string, target: string, cause: unknown): TeamsError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new TeamsError({
    code: 'IO_ERROR',
    message: `Could not ${operation} ${target}: ${reason}. Check that the muster root is writable, then retry.`,
    cause,
    details: { path: target, operation, systemCode: (cause as NodeJS.ErrnoException).code },
  });
}
