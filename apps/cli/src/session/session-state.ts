import type { TeamConfig } from '@muster/protocol';
import { teamSessionState } from '@muster/teams';

/** Whether a Claude Code 2.1.330 session team's lead is still running, with the reason. */
export interface SessionState {
  state: 'running' | 'ended' | 'unknown';
  reason: string;
}

/**
 * True for a team in the 2.1.330 dialect: a Claude Code session team (it records its lead's
 * process in `leadProcess`) or a muster team marked `protocolVersion: 2`.
 */
export function isSessionTeam(config: TeamConfig): boolean {
  const leadProcess = (config as { leadProcess?: unknown }).leadProcess;
  return typeof leadProcess === 'object' && leadProcess !== null;
}

/**
 * The session state of a team that records `leadProcess` (running, ended or unknown, with
 * the reason, as `@muster/teams` judges it from /proc); undefined for other teams.
 */
export function sessionStateOf(config: TeamConfig): SessionState | undefined {
  if (!isSessionTeam(config)) return undefined;
  const { state, reason } = teamSessionState(config);
  return { state, reason };
}

const SESSION_FOLDER = /^session-[0-9a-f]{8}$/;
const UUID_FOLDER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * True for a task folder Claude Code 2.1.330 keeps on purpose after its session: a session
 * team's (`session-<8 hex>`, kept at `/exit`) or a `-p` session's (`<session uuid>`).
 */
export function isSessionTaskFolder(name: string): boolean {
  return SESSION_FOLDER.test(name) || UUID_FOLDER.test(name);
}

/** A reason sentence ("The lead … is gone.") made to fit inside another sentence. */
export function sentenceInside(text: string): string {
  const trimmed = text.trim().replace(/\.$/, '');
  return `${trimmed.charAt(0).toLowerCase()}${trimmed.slice(1)}`;
}
