import { MusterError } from '@muster/protocol';

/** Why a backend call failed. */
export type BackendErrorCode =
  /** The backend cannot run here (tmux or node-pty missing, no iTerm2); the message says what to install. */
  | 'UNAVAILABLE'
  /** The member spec is missing something or malformed. */
  | 'INVALID_SPEC'
  /** The member could not be started (the command failed to execute, the pane could not be made). */
  | 'SPAWN_FAILED'
  /** The member did not confirm it was ready in time, or ended before it did. */
  | 'NOT_READY'
  /** A pid or pane id no longer belongs to the member: nothing was sent to it. */
  | 'IDENTITY_CHANGED'
  /** The lead link (Unix socket) could not be opened or used. */
  | 'LINK_FAILED'
  /** The backend was closed. */
  | 'CLOSED';

/** Errors of `@muster/backends`. The message says what failed, on which member, and what to do. */
export class BackendError extends MusterError<BackendErrorCode> {}
