// The tmux backend's control-mode client (R17): once the private server's session exists, spawns,
// layout and the reconciler go over one `tmux -C` client instead of a tmux client process per
// command. Client processes are counted with a COUNTING WRAPPER (test-fixtures/
// tmux-counting-wrapper.sh, passed as `tmuxPath`): it logs each argv and execs the real tmux, so
// everything the backend does still runs against real tmux.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from './backend-types.js';
import { createTmuxBackend } from './tmux-backend.js';
import { controlLine, quoteForTmuxParser } from './tmux-control-client.js';
import { TmuxCommandError, TmuxRunner } from './tmux-runner.js';
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

const TEAM = 'control';
const WRAPPER = fileURLToPath(
  new URL('../test-fixtures/tmux-counting-wrapper.sh', import.meta.url),
);
const REAL_TMUX = execFileSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).trim();
let socketName: string;
let team: ReturnType<typeof makeTeamRoot>;
let backend: Backend | undefined;
let log: string;

/** The tmux client processes the backend started since `from` (one logged argv each). */
function clientCalls(from = 0): string[] {
  return readFileSync(log, 'utf8').split('\n').filter(Boolean).slice(from);
}

/** Control-mode clients attached to the test server: `[pid, …]`. */
function controlClients(): number[] {
  return tmuxOn(socketName, ['list-clients', '-F', '#{client_control_mode} #{client_pid}'])
    .split('\n')
    .filter((line) => line.startsWith('1 '))
    .map((line) => Number(line.split(' ')[1]));
}

function parentOf(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

beforeEach(() => {
  socketName = testSocketName();
  team = makeTeamRoot(TEAM);
  log = join(team.root, 'tmux-calls.log');
  writeFileSync(log, '');
  process.env.TMUX_COUNT_LOG = log;
  process.env.TMUX_COUNT_REAL = REAL_TMUX;
});

afterEach(async () => {
  await backend?.close().catch(() => undefined);
  backend = undefined;
  delete process.env.TMUX_COUNT_LOG;
  delete process.env.TMUX_COUNT_REAL;
  killTestServer(socketName);
  team.remove();
});

describe('quoting for the control-mode command parser', () => {
  it('quotes what tmux would otherwise expand or split', () => {
    expect(quoteForTmuxParser('a;')).toBe('"a;"');
    expect(quoteForTmuxParser('$HOME "x" \\')).toBe('"\\$HOME \\"x\\" \\\\"');
    expect(quoteForTmuxParser('~/x')).toBe('"\\~/x"');
    expect(quoteForTmuxParser('one\ntwo')).toBe('"one\\ntwo"');
    expect(controlLine([['a', 'b'], ['c']])).toBe('"a" "b" ; "c"');
  });
});

describe('tmux backend control-mode client (R17)', () => {
  it('after the first spawn, spawns and reconciling start no tmux client process; argv passes exactly', async () => {
    backend = createTmuxBackend({ socketName, tmuxPath: WRAPPER, pollIntervalMs: 100 });
    const first = (await backend.spawn(
      scriptMember(team.root, TEAM, 'first', 'exec sleep 1000'),
    )) as TmuxMemberHandle;
    // The second spawn waits for the control-mode client the first one started to attach.
    await backend.spawn(scriptMember(team.root, TEAM, 'second', 'exec sleep 1000'));
    const before = clientCalls().length;
    expect(clientCalls().filter((call) => call.includes(' -C attach-session '))).toHaveLength(1);

    const output = join(team.root, 'argv.txt');
    const tricky = ['a;', ';', 'b\\;', "it's $HOME", '~/x', '#{pid}', 'two\nlines', '', '"q"'];
    const members = [];
    for (let index = 0; index < 4; index++) {
      members.push(
        (await backend.spawn(
          scriptMember(team.root, TEAM, `warm${index}`, 'exec sleep 1000'),
        )) as TmuxMemberHandle,
      );
    }
    const exact = (await backend.spawn({
      ...scriptMember(team.root, TEAM, 'exact', ''),
      environment: { TRICKY: '~x;\n$HOME' },
      command: {
        file: 'sh',
        args: [
          '-c',
          `'${process.execPath}' -e 'console.log(JSON.stringify(process.argv.slice(1)))' -- "$@" "$TRICKY" > ${output}.part && mv ${output}.part ${output}; exec sleep 1000`,
          'sh',
          ...tricky,
        ],
      },
    })) as TmuxMemberHandle;
    await pollUntil('the argv file', () => existsSync(output) && readFileSync(output, 'utf8'));
    expect(JSON.parse(readFileSync(output, 'utf8'))).toEqual([...tricky, '~x;\n$HOME']);
    // Let the reconciler run a few rounds too.
    await new Promise((resolve) => setTimeout(resolve, 400));

    expect(clientCalls(before)).toEqual([]);
    for (const member of [first, ...members, exact]) expect(member.isAlive()).toBe(true);
    const [control] = controlClients();
    expect(controlClients()).toHaveLength(1);
    expect(parentOf(control as number)).toBe(process.pid);
  });

  it('the client ends with its server, the next spawn attaches a new one to the new server, close() ends it', async () => {
    backend = createTmuxBackend({ socketName, tmuxPath: WRAPPER, pollIntervalMs: 100 });
    const first = (await backend.spawn(
      scriptMember(team.root, TEAM, 'first', 'exec sleep 1000'),
    )) as TmuxMemberHandle;
    await backend.spawn(scriptMember(team.root, TEAM, 'second', 'exec sleep 1000'));
    const [oldControl] = controlClients();
    expect(oldControl).toBeDefined();

    tmuxOn(socketName, ['kill-server']);
    await pollUntil('the old control-mode client to end', () => !processRuns(oldControl as number));
    const again = (await backend.spawn(
      scriptMember(team.root, TEAM, 'again', 'exec sleep 1000'),
    )) as TmuxMemberHandle;
    expect(again.identity.serverPid).not.toBe(first.identity.serverPid);
    await backend.spawn(scriptMember(team.root, TEAM, 'fourth', 'exec sleep 1000'));
    const [newControl] = controlClients();
    expect(newControl).toBeDefined();
    expect(newControl).not.toBe(oldControl);
    expect(
      tmuxOn(socketName, ['display-message', '-p', '#{pid}']).trim(),
      'the new client is attached to the new server',
    ).toBe(String(again.identity.serverPid));

    await backend.close();
    backend = undefined;
    await pollUntil('the control-mode client to end', () => !processRuns(newControl as number));
    expect(processRuns(again.identity.serverPid)).toBe(false);
  });
});

describe('the private server runner never starts a server of its own', () => {
  it('new-session with -N fails with "no server" where a plain client would start a daemon server', async () => {
    const runner = new TmuxRunner(REAL_TMUX, { socketName }, { noStartServer: true });
    const error = await runner
      .run(['new-session', '-d', '-s', 'stray', '--', 'sleep', '1000'])
      .catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(TmuxCommandError);
    expect((error as TmuxCommandError).serverMissing).toBe(true);
    expect(() => tmuxOn(socketName, ['list-sessions'])).toThrow();
  });
});
