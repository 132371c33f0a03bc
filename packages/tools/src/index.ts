// Public API of @muster/tools. Each section belongs to one file group; add exports by name.

// --- paths and file state (tool-paths*.ts, file-read-state*.ts) ---
export { isInsideRoots, resolveToolPath } from './tool-paths.js';
export type { ToolPathAccess } from './tool-paths.js';
export { assertReadAndUnchanged, fileReadState, hashContent } from './file-read-state.js';
export type { CurrentFile, FileReadRecord, FileReadState } from './file-read-state.js';

// --- file tools (read-tool*.ts, write-tool*.ts, edit-tool*.ts) ---
export { createReadTool, ReadInputSchema } from './read-tool.js';
export type { ReadInput, ReadToolOptions } from './read-tool.js';
export { createWriteTool, WriteInputSchema } from './write-tool.js';
export type { FileChangeToolOptions, WriteInput } from './write-tool.js';
export { createEditTool, EditInputSchema } from './edit-tool.js';
export type { EditInput } from './edit-tool.js';
export { createFileTools } from './file-tools.js';
export type { FileTools } from './file-tools.js';

// --- search tools (glob-tool*.ts, grep-tool*.ts, grep-engine*.ts) ---
export { createGlobTool, GlobInputSchema, globFolder } from './glob-tool.js';
export type { GlobInput, GlobResultData, GlobToolOptions } from './glob-tool.js';
export { createGrepTool, GrepInputSchema } from './grep-tool.js';
export type { GrepEngineChoice, GrepInput, GrepToolOptions } from './grep-tool.js';
export type { GrepOutputMode, GrepResultData } from './grep-tool-format.js';
export type { GrepEngineName } from './grep-engine-types.js';
export { GREP_FILE_TYPES } from './grep-engine-file-types.js';
export { SEARCH_SKIPPED_NAMES } from './grep-engine-walk.js';
export { findRipgrep } from './ripgrep-locate.js';

// --- shell (bash-tool*.ts, background-shells*.ts) ---
export {
  BASH_INPUT_JSON_SCHEMA,
  BASH_MAX_TIMEOUT_MS,
  BashInputSchema,
  createBashTool,
} from './bash-tool.js';
export type { BashInput, BashResultData, BashToolOptions } from './bash-tool.js';
export { SHELL_MARKER_VARIABLE } from './bash-tool-leftovers.js';
export type { ShellEnd, ShellOutcome } from './bash-tool-process.js';
export { backgroundShells } from './background-shells.js';
export type {
  BackgroundShellInfo,
  BackgroundShellOutput,
  BackgroundShells,
  BackgroundShellStatus,
  ReadShellOutputOptions,
} from './background-shells.js';
export { DEFAULT_MAX_FINISHED_SHELLS } from './background-shells-pruning.js';
export type { PrunedShellNote } from './background-shells-pruning.js';

// --- team, task and message tools (team-tools*.ts, task-tools*.ts, send-message-tool*.ts) ---
export { createTeamSession } from './team-session.js';
export type {
  TeamRole,
  TeamSession,
  TeamSessionChange,
  TeamSessionOptions,
} from './team-session.js';
export { createTeamCreateTool, createTeamDeleteTool, createTeamTools } from './team-tools.js';
export type { TeamTools } from './team-tools.js';
export { createTeamToolsRuntime } from './team-tools-support.js';
export type { TeamToolsOptions, TeamToolsRuntime } from './team-tools-support.js';
export { createSendMessageTool, protocolFrameTypeOf } from './send-message-tool.js';
export {
  createTaskCreateTool,
  createTaskGetTool,
  createTaskListTool,
  createTaskUpdateTool,
} from './task-tools.js';

// --- the built-in set (built-in-tools.ts) ---
export { BUILT_IN_TOOL_NAMES, createBuiltInTools } from './built-in-tools.js';
export type { BuiltInToolsOptions } from './built-in-tools.js';
