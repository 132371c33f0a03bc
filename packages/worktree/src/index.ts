export { createAgentWorktree, DEFAULT_SYMLINK_DIRECTORIES } from './create-worktree.js';
export { cleanupAgentWorktree } from './cleanup-worktree.js';
export type { WorktreeCleanupResult } from './cleanup-worktree.js';
export { removeAgentWorktree } from './remove-worktree.js';
export type { WorktreeRemoval } from './remove-worktree.js';
export { checkWorktreeChanges, hasWorktreeChanges } from './worktree-changes.js';
export type { WorktreeChangeReport } from './worktree-changes.js';
export { listAgentWorktrees, pruneAgentWorktrees } from './list-worktrees.js';
export type {
  AgentWorktreeState,
  AgentWorktreeStatus,
  WorktreePruneResult,
} from './list-worktrees.js';
export { readAgentWorktree, WORKTREE_RECORD_FILE } from './worktree-record.js';
export { resolveRepository, WORKTREES_FOLDER, worktreePathFor } from './repository.js';
export type { RepositoryLocation } from './repository.js';
export {
  explainInvalidSlug,
  isValidWorktreeSlug,
  MAXIMUM_SLUG_LENGTH,
  validateWorktreeSlug,
} from './worktree-slug.js';
export { WORKTREE_INCLUDE_FILE } from './worktree-include.js';
export { DEFAULT_GIT_TIMEOUT_MS } from './run-git.js';
export type { GitOptions } from './run-git.js';
export { WorktreeError } from './worktree-error.js';
export type { WorktreeErrorCode } from './worktree-error.js';
export type {
  AgentWorktree,
  CreateAgentWorktreeOptions,
  GitAgentWorktree,
  HookAgentWorktree,
  WorktreeCreateHook,
} from './types.js';
