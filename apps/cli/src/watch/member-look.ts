// How a person can look at a member that runs in a tmux pane or on a PTY, from what muster's
// member monitor recorded in the runtime sidecar (`teams/<team>/.muster/members.json`):
// a tmux member's `details.socket`, `details.serverPid` and `paneId` (a recorded
// `details.attachCommand` is ignored: the command shown is built from the checked socket);
// a pty member's `details.logFile`. For tmux the recorded server is asked whether it still
// runs with that pane (one `tmux list-panes` per socket), so a stale record is told apart from
// a member one can attach to. Used by `muster doctor` and `muster watch`; never writes.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { MemberRuntime } from '@muster/teams';

/** How long one `tmux list-panes` may take before the server counts as not answering. */
const TMUX_QUERY_TIMEOUT_MS = 2_000;

/** Where a tmux member's pane stands, checked against the recorded server. */
export type TmuxPaneState =
  /** The recorded server (same pid) runs and still has the pane: attach works. */
  | 'running'
  /** No server answers on the socket, or another server (another pid) does: the record is stale. */
  | 'server-gone'
  /** The server runs but the pane is gone. */
  | 'pane-gone'
  /** Could not be checked (tmux not installed, nothing recorded to check against). */
  | 'unknown';

/** What a person can use to look at one member. */
export type MemberLook =
  | {
      kind: 'tmux';
      /** A shell command that attaches to the member's pane (as the backend recorded it). */
      attachCommand: string;
      /** The same without the pane: attaches to the team's server (private server only). */
      serverAttachCommand: string | undefined;
      paneId: string | undefined;
      socket: string | undefined;
      serverPid: number | undefined;
      state: TmuxPaneState;
      /** Why the state is what it is, in words (for `server-gone`, `pane-gone`, `unknown`). */
      reason: string | undefined;
    }
  | {
      kind: 'pty';
      /** The file the member's output is appended to. */
      logFile: string;
      /** Whether the file is there now. */
      logExists: boolean;
    };

/** How the tmux server behind a socket answers: its pid and pane ids, or why it does not. */
export type TmuxServerPanes =
  { answered: true; serverPid: number; paneIds: string[] } | { answered: false; reason: string };

/** Asks the server on `socket` for its pid and panes (`tmux -S <socket> list-panes -a`). */
export function queryTmuxServer(socket: string, tmuxPath = 'tmux'): Promise<TmuxServerPanes> {
  return new Promise((resolve) => {
    execFile(
      tmuxPath,
      ['-S', socket, 'list-panes', '-a', '-F', '#{pid} #{pane_id}'],
      { timeout: TMUX_QUERY_TIMEOUT_MS, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error !== null) {
          const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
          resolve({
            answered: false,
            reason: missing
              ? `tmux is not installed here (${tmuxPath})`
              : (stderr.trim() || error.message).split('\n')[0]!,
          });
          return;
        }
        const lines = stdout.split('\n').filter((line) => line.trim() !== '');
        const serverPid = Number(lines[0]?.split(' ')[0]);
        resolve({
          answered: true,
          serverPid: Number.isInteger(serverPid) ? serverPid : 0,
          paneIds: lines.map((line) => line.split(' ')[1] ?? ''),
        });
      },
    );
  });
}

