// The tmux backend against real tmux 3.x servers on private test sockets.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from './backend-types.js';
import { createTmuxBackend } from './tmux-backend.js';
import { sessionMembers } from './tmux-identity.js';
import type { TmuxMemberHandle } from './tmux-member.js';
import {
  killTestServer,
  makeTeamRoot,
  pollUntil,
  processRuns,
  scriptMember,
  testSocketName,
  tmuxOn,
} from './tmux-test-support.js';

const TEAM = 'alpha';
let socketName: string;
let team: ReturnType<typeof makeTeamRoot>;
let backend: Backend | undefined;

beforeEach(() => {
  socketName = testSocketName();
  team = makeTeamRoot(TEAM);
});

afterEach(async () => {
  await backend?.close().catch(() => undefined);
  backend = undefined;
  killTestServer(socketName);
  team.remove();
});

function panes(): Map<string, string> {
  let lines = '';
  try {
    lines = tmuxOn(socketName, [
      'list-panes',
      '-a',
      '-F',
      '#{pane_id} #{pane_dead} #{pane_dead_status}',
    ]);
  } catch (error) {
    // No session left, or no server left (a private server ends with its last pane).
    if (
      !/no current target|no server running/.test(String((error as { stderr?: unknown }).stderr))
    ) {
      throw error;
    }
  }
  return new Map(
    lines
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => [line.split(' ')[0] as string, line]),
  );
}

describe('tmux backend, private server (R21)', () => {
  it('starts tmux -L <socket> -D as the lead child and prints how to attach', async () => {
    const notices: string[] = [];
    backend = createTmuxBackend({ socketName, onNotice: (text) => notices.push(text) });
    expect(await backend.availability()).toMatchObject({ available: true });
    const member = (await backend.spawn(
      scriptMember(team.root, TEAM, 'one', 'exec sleep 1000'),
    )) as TmuxMemberHandle;
    const view = member.describe();
    expect(view).toMatchObject({
      backend: 'tmux',
      pid: member.identity.panePid,
      paneId: member.identity.paneId,
      socket: member.identity.socketPath,
      serverPid: member.identity.serverPid,
      paneStartTime: member.identity.paneStartTime,
    });
    expect(view.attachCommand).toBe(`tmux -L ${socketName} attach -t ${member.identity.paneId}`);
    expect(notices.join('\n')).toContain(`tmux -L ${socketName} attach`);
    const serverCommand = readFileSync(`/proc/${member.identity.serverPid}/cmdline`, 'utf8').split(
      '\0',
    );
    expect(serverCommand).toEqual(expect.arrayContaining(['-L', socketName, '-D']));
    expect(readFileSync(`/proc/${member.identity.serverPid}/status`, 'utf8')).toMatch(
      new RegExp(`PPid:\\s+${process.pid}\\n`),
    );
    expect(member.isAlive()).toBe(true);
    await backend.close();
    backend = undefined;
    await pollUntil('the private server to end', () => !processRuns(member.identity.serverPid));
    expect(processRuns(member.identity.panePid)).toBe(false);
  });

  it('the private server ends with its last pane and the next spawn starts a new one', async () => {
    backend = createTmuxBackend({ socketName });
    const first = (await backend.spawn(
      scriptMember(team.root, TEAM, 'first', 'exit 0'),
    )) as TmuxMemberHandle;
    expect(await first.exited).toMatchObject({ reason: 'exited', code: 0 });
    await pollUntil('the idle server to end', () => !processRuns(first.identity.serverPid));
    const second = (await backend.spawn(
      scriptMember(team.root, TEAM, 'second', 'exec sleep 1000'),
    )) as TmuxMemberHandle;
    expect(second.identity.serverPid).not.toBe(first.identity.serverPid);
    expect(second.isAlive()).toBe(true);
  });

  it('refuses a socket another server already uses', async () => {
    tmuxOn(socketName, ['-f', '/dev/null', 'new-session', '-d', '--', 'sleep', '1000']);
    backend = createTmuxBackend({ socketName });
    await expect(
      backend.spawn(scriptMember(team.root, TEAM, 'one', 'sleep 1')),
    ).rejects.toMatchObject({
      code: 'SPAWN_FAILED',
      message: expect.stringContaining('kill-server'),
    });
  });

  it('refuses a spec without a command, naming the fix', async () => {
    backend = createTmuxBackend({ socketName });
    const spec = { ...scriptMember(team.root, TEAM, 'one', ''), command: undefined };
    await expect(backend.spawn(spec)).rejects.toMatchObject({
      code: 'INVALID_SPEC',
      message: expect.stringContaining('command: { file, args }'),
    });
  });
});

