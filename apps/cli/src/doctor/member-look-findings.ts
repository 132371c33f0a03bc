// `muster doctor`'s lines about where a person can look at a running member: the attach command
// of a tmux member whose recorded server and pane still run (a note), a tmux record whose
// server or pane is gone (a stale record: a warning), and a pty member's log file (a note).
import path from 'node:path';
import { findMemberRuntime, MEMBER_RUNTIME_FILE_NAME, type MemberRuntime } from '@muster/teams';
import { lookAtMember, type TmuxServerPanes } from '../watch/member-look.js';
import type { Finding } from './doctor-types.js';
import type { ScannedTeam } from './scan-root.js';

/**
 * Findings for the members of `team` that muster's runtime sidecar records in tmux or on a
 * PTY. `runtimes` is the parsed sidecar's `members`; members no longer in the config are
 * skipped (their record describes nobody).
 */
export async function memberLookFindings(
  team: ScannedTeam,
  runtimes: Record<string, MemberRuntime>,
  options: { tmuxPath?: string } = {},
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const file = path.join(team.teamDirectory, '.muster', MEMBER_RUNTIME_FILE_NAME);
  const servers = new Map<string, Promise<TmuxServerPanes>>();
  for (const member of team.config?.members ?? []) {
    const record = findMemberRuntime(runtimes, member);
    if (record === undefined) continue;
    const look = await lookAtMember(record, { ...options, servers });
    if (look === undefined) continue;
    const who = `"${member.name}"`;
    if (look.kind === 'pty') {
      findings.push({
        severity: 'note',
        code: 'PTY_MEMBER_LOG',
        file,
        message: `pty member ${who}: its output is logged in ${look.logFile}${look.logExists ? '' : ' (the file is not there now)'}.`,
      });
      continue;
    }
    if (look.state === 'running' || look.state === 'unknown') {
      const server = look.serverAttachCommand
        ? ` (the whole team: \`${look.serverAttachCommand}\`)`
        : '';
      const unchecked = look.state === 'unknown' ? ` Not checked: ${look.reason}.` : '';
      findings.push({
        severity: 'note',
        code: 'TMUX_MEMBER_ATTACH',
        file,
        message: `tmux member ${who} runs in pane ${look.paneId ?? '?'}: attach with \`${look.attachCommand}\`${server}.${unchecked}`,
      });
      continue;
    }
    const where =
      look.state === 'server-gone'
        ? `its tmux server is gone: ${look.reason}`
        : `its tmux pane is gone: ${look.reason}`;
    findings.push({
      severity: 'warning',
      code: 'STALE_TMUX_RECORD',
      file,
      message: `records ${who} in tmux pane ${look.paneId ?? '?'}, but ${where}. The record is stale and \`${look.attachCommand}\` finds nothing; start the member again (its new record replaces this one) or remove it from the team.`,
    });
  }
  return findings;
}