function stringDetail(record: MemberRuntime, key: string): string | undefined {
  const value = record.details?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function numberDetail(record: MemberRuntime, key: string): number | undefined {
  const value = record.details?.[key];
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `tmux -L muster-alpha attach -t %3` → `tmux -L muster-alpha attach`; undefined for other commands. */
export function serverAttachCommand(attachCommand: string): string | undefined {
  const match = /^(tmux (?:-L|-S) \S+ attach)(?: -t \S+)?$/.exec(attachCommand);
  return match?.[1];
}

/** A tmux pane id (`%3`); anything else in a record is not used in a command. */
const PANE_ID = /^%\d+$/;

/**
 * `tmux -L <name> attach [-t %N]` when the socket is in tmux's default folder for this user,
 * else `tmux -S <socket> attach [-t %N]`, every word quoted for a POSIX shell.
 */
export function tmuxAttachCommand(socket: string, paneId?: string): string {
  const folder = path.join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`);
  const resolved = path.resolve(socket);
  const name = path.basename(resolved);
  const server =
    path.dirname(resolved) === folder && /^[\w.-]+$/.test(name)
      ? `tmux -L ${name}`
      : `tmux -S ${shellWord(resolved)}`;
  return `${server} attach${paneId !== undefined && PANE_ID.test(paneId) ? ` -t ${paneId}` : ''}`;
}

/** Single-quotes a word for a POSIX shell when it needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * What a runtime record offers to look at the member, checked against the live system: for
 * tmux, whether the recorded server (by socket and pid) still runs and holds the pane; for
 * pty, the log file. `undefined` for other backends (in-process, iTerm2) and records without
 * those details. `servers` caches one query per socket across members.
 */
export async function lookAtMember(
  record: MemberRuntime,
  options: { tmuxPath?: string; servers?: Map<string, Promise<TmuxServerPanes>> } = {},
): Promise<MemberLook | undefined> {
  if (record.backend === 'pty') {
    const logFile = stringDetail(record, 'logFile');
    return logFile === undefined
      ? undefined
      : { kind: 'pty', logFile, logExists: existsSync(logFile) };
  }
  if (record.backend !== 'tmux') return undefined;
  const socket = stringDetail(record, 'socket');
  const serverPid = numberDetail(record, 'serverPid');
  const recordedPaneId = record.paneId;
  // The recorded `attachCommand` is never shown: the sidecar is a file agents can write, and a
  // person copies this command into a shell. It is built from the socket checked below and a
  // pane id of tmux's own form.
  const paneId =
    recordedPaneId !== undefined && PANE_ID.test(recordedPaneId) ? recordedPaneId : undefined;
  const attachCommand = socket === undefined ? undefined : tmuxAttachCommand(socket, paneId);
  if (attachCommand === undefined) return undefined;
  const look = (state: TmuxPaneState, reason?: string): MemberLook => ({
    kind: 'tmux',
    attachCommand,
    serverAttachCommand: serverAttachCommand(attachCommand),
    paneId,
    socket,
    serverPid,
    state,
    reason,
  });
  if (socket === undefined) return look('unknown', 'no tmux socket was recorded');
  if (recordedPaneId !== undefined && paneId === undefined) {
    return look('unknown', 'the recorded pane id is not a tmux pane id (%N), so it is not used');
  }
  if (serverPid !== undefined && !processRuns(serverPid)) {
    return look('server-gone', `tmux server pid ${serverPid} is not running`);
  }
  if (!existsSync(socket)) {
    return look('server-gone', `its socket ${socket} is gone`);
  }
  const servers = options.servers ?? new Map<string, Promise<TmuxServerPanes>>();
  const key = path.resolve(socket);
  let query = servers.get(key);
  if (query === undefined) {
    query = queryTmuxServer(socket, options.tmuxPath);
    servers.set(key, query);
  }
  const panes = await query;
  if (!panes.answered) {
    return /not installed/.test(panes.reason)
      ? look('unknown', panes.reason)
      : look('server-gone', `no tmux server answers on ${socket} (${panes.reason})`);
  }
  if (serverPid !== undefined && panes.serverPid !== serverPid) {
    return look(
      'server-gone',
      `the socket ${socket} now belongs to another tmux server (pid ${panes.serverPid}, recorded ${serverPid})`,
    );
  }
  if (paneId !== undefined && !panes.paneIds.includes(paneId)) {
    return look('pane-gone', `the server runs but has no pane ${paneId} any more`);
  }
  return look('running');
}

/** One line for people: what to type to look at the member, or why the record is stale. */
export function describeLook(look: MemberLook): string {
  if (look.kind === 'pty') {
    return `log ${look.logFile}${look.logExists ? '' : ' (not written yet or removed)'}`;
  }
  if (look.state === 'running') return `attach: ${look.attachCommand}`;
  if (look.state === 'unknown') return `attach: ${look.attachCommand} (unchecked: ${look.reason})`;
  return `stale tmux record: ${look.reason}`;
}
