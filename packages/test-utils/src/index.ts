export { makeTempDirectory, makeUnmanagedTempDirectory } from './temp-directory.js';
export { git, isolatedGitEnvironment, makeGitRepository } from './git-repository.js';
export type { TestRepository } from './git-repository.js';
export { runNodeProcesses, startNodeProcess } from './node-processes.js';
export type { ProcessResult, StartNodeOptions, StartedProcess } from './node-processes.js';
export {
  claudeCode2_1_330ReferenceDirectory,
  claudeCodeReferenceDirectory,
} from './claude-code-reference.js';
export { snapshotFolder } from './folder-snapshot.js';
// --- the real Claude Code CLI as a test peer (claude-code-peer.ts) ---
export {
  CLAUDE_CODE_CACHE_FOLDER,
  CLAUDE_CODE_NATIVE_VERSION,
  CLAUDE_CODE_VERSION,
  claudeCodeEnvironment,
  createClaudeCodeHome,
  findClaudeCode,
  findNativeClaudeCode,
  runClaudeCode,
  snapshotTeam,
} from './claude-code-peer.js';
export type {
  ClaudeCodeHome,
  ClaudeCodeLocation,
  ClaudeCodeRun,
  RunClaudeCodeOptions,
  TeamSnapshot,
} from './claude-code-peer.js';
