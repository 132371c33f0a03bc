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
