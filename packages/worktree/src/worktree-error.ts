import { MusterError } from '@muster/protocol';

/** Every reason a worktree operation can fail; callers branch on these codes. */
export type WorktreeErrorCode =
  | 'NOT_A_GIT_REPOSITORY'
  | 'PATH_NOT_FOUND'
  | 'INVALID_SLUG'
  | 'INVALID_OPTIONS'
  | 'WORKTREE_EXISTS'
  | 'BRANCH_EXISTS'
  | 'START_POINT_NOT_FOUND'
  | 'SYMLINK_ESCAPES_REPOSITORY'
  | 'GIT_MISSING'
  | 'GIT_FAILED'
  | 'GIT_TIMEOUT'
  | 'HOOK_FAILED'
  | 'HOOK_MANAGED'
  | 'SETUP_FAILED'
  | 'NOT_A_MUSTER_WORKTREE'
  | 'CORRUPT_RECORD';

/**
 * The error `@muster/worktree` throws. Its message says what happened, on which path,
 * slug or branch, and what to do next; `details` carries the same facts for programs.
 */
export class WorktreeError extends MusterError<WorktreeErrorCode> {}
