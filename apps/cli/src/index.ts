// Public API of @muster/cli: the `muster` program, for embedding and testing, plus the pure
// pieces of its dashboard and doctor. The executable itself is dist/cli.js (`bin.muster`).
export { CLI_VERSION, createProgram, runCli } from './program.js';
export type { RunState } from './program.js';
export type { CommandContext, GlobalOptions } from './context.js';
export type { OutputStreams } from './output-streams.js';
export { CliError } from './cli-error.js';
export type { CliErrorCode } from './cli-error.js';
export { EXIT_FAILURE, EXIT_STOPPED, EXIT_USAGE } from './exit-codes.js';
export { detectTerminalStyle, PLAIN_STYLE } from './terminal-style.js';
export type { TerminalStyle } from './terminal-style.js';

export { buildDashboardModel } from './watch/dashboard-model.js';
export type {
  DashboardModel,
  FeedEntry,
  MemberRow,
  MemberState,
  TaskRow,
  TeamSnapshot,
} from './watch/dashboard-model.js';
export { loadTeamSnapshot } from './watch/load-team-snapshot.js';
export { describeMessage } from './watch/message-words.js';
export type { MessageWords, MessageWordsContext } from './watch/message-words.js';
export { watchTeamFolders } from './watch/watch-team-folders.js';
export type { TeamFolderWatch, WatchTeamFoldersOptions } from './watch/watch-team-folders.js';

export { runDoctor } from './doctor/run-doctor.js';
export type { DoctorOptions } from './doctor/run-doctor.js';
export type {
  DoctorReport,
  Finding,
  FindingCode,
  FindingRepair,
  FindingSeverity,
  RepairOutcome,
} from './doctor/doctor-types.js';
export { formatDoctorReport } from './commands/doctor-command.js';
export { loadValidator } from './doctor/load-validator.js';
export { createJsonSchemaValidator } from './doctor/json-schema-validator.js';
export { createZodValidator } from './doctor/zod-validator.js';
export type { FileSchemaName, FileValidator } from './doctor/file-validator.js';
