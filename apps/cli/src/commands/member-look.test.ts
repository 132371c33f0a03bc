// `muster doctor` and `muster watch` tell how to look at a member muster runs in tmux (the
// attach command of its private server) or on a PTY (its log file), from the runtime sidecar
// checked against a REAL private tmux server; a record whose server or pane is gone is stale.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { recordMemberRuntime } from '@muster/teams';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, copyReferenceState } from '../test-support/reference.js';
import { jsonOf, runMuster } from '../test-support/run-cli.js';

beforeAll(assertBuilt);

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) console.warn('tmux is not installed: skipping the attach-command tests.');

interface DoctorJson {
  ok: boolean;
  findings: { severity: string; code: string; message: string }[];
}
interface WatchJson {
  members: { name: string; look?: string }[];
  attachHint?: string;
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A private tmux server on a random `muster-test-…` socket with one pane; killed after the test. */
function startPrivateServer() {
  const socketName = `muster-test-${randomBytes(4).toString('hex')}`;
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', socketName, ...args], { encoding: 'utf8', timeout: 5_000 });
  cleanups.push(() => spawnSync('tmux', ['-L', socketName, 'kill-server']));
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'conf-team', '-x', '120', '-y', '30');
  tmux('set-option', '-g', 'exit-empty', 'off');
  const [serverPid, socket, paneId, panePid] = tmux(
    'display-message',
    '-p',
    '-t',
    'conf-team',
    '#{pid} #{socket_path} #{pane_id} #{pane_pid}',
  )
    .trim()
    .split(' ');
  return {
    socketName,
    socket: socket!,
    serverPid: Number(serverPid),
    paneId: paneId!,
    panePid: Number(panePid),
    tmux,
  };
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A process that runs until the test ends (a member's pid for the sidecar). */
function startSleeper(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  cleanups.push(() => child.kill('SIGKILL'));
  return child.pid!;
}

describe.skipIf(!hasTmux)('where to look at a member', () => {
  it('doctor and watch give the attach command of a live private tmux server and a pty log; a gone server is a stale record', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const server = startPrivateServer();
    const attachCommand = `tmux -L ${server.socketName} attach -t ${server.paneId}`;
    await recordMemberRuntime(root, 'conf-team', 'alpha', {
      pid: server.panePid,
      backend: 'tmux',
      paneId: server.paneId,
      details: { socket: server.socket, serverPid: server.serverPid, attachCommand },
    });
    // A tmux record naming a pane the live server does not have.
    await recordMemberRuntime(root, 'conf-team', 'gamma', {
      pid: startSleeper(),
      backend: 'tmux',
      paneId: '%99',
      details: {
        socket: server.socket,
        serverPid: server.serverPid,
        attachCommand: `tmux -L ${server.socketName} attach -t %99`,
      },
    });
    const logFile = path.join(root, 'teams', 'conf-team', '.muster', 'pty-logs', 'beta.log');
    await mkdir(path.dirname(logFile), { recursive: true });
    await writeFile(logFile, 'member beta@conf-team ready\n');
    await recordMemberRuntime(root, 'conf-team', 'beta', {
      pid: startSleeper(),
      backend: 'pty',
      details: { logFile },
    });

    const live = jsonOf<DoctorJson>(await runMuster(['doctor', '--root', root, '--json']));
    expect(live.ok).toBe(true);
    const attach = live.findings.find((finding) => finding.code === 'TMUX_MEMBER_ATTACH');
    expect(attach?.severity).toBe('note');
    expect(attach?.message).toContain(`"alpha" runs in pane ${server.paneId}`);
    expect(attach?.message).toContain(`attach with \`${attachCommand}\``);
    expect(attach?.message).toContain(`\`tmux -L ${server.socketName} attach\``);
    const paneGone = live.findings.find((finding) => finding.code === 'STALE_TMUX_RECORD');
    expect(paneGone?.severity).toBe('warning');
    expect(paneGone?.message).toContain('"gamma" in tmux pane %99, but its tmux pane is gone');
    const log = live.findings.find((finding) => finding.code === 'PTY_MEMBER_LOG');
    expect(log?.message).toBe(`pty member "beta": its output is logged in ${logFile}.`);
    const text = await runMuster(['doctor', '--root', root]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`attach with \`${attachCommand}\``);

    const model = jsonOf<WatchJson>(await runMuster(['watch', '--root', root, '--json']));
    expect(model.attachHint).toBe(
      `tmux members: attach with \`tmux -L ${server.socketName} attach\``,
    );
    const looks = Object.fromEntries(model.members.map((member) => [member.name, member.look]));
    expect(looks.alpha).toBe(`attach: ${attachCommand}`);
    expect(looks.beta).toBe(`log ${logFile}`);
    expect(looks.gamma).toMatch(/^stale tmux record: the server runs but has no pane %99/);
    const frame = await runMuster(['watch', '--root', root]);
    expect(frame.stdout).toContain(
      `tmux members: attach with \`tmux -L ${server.socketName} attach\``,
    );

    // The server is gone: alpha's record is stale, and so is its process.
    server.tmux('kill-server');
    // Until the server process is gone tmux itself says "no server": wait for the pid to go.
    for (let waited = 0; processRuns(server.serverPid) && waited < 10_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const gone = jsonOf<DoctorJson>(await runMuster(['doctor', '--root', root, '--json']));
    const stale = gone.findings.filter((finding) => finding.code === 'STALE_TMUX_RECORD');
    expect(stale.map((finding) => finding.message)).toEqual([
      expect.stringContaining(
        `records "alpha" in tmux pane ${server.paneId}, but its tmux server is gone: tmux server pid ${server.serverPid} is not running`,
      ),
      expect.stringContaining('"gamma"'),
    ]);
    expect(gone.findings.map((finding) => finding.code)).not.toContain('TMUX_MEMBER_ATTACH');
    const after = jsonOf<WatchJson>(await runMuster(['watch', '--root', root, '--json']));
    expect(after.attachHint).toBeUndefined();
    expect(after.members.find((member) => member.name === 'alpha')?.look).toMatch(
      /^stale tmux record: tmux server pid \d+ is not running/,
    );
  });

  it('a socket taken over by another tmux server is a stale record, not an attach command', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const server = startPrivateServer();
    await recordMemberRuntime(root, 'conf-team', 'alpha', {
      pid: startSleeper(),
      backend: 'tmux',
      paneId: server.paneId,
      // The pid of a process that runs but is not the server on the socket.
      details: { socket: server.socket, serverPid: process.pid },
    });
    const report = jsonOf<DoctorJson>(await runMuster(['doctor', '--root', root, '--json']));
    const stale = report.findings.find((finding) => finding.code === 'STALE_TMUX_RECORD');
    expect(stale?.message).toContain(
      `the socket ${server.socket} now belongs to another tmux server (pid ${server.serverPid}, recorded ${process.pid})`,
    );
    // The command is built from the socket (in tmux's default folder: -L and its name).
    expect(stale?.message).toContain(`\`tmux -L ${server.socketName} attach -t ${server.paneId}\``);
  });
});
