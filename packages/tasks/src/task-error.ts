import { MusterError } from '@muster/protocol';

/**
 * Why a task operation failed:
 * - `TASK_NOT_FOUND`: no `{id}.json` for that id in the team's task folder.
 * - `INVALID_TASK_ID`: the id is not a positive whole number such as `"7"`.
 * - `SELF_DEPENDENCY`: a task was asked to block (or wait for) itself.
 * - `DEPENDENCY_CYCLE`: the dependency would close a loop; the cycle is in the message.
 * - `CORRUPT_FILE`: a task file (or `.highwatermark`, or the lease file) does not parse.
 * - `LOCK_TIMEOUT`: another process held a lock past the deadline.
 * - `LOCK_LOST`: a lock was taken away while this process held it.
 * - `COMPLETION_VETOED`: the `beforeComplete` hook refused the completion (reason in details).
 * - `NOT_OWNER`: a lease was renewed by an agent that no longer owns the task.
 * - `INVALID_INPUT`: a team name, agent name or tool input is not acceptable.
 * - `IO_ERROR`: the file system refused an operation.
 * - `UNSAFE_PATH`: a symbolic link below the root was met (named in the message); it is never
 *   followed, so nothing outside the root was touched.
 */
export type TaskErrorCode =
  | 'TASK_NOT_FOUND'
  | 'INVALID_TASK_ID'
  | 'SELF_DEPENDENCY'
  | 'DEPENDENCY_CYCLE'
  | 'CORRUPT_FILE'
  | 'LOCK_TIMEOUT'
  | 'LOCK_LOST'
  | 'COMPLETION_VETOED'
  | 'NOT_OWNER'
  | 'INVALID_INPUT'
  | 'IO_ERROR'
  | 'UNSAFE_PATH';

/** The error every `@muster/tasks` function throws; branch on `code`. */
export class TaskError extends MusterError<TaskErrorCode> {}

/**
 * Turns an error from `@muster/file-lock`, the protocol helpers or the file system into a `TaskError` that says
 * what was being done. Task errors pass through unchanged.
 */
export function asTaskError(error: unknown, doing: string): TaskError {
  if (error instanceof TaskError) return error;
  if (MusterError.isInstance(error)) {
    const passedThrough: readonly string[] = [
      'LOCK_TIMEOUT',
      'LOCK_LOST',
      'CORRUPT_FILE',
      'UNSAFE_PATH',
    ];
    const code = passedThrough.includes(error.code) ? (error.code as TaskErrorCode) : 'IO_ERROR';
    return new TaskError({
      code,
      message: `Could not ${doing}: ${error.message}`,
      cause: error,
      details: { ...error.details, causeCode: error.code },
    });
  }
  const reason = error instanceof Error ? error.message : String(error);
  const systemCode =
    typeof error === 'object' && error !== null && 'code' in error
      ? String((error as { code: unknown }).code)
      : undefined;
  return new TaskError({
    code: 'IO_ERROR',
    message: `Could not ${doing}: ${reason}. Check that the task folder exists and is writable, then retry.`,
    cause: error,
    details: { systemCode },
  });
}

/** The `code` of a Node system error (`ENOENT`, …), or undefined. */
export function systemErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
