// Public API of @muster/backends. Each section belongs to one file group; add exports by name.

// --- contract (backend-types.ts, backend-error.ts) ---
export type {
  Backend,
  BackendAvailability,
  InProcessMemberContext,
  MemberExit,
  MemberExitReason,
  MemberHandle,
  MemberSpec,
  MemberView,
  ReadinessSignal,
} from './backend-types.js';
export { BackendError } from './backend-error.js';
export type { BackendErrorCode } from './backend-error.js';

// --- lifecycle: lead link, cleanup, process control (lead-link*.ts, member-link*.ts, cleanup-registry*.ts, process-control*.ts) ---
export { createLeadLink } from './lead-link.js';
export type { LeadLink, LeadLinkOptions } from './lead-link.js';
export {
  AGENT_ID_VARIABLE,
  LEAD_SOCKET_VARIABLE,
  MEMBER_SECRET_VARIABLE,
} from './lead-link-messages.js';
export { createMemberSecret } from './lead-link-secret.js';
export { LEAD_LINK_POINTER_FILE } from './lead-link-socket-path.js';
export { connectToLead, endMemberBecauseLeadIsGone } from './member-link.js';
export type { ConnectToLeadOptions, MemberLink } from './member-link.js';
export { acquireLeadLink } from './lead-link-shared.js';
export {
  deathSignalPrefix,
  isSameProcess,
  killProcessTree,
  readProcessIdentity,
} from './process-control.js';
export {
  handleSignalsInHost,
  registerCleanup,
  registeredCleanups,
  runRegisteredCleanups,
  setCleanupDeadline,
} from './cleanup-registry.js';
export type { CleanupOptions, CleanupReason } from './cleanup-registry.js';
export type {
  KillProcessTreeOptions,
  KillProcessTreeResult,
  ProcessIdentity,
} from './process-control.js';

// --- in-process (in-process*.ts, member-context*.ts) ---
export { createInProcessBackend } from './in-process-backend.js';
export type { InProcessBackendOptions, InProcessCrashDetails } from './in-process-backend.js';
export type { InProcessCrashOrigin } from './in-process-member.js';
export { bindToMember, currentMember, runOutsideMembers } from './member-context.js';
export type { MemberIdentity } from './member-context.js';

// --- pty (pty*.ts, terminal-screen*.ts) ---
export { createPtyBackend } from './pty-backend.js';
export type { PtyBackend, PtyBackendOptions } from './pty-backend.js';
export type { PtyMemberHandle } from './pty-member.js';
export { createTerminalScreen, DEFAULT_TERMINAL_SIZE } from './terminal-screen.js';
export type { TerminalScreen, TerminalScreenSnapshot } from './terminal-screen.js';

// --- tmux (tmux*.ts) ---
export { createTmuxBackend } from './tmux-backend.js';
export { privateSocketName } from './tmux-mode.js';
export type { TmuxBackendOptions } from './tmux-backend.js';
export { TmuxMemberHandle } from './tmux-member.js';
export type { TmuxMemberView } from './tmux-member.js';
export { checkTmuxPane, killTmuxPane } from './tmux-identity.js';
export type { TmuxPaneCheck, TmuxPaneIdentity, TmuxPaneKillResult } from './tmux-identity.js';
export type { TmuxServerIdentity } from './tmux-server.js';
export type { TmuxPaneSize } from './tmux-layout.js';
export type { TmuxLeadLink } from './tmux-support.js';

// --- iTerm2, choice, liveness (iterm*.ts, choose-backend*.ts, member-monitor*.ts) ---
export { createITermBackend } from './iterm-backend.js';
export type { ITermBackend, ITermBackendOptions } from './iterm-backend.js';
export { ITermMemberHandle } from './iterm-member.js';
export { ITERM_INSTALL_FIX } from './iterm-support.js';
export type { ITermLeadLink } from './iterm-support.js';
export { AUTO_BACKEND_ORDER, chooseBackend } from './choose-backend.js';
export type { BackendChoice, ChooseBackendOptions } from './choose-backend.js';
export { createMemberMonitor } from './member-monitor.js';
export type {
  MemberGone,
  MemberMonitor,
  MemberMonitorOptions,
  WatchedMember,
} from './member-monitor.js';

// --- a real Claude Code teammate (claude-code-teammate.ts, external-readiness.ts) ---
export { claudeCodeTeammateCommand } from './claude-code-teammate.js';
export type { ClaudeCodeTeammateCommandOptions } from './claude-code-teammate.js';
export { markReadyOnIdleNotification, waitForIdleNotification } from './external-readiness.js';
export type { IdleNotificationSeen, WaitForIdleNotificationOptions } from './external-readiness.js';

// --- process reaper: no tool process outlives a SIGKILLed lead (process-reaper*.ts; H6) ---
export {
  processReaperAvailability,
  sharedProcessReaper,
  startProcessReaper,
} from './process-reaper.js';
export type {
  ProcessReaper,
  ProcessReaperEnd,
  ProcessReaperOptions,
  ProcessReaperReport,
} from './process-reaper.js';
export { LEAD_RUN_VARIABLE } from '@muster/protocol';
