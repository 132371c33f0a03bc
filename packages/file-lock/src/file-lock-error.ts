import { MusterError } from '@muster/protocol';

/**
 * Why a locked-file operation failed:
 * - `LOCK_TIMEOUT`: another live process kept the lock past the caller's deadline.
 * - `CORRUPT_FILE`: the file did not parse; it was moved aside, never overwritten.
 * - `LOCK_LOST`: the lock was taken away from this process while it held it.
 * - `IO_ERROR`: the file system refused an operation (permissions, missing folder, …).
 * - `UNSAFE_PATH`: the path leaves the root, or passes through a symbolic link below it
 *   (`details.link` names it); nothing was touched.
 */
export type FileLockErrorCode =
  'LOCK_TIMEOUT' | 'CORRUPT_FILE' | 'LOCK_LOST' | 'IO_ERROR' | 'UNSAFE_PATH';

/** The error every `@muster/file-lock` function throws; branch on `code`. */
export class FileLockError extends MusterError<FileLockErrorCode> {}

/** Wraps a Node file-system error into an `IO_ERROR` that names the operation and the path. */
export function ioError(operation: string, target: string, cause: unknown): FileLockError {
  const systemCode = errorCode(cause);
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new FileLockError({
    code: 'IO_ERROR',
    message:
      `Could not ${operation} ${target}: ${reason}. ` +
      'Check that the folder exists and that this process may write to it, then retry.',
    cause,
    details: { path: target, operation, systemCode },
  });
}

/** The `code` of a Node system error (`ENOENT`, `EEXIST`, …), or undefined. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
