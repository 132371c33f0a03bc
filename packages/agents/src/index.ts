// @muster/agents — the team runtime a program embeds. The public API is exactly what this file
// exports, by name. One block per part; add exports only in your part's block.

// --- contract (agent-definition.ts, team-event.ts) ---
export type {
  AgentDefinition,
  AgentDefinitionProblem,
  AgentDefinitionSource,
} from './agent-definition.js';
export type { MemberState, SpawnPath, TeamEvent, TeamEventSink } from './team-event.js';

// --- definitions, tool pool, prompt and model chains, hooks (A1) ---
export { AgentDefinitionError } from './agent-definitions-error.js';
export type { AgentDefinitionErrorCode } from './agent-definitions-error.js';
export {
  AGENT_DEFINITION_FIELDS,
  AGENT_TYPE_PATTERN,
  parseAgentDefinition,
} from './agent-definitions-parse.js';
export type { ParsedAgentDefinition } from './agent-definitions-parse.js';
export { agentDefinitionFolders, loadAgentDefinitions } from './agent-definitions.js';
export {
  MAXIMUM_AGENT_DEFINITION_BYTES,
  MAXIMUM_AGENT_FOLDER_DEPTH,
} from './agent-definitions-files.js';
export type {
  AgentDefinitionFolder,
  LoadAgentDefinitionsOptions,
  LoadedAgentDefinitions,
} from './agent-definitions.js';
export { BUILT_IN_AGENT_NAMES, BUILT_IN_AGENTS } from './built-in-agents.js';
export {
  ALL_AGENT_DISALLOWED_TOOLS,
  ASYNC_AGENT_ALLOWED_TOOLS,
  CUSTOM_AGENT_DISALLOWED_TOOLS,
  resolveToolPool,
  TEAM_ESSENTIAL_TOOLS,
  TEAMMATE_DISALLOWED_TOOLS,
} from './tool-pool.js';
export type { RemovedTool, ResolvedToolPool, ResolveToolPoolOptions } from './tool-pool.js';
export { buildSystemPrompt, environmentSection } from './system-prompt.js';
export type { BuildSystemPromptOptions, SystemPromptEnvironment } from './system-prompt.js';
export {
  DEFAULT_AGENT_PROMPT,
  LEAD_SYSTEM_PROMPT,
  LEAD_TEAM_SECTION,
  teammateCommunicationSection,
  teammateSystemPrompt,
} from './system-prompt-defaults.js';
export type { TeammatePromptOptions } from './system-prompt-defaults.js';
export {
  CLAUDE_CODE_SUBAGENT_MODEL_VARIABLE,
  resolveAgentModel,
  SUBAGENT_MODEL_VARIABLE,
} from './agent-model.js';
export type {
  AgentModelSource,
  ResolveAgentModelOptions,
  ResolvedAgentModel,
} from './agent-model.js';
export { HOOK_PAYLOAD_SCHEMAS, loadHooks } from './hooks.js';
export type {
  HookPayload,
  HookRunResult,
  Hooks,
  LoadHooksOptions,
  RunHookOptions,
} from './hooks.js';
export { HookError } from './hooks-error.js';
export type { HookErrorCode } from './hooks-error.js';
export { taskCompletionHooks } from './hooks-task-completion.js';
export type { TaskCompletionHooksOptions } from './hooks-task-completion.js';
export { MAXIMUM_HOOK_OUTPUT_BYTES, runHookCommand } from './hooks-run.js';
export type { HookCommandResult, RunHookCommandOptions } from './hooks-run.js';
export {
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  HOOK_EVENTS,
  hookSettingsFiles,
  matcherPattern,
  MAXIMUM_SETTINGS_BYTES,
} from './hooks-settings.js';
export type { HookCommand, HookEvent, HookSettingsProblem } from './hooks-settings.js';

// --- teammate loop (A3) ---
export { runTeammate } from './teammate.js';
export { checkTeammateOptions, TeammateError } from './teammate-options.js';
export type {
  TeammateErrorCode,
  TeammateExit,
  TeammateLeadTrust,
  TeammateOptions,
} from './teammate-options.js';
export {
  formatClaimedTask,
  formatInboxEntry,
  formatPlanAnswer,
  formatShutdownRequest,
  formatSpawnPrompt,
} from './inbox-delivery.js';
export { createMemberStateRecorder } from './member-state.js';
export type { MemberStateRecorder, MemberStateRecorderOptions } from './member-state.js';
export { createExitPlanModeTool, ExitPlanModeInputSchema } from './plan-mode.js';
export type { ExitPlanModeInput, ExitPlanModeToolOptions } from './plan-mode.js';

