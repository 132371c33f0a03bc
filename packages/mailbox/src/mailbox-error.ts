import { MusterError } from '@muster/protocol';

/**
 * Why a mailbox operation failed:
 * - `LOCK_TIMEOUT`: another process kept the inbox lock past the deadline.
 * - `LOCK_LOST`: the lock was taken away repeatedly while this process held it.
 * - `CORRUPT_FILE`: an inbox (or a queued message) did not parse; it was moved aside.
 * - `IO_ERROR`: the file system refused an operation.
 * - `UNKNOWN_RECIPIENT`: no team member has that name.
 * - `UNKNOWN_TEAM`: the team's config file does not exist.
 * - `INVALID_TEAM_CONFIG`: the team's config file does not parse.
 * - `INVALID_MESSAGE`: the message to send is malformed.
 * - `INVALID_NAME`: an agent or team name cannot be used as a file name.
 * - `INVALID_SELECTION`: a mark-read selection names something that is not a message.
 * - `NOT_CLAIMED`: compaction or clearing was asked for on an inbox no muster agent claimed.
 * - `BROADCAST_INCOMPLETE`: a broadcast reached some members but not all.
 * - `MESSAGE_TOO_LARGE`: the text is over `MAXIMUM_MESSAGE_TEXT_BYTES` (256 KiB); not sent.
 * - `MAYBE_DELIVERED`: a send failed after another process took its message to commit it:
 *   it may still arrive, so it must not be sent again.
 * - `UNSAFE_PATH`: a symbolic link below the root was found where a file or folder of the
 *   mailbox should be; it was not followed.
 */
export type MailboxErrorCode =
  | 'LOCK_TIMEOUT'
  | 'LOCK_LOST'
  | 'CORRUPT_FILE'
  | 'IO_ERROR'
  | 'UNKNOWN_RECIPIENT'
  | 'UNKNOWN_TEAM'
  | 'INVALID_TEAM_CONFIG'
  | 'INVALID_MESSAGE'
  | 'INVALID_NAME'
  | 'INVALID_SELECTION'
  | 'NOT_CLAIMED'
  | 'BROADCAST_INCOMPLETE'
  | 'UNSAFE_PATH'
  | 'MAYBE_DELIVERED'
  | 'MESSAGE_TOO_LARGE';

/** The error every `@muster/mailbox` operation throws; branch on `code`. */
export class MailboxError extends MusterError<MailboxErrorCode> {}

const passThroughCodes = new Set([
  'LOCK_TIMEOUT',
  'LOCK_LOST',
  'CORRUPT_FILE',
  'IO_ERROR',
  'UNSAFE_PATH',
  'MAYBE_DELIVERED',
]);

/**
 * Turns an error from the file layer into a `MailboxError` that names the inbox and the
 * operation. Mailbox errors pass through unchanged; anything unexpected becomes `IO_ERROR`.
 */
export function toMailboxError(error: unknown, operation: string, inboxPath: string): MailboxError {
  if (error instanceof MailboxError) return error;
  if (MusterError.isInstance(error)) {
    const code = passThroughCodes.has(error.code)
      ? error.code
      : error.code === 'INVALID_NAME' || error.code === 'PATH_ESCAPES_ROOT'
        ? 'INVALID_NAME'
        : 'IO_ERROR';
    return new MailboxError({
      code: code as MailboxErrorCode,
      message: `Could not ${operation} (inbox ${inboxPath}): ${error.message}`,
      cause: error,
      details: { ...error.details, inboxPath, operation },
    });
  }
  const systemCode = (error as { code?: unknown } | null)?.code;
  const reason = error instanceof Error ? error.message : String(error);
  return new MailboxError({
    code: 'IO_ERROR',
    message:
      `Could not ${operation} (inbox ${inboxPath}): ${reason}. ` +
      'Check that the team folder exists and that this process may write to it, then retry.',
    cause: error,
    details: { inboxPath, operation, systemCode },
  });
}

/** The Node system error code (`ENOENT`, …) of an error, or undefined. */
export function systemErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
