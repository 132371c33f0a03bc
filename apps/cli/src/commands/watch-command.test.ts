import { execFileSync, spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, builtCli, copyReferenceState } from '../test-support/reference.js';
import { hasAnsi, hasNonAscii, jsonOf, runMuster, snapshotTree } from '../test-support/run-cli.js';

beforeAll(assertBuilt);

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) {
  console.warn(
    'tmux is not installed: skipping the live `muster watch` terminal test (CI installs tmux).',
  );
}

describe('muster watch without a terminal', () => {
  it('prints one plain ASCII frame of the 06-all-teammates-spawned reference and exits', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const before = await snapshotTree(root);
    const run = await runMuster(['watch', '--root', root]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('muster team conf-team - Conformance fixture team');
    // Recorded long ago, no process known: what alpha does now is unknown.
    expect(run.stdout).toMatch(/\* alpha\s+in-process unknown/);
    expect(run.stdout).toContain(
      '| #1 Implement greeting module - Implementing greeting module...',
    );
    expect(run.stdout).toContain('[!] #2 Test greeting module - blocked by #1');
    expect(run.stdout).toContain('alpha took task #1: Implement greeting module');
    expect(run.stdout).toContain('3 internal tasks hidden');
    expect(hasAnsi(run.stdout)).toBe(false);
    expect(hasNonAscii(run.stdout)).toBe(false);
    const once = await runMuster(['watch', 'conf-team', '--once', '--root', root]);
    expect(once.stdout).toBe(run.stdout);
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('prints what it shows as JSON with --json', async () => {
    const root = await copyReferenceState('11-all-shutdowns-approved');
    const model = jsonOf<{
      members: { name: string; state: string }[];
      feed: { sentence: string }[];
    }>(await runMuster(['watch', '--root', root, '--json']));
    expect(model.members.map((member) => member.state)).toEqual([
      'unknown',
      'gone',
      'gone',
      'gone',
    ]);
    expect(model.feed.map((entry) => entry.sentence)).toContain(
      'gamma agreed to shut down (in-process)',
    );
  });

  it('says how to create a team when there is none', async () => {
    const root = await makeTempDirectory('muster-cli-watch-');
    const run = await runMuster(['watch', '--root', root]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'There is no team yet. Create one with "muster team create <name>"',
    );
    expect(run.stderr).toContain('muster demo');
    expect(await snapshotTree(root)).toEqual({});
  });
});

describe.skipIf(!hasTmux)('muster watch in a real terminal (tmux)', () => {
  const socket = `muster-watch-test-${process.pid}-${Date.now()}`;
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', '-t', 'watch');
  const screenWith = async (text: string, timeoutMs = 15_000) => {
    const started = Date.now();
    let last = '';
    while (Date.now() - started < timeoutMs) {
      try {
        last = screen();
      } catch {
        last = '(no pane)';
      }
      if (last.includes(text)) return { screen: last, waitedMs: Date.now() - started };
      await sleep(25);
    }
    throw new Error(`"${text}" did not appear within ${timeoutMs} ms. Screen:\n${last}`);
  };

  afterEach(() => {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
  });

  it('redraws when another process changes the team on disk, and answers the keyboard, even with CI=true', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const log = path.join(root, 'watch.log');
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(builtCli)} watch --root ${JSON.stringify(root)} 2>${JSON.stringify(log)}; echo "watch exited with $?"; sleep 30`;
    // CI=true on purpose: ink draws nothing until exit under CI, and `watch` must draw anyway.
    tmux(
      'new-session',
      '-d',
      '-x',
      '160',
      '-y',
      '50',
      '-s',
      'watch',
      '-e',
      'NO_COLOR=',
      '-e',
      'CI=true',
      command,
    );
    const first = await screenWith('Members (4)');
    expect(first.screen).toContain('alpha took task #1: Implement greeting module');
    expect(first.screen).toMatch(/alpha\s+in-process\s+unknown/);

    const sent = await runMuster(['send', 'alpha', 'hello from the test', '--root', root]);
    expect(sent.code).toBe(0);
    const afterSend = await screenWith('team-lead to alpha: hello from the test');
    console.log(
      `watch showed the new message ${afterSend.waitedMs} ms after the send process exited`,
    );

    expect((await runMuster(['tasks', 'done', '1', '--from', 'alpha', '--root', root])).code).toBe(
      0,
    );
    const afterDone = await screenWith('Tasks (1/3 done)');
    expect(afterDone.screen).toMatch(/#2 Test greeting module · (pending|Testing)/);

    // A protocol message written straight into the file, as Claude Code would append it.
    const inbox = path.join(root, 'teams', 'conf-team', 'inboxes', 'team-lead.json');
    const idle = {
      type: 'idle_notification',
      from: 'beta',
      timestamp: new Date().toISOString(),
      idleReason: 'available',
    };
    await writeFile(
      inbox,
      JSON.stringify(
        [
          {
            from: 'beta',
            text: JSON.stringify(idle),
            timestamp: idle.timestamp,
            color: 'green',
            read: false,
          },
        ],
        null,
        2,
      ),
    );
    const afterIdle = await screenWith('beta went idle');
    expect(afterIdle.screen).toMatch(/beta\s+in-process\s+idle/);

    // Keyboard: the tasks pane has the focus; down selects #2, enter opens it, esc goes back.
    tmux('send-keys', '-t', 'watch', 'Down');
    tmux('send-keys', '-t', 'watch', 'Enter');
    const detail = await screenWith('Task #2: Test greeting module');
    expect(detail.screen).toContain('Write tests for greet(name)');
    tmux('send-keys', '-t', 'watch', 'Escape');
    await screenWith('Messages (');
    tmux('send-keys', '-t', 'watch', 'x');
    tmux('send-keys', '-t', 'watch', 'q');
    await screenWith('watch exited with 0');
    // ink only restores the cursor on stderr; nothing went wrong.
    const errors = await readFile(log, 'utf8');
    expect(errors.replaceAll('\u001b[?25h', '').replaceAll('\u001b[?25l', '')).toBe('');
  });

  it('opens and scrolls a 200,000-character message, and still quits with q and on SIGTERM', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const inbox = path.join(root, 'teams', 'conf-team', 'inboxes', 'team-lead.json');
    // Words, then one 100,000-character run without a space (the case that froze watch).
    let text = '';
    for (let index = 0; text.length < 100_000; index += 1) text += `word${index} `;
    text = `${text.slice(0, 99_990)} ${'abcdefghij'.repeat(10_000)} LAST-WORD`;
    const timestamp = new Date().toISOString();
    await writeFile(
      inbox,
      JSON.stringify([{ from: 'alpha', text, timestamp, color: 'blue', read: false }], null, 2),
    );
    const pidFile = path.join(root, 'watch.pid');
    const start = () => {
      const watch = `${JSON.stringify(process.execPath)} ${JSON.stringify(builtCli)} watch --root ${JSON.stringify(root)}`;
      const command = `sh -c 'echo $$ > ${pidFile}; exec ${watch.replaceAll("'", "'\\''")}'; echo "watch exited with $?"; sleep 30`;
      tmux(
        'new-session',
        '-d',
        '-x',
        '120',
        '-y',
        '40',
        '-s',
        'watch',
        '-e',
        'NO_COLOR=1',
        command,
      );
    };
    const openMessage = async () => {
      await screenWith('Members (4)');
      // The first frame can come before ink reads the keyboard: keys typed then are held by
      // the terminal and arrive later. Wait until the pane's terminal is in raw mode.
      const tty = tmux('display-message', '-p', '-t', 'watch', '#{pane_tty}').trim();
      for (
        let waited = 0;
        !/(^|\s)-icanon(\s|$)/.test(execFileSync('stty', ['-F', tty, '-a'], { encoding: 'utf8' }));
        waited += 50
      ) {
        if (waited > 15_000) throw new Error(`watch never read the keyboard:\n${screen()}`);
        await sleep(50);
      }
      tmux('send-keys', '-t', 'watch', 'Tab');
      await screenWith('Messages (2) →');
      tmux('send-keys', '-t', 'watch', 'Enter');
      return screenWith('Message from alpha');
    };

    start();
    await openMessage();
    const opened = await screenWith('lines 1-');
    expect(opened.screen).toContain('word1 word2 word3');
    tmux('send-keys', '-t', 'watch', 'NPage');
    await screenWith('lines ');
    tmux('send-keys', '-t', 'watch', 'End');
    const end = await screenWith('LAST-WORD');
    console.log(
      `the end of the 200,000-character message was on screen ${end.waitedMs} ms after End`,
    );
    tmux('send-keys', '-t', 'watch', 'q');
    await screenWith('watch exited with 0');
    spawnSync('tmux', ['-L', socket, 'kill-server']);

    start();
    await openMessage();
    const pid = Number((await readFile(pidFile, 'utf8')).trim());
    process.kill(pid, 'SIGTERM');
    const exited = await screenWith('watch exited with');
    expect(exited.screen).not.toContain('Message from alpha');
  });
});