// --- Task / Agent tool, the four spawn paths, background agents (A4) ---
export {
  AGENT_INPUT_JSON_SCHEMA,
  AGENT_NAME_PATTERN,
  AgentInputSchema,
  TASK_INPUT_JSON_SCHEMA,
  TASK_OUTPUT_INPUT_JSON_SCHEMA,
  TASK_STOP_INPUT_JSON_SCHEMA,
  TaskInputSchema,
  TaskOutputInputSchema,
  TaskStopInputSchema,
} from './spawn-tool-schemas.js';
export type { SpawnInput, SpawnToolDialect } from './spawn-tool-schemas.js';
export { chooseSpawnPath, createSpawnTool, spawnToolDescription } from './spawn-tool.js';
export type { SpawnToolOptions, SpawnWorktree, TeammateSpawnRequest } from './spawn-tool.js';
export { formatSubagentResult, MAXIMUM_STOP_HOOK_CONTINUATIONS, runSubagent } from './subagent.js';
export type { SubagentOptions, SubagentOutcome } from './subagent.js';
export { runForkPath, takeForkSource, worktreeForkNotice } from './fork-path.js';
export type { ForkPathOptions } from './fork-path.js';
export {
  createBackgroundAgents,
  openOutputFile,
  RECENT_ACTIVITY_COUNT,
} from './background-agent.js';
export type {
  BackgroundAgentProgress,
  BackgroundAgents,
  BackgroundAgentsOptions,
  BackgroundAgentStatus,
  BackgroundAgentTask,
  BackgroundLaunch,
} from './background-agent.js';
export {
  createNotificationQueue,
  formatTaskNotification,
} from './background-agent-notifications.js';
export type {
  NotificationQueue,
  TaskNotificationFields,
} from './background-agent-notifications.js';
export { createTaskOutputTool, formatTaskOutput } from './task-output.js';
export type { TaskOutputInput } from './task-output.js';
export { createTaskStopTool } from './task-stop.js';
export type { TaskStopInput } from './task-stop.js';
export {
  formatSpawnResult,
  spawnTeammate,
  teammateCommand,
  teammateSpawnHandler,
} from './teammate-spawn.js';
export type {
  SpawnedMemberInfo,
  SpawnedTeammate,
  SpawnTeammateOptions,
  TeammateSpawnBase,
} from './teammate-spawn.js';
export { worktreeIsolation } from './spawn-tool-worktree.js';
export type { WorktreeIsolationOptions } from './spawn-tool-worktree.js';
export { effectiveMode } from './spawn-tool-modes.js';
export type { EffectiveMode } from './spawn-tool-modes.js';

// --- the lead's team session (A5) ---
export { createTeamRuntime } from './team-runtime.js';
export { checkTeamRuntimeOptions, TeamRuntimeError } from './team-runtime-options.js';
export type {
  AskAnswer,
  AskPolicy,
  RunOutcome,
  ShutdownReport,
  TeamAsk,
  TeamMemberStatus,
  TeamRuntime,
  TeamRuntimeErrorCode,
  TeamRuntimeOptions,
  TeamRuntimeStatus,
  TeammateMode,
} from './team-runtime-options.js';
export type { TeamMemberView } from './team-runtime-view.js';
export type { TeamMemberTask, TeamTaskList } from './team-runtime-tasks.js';

// --- process teammate: `muster teammate`, dist/teammate-main.js, the lead's key and credentials ---
export {
  BACKEND_TYPE_VARIABLE,
  PROCESS_TEAMMATE_EXIT_CODES,
  runProcessTeammate,
} from './process-teammate.js';
export type { ProcessTeammateOptions } from './process-teammate.js';
export { PROCESS_TEAMMATE_ENTRY, runProcessTeammateCommand } from './process-teammate-command.js';
export type { ProcessTeammateCommandOptions } from './process-teammate-command.js';
export {
  parseProcessTeammateFlags,
  PROCESS_TEAMMATE_USAGE,
  ProcessTeammateUsageError,
} from './process-teammate-flags.js';
export type {
  ProcessTeammateFlags,
  ProcessTeammateUsageErrorCode,
} from './process-teammate-flags.js';
export { createPaneDisplay, firstLine, printableText } from './process-teammate-display.js';
export type {
  DisplayOutput,
  PaneDisplay,
  PaneDisplayOptions,
  Tone,
} from './process-teammate-display.js';
export { MODEL_ENVIRONMENT_VARIABLES, pickModelEnvironment } from './teammate-spawn-environment.js';