describe('tmux backend: no typing (R18)', () => {
  it('runs 20 of 20 members whose shell rc drains typeahead; the send-keys baseline loses its command', async () => {
    const rcFile = join(team.root, 'drain.rc');
    // A slow prompt framework: it starts late, then eats whatever was typed meanwhile.
    writeFileSync(rcFile, 'sleep 0.3\nwhile read -t 0.05 -r -n 1 _; do :; done\n');
    const markers = join(team.root, 'markers');
    backend = createTmuxBackend({ socketName });
    const spawnStarted = Date.now();
    const members = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        backend!.spawn({
          ...scriptMember(team.root, TEAM, `m${index}`, ''),
          command: {
            file: 'bash',
            args: [
              '--rcfile',
              rcFile,
              '-i',
              '-c',
              `echo ran > ${markers}-${index}; exec sleep 1000`,
            ],
          },
        }),
      ),
    );
    expect(members).toHaveLength(20);
    console.log(`20 spawns took ${Date.now() - spawnStarted} ms`);
    await pollUntil(
      '20 markers',
      () => readdirSync(team.root).filter((name) => name.startsWith('markers-')).length === 20,
    );
    // Baseline: the same rc in a pane where the command is typed with send-keys (what muster never does).
    const typed = join(team.root, 'typed');
    const pane = tmuxOn(socketName, [
      'new-window',
      '-d',
      '-P',
      '-F',
      '#{pane_id}',
      '--',
      'bash',
      '--rcfile',
      rcFile,
      '-i',
    ]).trim();
    tmuxOn(socketName, ['send-keys', '-t', pane, `echo ran > ${typed}`, 'Enter']);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(existsSync(typed)).toBe(false);
  });

  it('passes argv and environment exactly, even words tmux would read as a command end', async () => {
    const output = join(team.root, 'argv.txt');
    backend = createTmuxBackend({ socketName });
    await backend.spawn({
      ...scriptMember(team.root, TEAM, 'exact', ''),
      environment: { TRICKY: 'x;' },
      command: {
        file: 'sh',
        args: [
          '-c',
          `printf '[%s]' "$@" "$TRICKY" > ${output}; exec sleep 1000`,
          'sh',
          'a;',
          ';',
          'b\\;',
          "it's $HOME",
        ],
      },
    });
    await pollUntil('the argv file', () => existsSync(output) && readFileSync(output, 'utf8'));
    expect(readFileSync(output, 'utf8')).toBe("[a;][;][b\\;][it's $HOME][x;]");
  });

  it('no tmux source file sends keys', () => {
    const folder = new URL('.', import.meta.url).pathname;
    const offenders = readdirSync(folder)
      .filter((name) => name.startsWith('tmux') && name.endsWith('.ts') && !name.includes('test'))
      .filter((name) => readFileSync(join(folder, name), 'utf8').includes('send-keys'));
    expect(offenders).toEqual([]);
  });
});

describe('tmux backend: failed panes are kept (R19)', () => {
  it('exit 3 is reported with its status and the pane stays dead; exit 0 closes its pane', async () => {
    backend = createTmuxBackend({ socketName });
    const failing = (await backend.spawn(
      scriptMember(team.root, TEAM, 'fails', 'exit 3'),
    )) as TmuxMemberHandle;
    const clean = (await backend.spawn(
      scriptMember(team.root, TEAM, 'clean', 'exit 0'),
    )) as TmuxMemberHandle;
    const failed = await failing.exited;
    expect(failed).toMatchObject({ reason: 'exited', code: 3, signal: null });
    expect(failed.message).toContain('kept for inspection');
    await expect(failing.ready).rejects.toMatchObject({ code: 'NOT_READY' });
    expect(panes().get(failing.identity.paneId)).toBe(`${failing.identity.paneId} 1 3`);
    expect(await clean.exited).toMatchObject({ reason: 'exited', code: 0 });
    await pollUntil('the clean pane to close', () => !panes().has(clean.identity.paneId));
    expect(panes().has(failing.identity.paneId)).toBe(true);
  });
});

describe('tmux backend: liveness (R22) and kill', () => {
  it('a pane killed from outside is reported vanished within the bound', async () => {
    backend = createTmuxBackend({ socketName, pollIntervalMs: 500 });
    const member = (await backend.spawn(
      scriptMember(team.root, TEAM, 'victim', 'exec sleep 1000'),
    )) as TmuxMemberHandle;
    const started = Date.now();
    tmuxOn(socketName, ['kill-pane', '-t', member.identity.paneId]);
    const exit = await pollUntil('the exit', () =>
      Promise.race([member.exited, Promise.resolve(undefined)]),
    );
    expect(exit.reason).toBe('vanished');
    expect(exit.at - started).toBeLessThan(10_000);
    expect(member.isAlive()).toBe(false);
  });

  it('the synchronous last pass (lead exiting) kills the pane processes and closes the pane', async () => {
    backend = createTmuxBackend({ socketName });
    const keep = (await backend.spawn(
      scriptMember(team.root, TEAM, 'keep', 'exec sleep 1000'),
    )) as TmuxMemberHandle;
    const member = (await backend.spawn(
      scriptMember(team.root, TEAM, 'last', "trap '' HUP TERM; sleep 1000 & exec sleep 1000"),
    )) as TmuxMemberHandle;
    const group = await pollUntil('the background sleep', () => {
      const found = sessionMembers(member.identity.panePid);
      return found.length >= 2 && found;
    });
    member.killNow();
    expect(group.filter((pid) => processRuns(pid))).toEqual([]);
    await pollUntil('the pane to close', () => !panes().has(member.identity.paneId));
    expect(keep.isAlive()).toBe(true);
  });

  it('kill ends the pane process group and closes the pane; external readiness resolves on markReady', async () => {
    backend = createTmuxBackend({ socketName });
    const member = (await backend.spawn(
      scriptMember(team.root, TEAM, 'worker', "trap '' HUP; sleep 1000 & exec sleep 1000"),
    )) as TmuxMemberHandle;
    member.markReady();
    await member.ready;
    const group = await pollUntil('the background sleep', () => {
      const found = sessionMembers(member.identity.panePid);
      return found.length >= 2 && found;
    });
    const exit = await member.kill({ graceful: true, deadlineMs: 2_000 });
    expect(exit.reason).toBe('killed');
    expect(panes().has(member.identity.paneId)).toBe(false);
    expect(member.isAlive()).toBe(false);
    expect(group.filter((pid) => processRuns(pid))).toEqual([]);
    expect(await member.kill()).toBe(exit);
  });
});
