import { MusterError } from '@muster/protocol';

/** Why a permissions operation failed. */
export type PermissionsErrorCode =
  /** A rule string such as `Bash(` could not be parsed. */
  | 'INVALID_RULE'
  /** A mode that is not allowed here (e.g. approving a plan into `plan` or `delegate`). */
  | 'INVALID_MODE'
  /** An answer or command came from someone who may not give it (only the lead may). */
  | 'NOT_LEAD'
  /** No pending request has this id (already answered, timed out, or never seen). */
  | 'UNKNOWN_REQUEST'
  /** The named agent is not a member of the team. */
  | 'UNKNOWN_MEMBER'
  /** An argument is missing or unusable (e.g. no working directory to resolve paths against). */
  | 'INVALID_INPUT'
  /** The client or broker was closed while something was still waiting. */
  | 'CLOSED'
  /** A file this package owns (the audit log) could not be read or written. */
  | 'IO_ERROR';

/** The error every function of `@muster/permissions` throws. */
export class PermissionsError extends MusterError<PermissionsErrorCode> {}
