// Helpers for the tmux tests: private sockets only (`-L muster-test-<random>`), never the
// default server, and every server killed afterwards.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProcessStat } from '@muster/file-lock';
import type { MemberSpec } from './backend-types.js';

/** A fresh private socket name for one test. */
export function testSocketName(): string {
  return `muster-test-${randomBytes(4).toString('hex')}`;
}

/** Runs tmux on a test socket (throws on failure). */
export function tmuxOn(socketName: string, args: readonly string[]): string {
  if (!socketName.startsWith('muster-test-'))
    throw new Error(`refusing non-test socket ${socketName}`);
  return execFileSync('tmux', ['-L', socketName, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 10_000,
  });
}

/** Ends a test server if it still runs and removes its socket file (tmux leaves it behind). */
export function killTestServer(socketName: string): void {
  let socketPath: string | undefined;
  try {
    socketPath = tmuxOn(socketName, ['display-message', '-p', '#{socket_path}']).trim();
    tmuxOn(socketName, ['kill-server']);
  } catch {
    // Not running.
  }
  const folder = join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`);
  rmSync(socketPath ?? join(folder, socketName), { force: true });
}

/** Starts a detached session on a test socket, as a "lead inside tmux"; returns the lead pane id. */
export function startLeadSession(socketName: string, columns: number, rows: number): string {
  return tmuxOn(socketName, [
    '-f',
    '/dev/null',
    'new-session',
    '-d',
    '-s',
    'lead',
    '-x',
    String(columns),
    '-y',
    String(rows),
    '-P',
    '-F',
    '#{pane_id}',
    '--',
    'sleep',
    '1000',
  ]).trim();
}

/** Polls until `check` returns a value other than undefined/false, or throws after `timeoutMs`. */
export async function pollUntil<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A temporary muster root with a team folder; `remove()` deletes it. */
export function makeTeamRoot(teamName: string): {
  root: string;
  teamFolder: string;
  remove(): void;
} {
  const root = mkdtempSync(join(tmpdir(), 'muster-tmux-'));
  const teamFolder = join(root, 'teams', teamName);
  mkdirSync(teamFolder, { recursive: true });
  return { root, teamFolder, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** A spec for a shell-script member that needs no lead link (`readiness: 'external'`). */
export function scriptMember(
  root: string,
  teamName: string,
  agentName: string,
  script: string,
): MemberSpec {
  return {
    root,
    teamName,
    agentName,
    agentId: `${agentName}@${teamName}`,
    cwd: root,
    command: { file: 'sh', args: ['-c', script] },
    readiness: 'external',
  };
}

/** True while a process with this pid exists and is not a zombie. */
export function processRuns(pid: number): boolean {
  const state = readProcessStat(pid)?.state;
  return state !== undefined && state !== 'Z' && state !== 'X';
}
