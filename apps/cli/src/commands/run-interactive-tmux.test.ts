// `muster demo --run` as a person uses it: the built CLI in a real terminal (a tmux session on a
// private `-L` socket, 80×24), driven with `send-keys` and checked with `capture-pane` at every
// step. The only fake is the model: @muster/scripted-model's `demo-team` script (a TEST DOUBLE,
// and every screen says so). The team, its files, git, the tests it runs, carol's tmux pane and
// every process are real; afterwards nothing of the team runs and `muster doctor` passes.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEMO_TEAM_PROMPT } from '@muster/scripted-model';
import { makeTempDirectory } from '@muster/test-utils';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SCRIPTED_DEMO_BANNER, SHORT_DEMO_BANNER } from '../interactive/panel-rows.js';
import { assertBuilt, builtCli } from '../test-support/reference.js';
import { jsonOf, runMuster } from '../test-support/run-cli.js';
import { processesInvolving } from '../test-support/processes.js';

beforeAll(assertBuilt);

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) {
  console.warn(
    'tmux is not installed: skipping the interactive `muster demo --run` test (CI installs tmux).',
  );
}

/** The color parameters (30–38, 40–48, 90–97, 100–107) of every SGR sequence in `text`. */
function colorsDrawn(text: string): string[] {
  const colors: string[] = [];
  // eslint-disable-next-line no-control-regex -- SGR sequences as capture-pane -e writes them
  for (const match of text.matchAll(/\u001b\[([0-9;]*)m/g)) {
    for (const parameter of (match[1] ?? '').split(';')) {
      const code = Number(parameter);
      if (
        (code >= 30 && code <= 38) ||
        (code >= 40 && code <= 48) ||
        (code >= 90 && code <= 97) ||
        (code >= 100 && code <= 107)
      ) {
        colors.push(parameter);
      }
    }
  }
  return colors;
}

/** The demo script that plays three teammates and a person's answers (see the flow below). */
const demoForPeople = DEMO_TEAM_PROMPT.includes('three teammates');
if (hasTmux && !demoForPeople) {
  console.warn(
    'the demo-team script still plays two teammates: skipping the person-led `muster demo --run` test until its three-teammate flow is in.',
  );
}

/** `muster doctor --json --root <root>`: its report, error findings and exit code. */
async function doctorOf(root: string) {
  const doctor = await runMuster(['doctor', '--json', '--root', root]);
  const report = jsonOf<{
    ok: boolean;
    teams: string[];
    findings: { severity: string; message: string }[];
  }>(doctor);
  return {
    report,
    errors: report.findings.filter((finding) => finding.severity === 'error'),
    code: doctor.code,
    output: doctor.stdout + doctor.stderr,
  };
}

const kept: string[] = [];
afterAll(async () => {
  for (const folder of kept) await rm(folder, { recursive: true, force: true });
});

describe.skipIf(!hasTmux)('muster demo --run in a real terminal (tmux, 80×24)', () => {
  const socket = `muster-run-test-${process.pid}-${Date.now()}`;
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', timeout: 10_000 });
  afterEach(() => {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
  });

  it.skipIf(!demoForPeople)(
    'a person leads the scripted demo team: prompt, three teammates, a permission approved, a plan rejected with feedback, a message, Esc, Ctrl-C; nothing left running, doctor passes',
    async () => {
      const base = await makeTempDirectory('muster-cli-interactive-');
      kept.push(base);
      const temporary = path.join(base, 'tmp');
      const home = path.join(base, 'home');
      await mkdir(temporary);
      await mkdir(home);
      const log = path.join(base, 'muster.log');
      const command = [
        `env -u ANTHROPIC_API_KEY -u ANTHROPIC_AUTH_TOKEN -u ANTHROPIC_BASE_URL -u MUSTER_HOME -u MUSTER_TEAM`,
        `TMPDIR=${JSON.stringify(temporary)} HOME=${JSON.stringify(home)}`,
        `${JSON.stringify(process.execPath)} ${JSON.stringify(builtCli)} demo --run 2>${JSON.stringify(log)};`,
        `echo "muster exited with $?"; sleep 120`,
      ].join(' ');
      tmux(
        '-f',
        '/dev/null',
        'new-session',
        '-d',
        '-x',
        '80',
        '-y',
        '24',
        '-s',
        'lead',
        '-e',
        'NO_COLOR=',
        command,
      );
      // carol's pane splits this window: the app is checked in its own pane, by id.
      const leadPane = tmux('display-message', '-p', '-t', 'lead', '#{pane_id}').trim();
      const screen = () => tmux('capture-pane', '-p', '-t', leadPane);
      const keys = (...names: string[]) => tmux('send-keys', '-t', leadPane, ...names);
      // Text, then a pause: a person's Enter comes after the text, not in the same write.
      const type = async (text: string) => {
        tmux('send-keys', '-t', leadPane, '-l', text);
        await sleep(150);
      };
      const screenWhere = async (
        what: string,
        check: (text: string) => boolean,
        timeoutMs = 30_000,
      ) => {
        const started = Date.now();
        let last = '';
        while (Date.now() - started < timeoutMs) {
          last = screen();
          // ink redraws by erasing and writing: a capture can catch a frame half drawn, so the
          // screen counts once two captures in a row agree.
          if (check(last)) {
            await sleep(100);
            const again = screen();
            if (again === last) return last;
          }
          await sleep(50);
        }
        const stderr = await readFile(log, 'utf8').catch(() => '(no stderr yet)');
        throw new Error(
          `${what} did not show within ${timeoutMs} ms. Screen:\n${last}\nstderr:\n${stderr}`,
        );
      };
      const screenWith = (text: string, timeoutMs?: number) =>
        screenWhere(JSON.stringify(text), (shown) => shown.includes(text), timeoutMs);
      // Tab (one key per write) until `text` shows: the teammates join in any order (alice's
      // worktree is made before she joins), so their places in the panel vary.
      const tabTo = async (text: string) => {
        for (let step = 0; step < 4; step += 1) {
          keys('Tab');
          const shown = await screenWith(text, 1_500).catch(() => undefined);
          if (shown !== undefined) return shown;
        }
        return screenWith(text);
      };

      // 1. The app starts with the banner and the demo's prompt on the prompt line.
      const first = await screenWith('lead> ');
      expect(first.split('\n')[0]).toBe(SCRIPTED_DEMO_BANNER);
      expect(first).toContain('team (none yet)');
      expect(first).toMatch(/teammates\._? *$/m);
      const demoFolder = /remove it with rm -rf (\S+)/.exec(await readFile(log, 'utf8'))?.[1];
      expect(demoFolder, 'the demo names its folder on stderr').toBeDefined();
      const folder = demoFolder!.replace(/^'|'$/g, '');

      // 2. Enter sends it; three teammates appear in the panel, carol in her own tmux pane.
      keys('Enter');
      const spawned = await screenWhere(
        'three teammates',
        (shown) =>
          /Teammates \(3\)/.test(shown) &&
          /alice/.test(shown) &&
          /bob/.test(shown) &&
          /carol/.test(shown),
      );
      // alice's worktree is made before she joins: the three may join in any order.
      expect(spawned).toMatch(/[123] alice\s+in-process/);
      expect(spawned).toMatch(/[123] bob\s+in-process/);
      expect(spawned).toMatch(/[123] carol\s+tmux/);
      // The pane is 60 % of the window now: the banner's short form, whole.
      expect(spawned.split('\n')[0]).toBe(SHORT_DEMO_BANNER);

      // 3. Both asks wait: bob's plan is rejected with feedback, alice's npm test put aside.
      let rejected = false;
      for (let step = 0; ; step += 1) {
        expect(step, 'the asks were answered or put aside within 8 steps').toBeLessThan(8);
        const shown = await screenWhere(
          'an ask, or both put aside',
          (text) =>
            /\[(alice|bob)\] asks to/.test(text) ||
            (rejected && text.includes('2 requests waiting')),
        );
        if (!/\[(alice|bob)\] asks to/.test(shown)) break;
        if (!rejected && shown.includes('[bob] asks to approve its plan')) {
          expect(shown).toContain('# Plan: tests and docs for slugify()');
          keys('x'); // wrong key: nothing is answered, the hint says which keys answer
          await screenWith('Answer the request first: press y (approve)');
          keys('n');
          await screenWith('Feedback for the teammate:');
          await type('Also cover emoji');
          keys('Enter');
          rejected = true;
          await screenWhere('the feedback sent', (text) => !text.includes('Feedback for the'));
        } else {
          // alice's npm test, then bob's revised plan: put aside for now.
          keys('l');
          await screenWhere('the ask put aside', (text) => text !== shown);
        }
      }
      const aside = screen();
      expect(aside).toContain('2 requests waiting: Ctrl-R to answer');
      expect(aside).toMatch(/^lead>/m);

      // 4. A message to carol (Tab to select her); she answers in her own pane.
      await tabTo('alice (in-process): its conversation, live');
      const carolView = await tabTo('carol (tmux): its messages');
      expect(carolView).toMatch(/attach: tmux/);
      await type('How is it going?');
      keys('Enter');
      await screenWith('team-lead → carol: How is it going?');
      const carolPane = tmux('list-panes', '-t', 'lead', '-F', '#{pane_id}')
        .split('\n')
        .map((line) => line.trim())
        .find((id) => id !== '' && id !== leadPane);
      expect(carolPane, "carol's pane splits the lead's window").toBeDefined();
      await (async () => {
        for (let waited = 0; waited < 30_000; waited += 100) {
          if (
            tmux('capture-pane', '-p', '-J', '-t', carolPane!).includes(
              'carol here: thanks, I read your message',
            )
          )
            return;
          await sleep(100);
        }
        throw new Error(
          `carol's pane never answered:\n${tmux('capture-pane', '-p', '-J', '-t', carolPane!)}`,
        );
      })();

      // 5. Esc during a lead turn interrupts the lead only.
      await tabTo("the lead's conversation");
      // The scripted lead pauses 3 s before it answers a person's question: Esc lands in that
      // window. On a loaded machine the window can pass first; then the question is asked again.
      let interrupted = '';
      for (let attempt = 1; attempt <= 3 && interrupted === ''; attempt += 1) {
        await type('How is the team doing?');
        keys('Enter');
        // The lead pane is 60 % of 80 columns once carol's pane split it: hints are cut, not this.
        for (let waited = 0; waited < 10_000; waited += 25) {
          if (/0 team-lead\s+lead\s+working/.test(screen())) break;
          await sleep(25);
        }
        keys('Escape');
        const outcome = await screenWhere(
          'the interrupt, or the lead answering',
          (text) =>
            text.includes('the turn was interrupted') ||
            text.includes('Let me see where the team stands'),
        );
        if (outcome.includes('the turn was interrupted')) interrupted = outcome;
      }
      expect(interrupted).toContain("Interrupted the lead's turn (Esc)");
      await type('go on');
      keys('Enter');
      await screenWith('Going on after the interruption');

      // 6. Ctrl-R brings the asks back: alice's npm test is approved, and the team keeps going;
      // bob's revised plan is put aside again.
      keys('C-r');
      await screenWith('[alice] asks to use Bash');
      keys('y');
      const revised = await screenWith('[bob] asks to approve its plan');
      expect(revised).toContain('(revised)');
      keys('l');
      await screenWhere('alice and carol done', (text) => /Tasks \(4, 2 done\)/.test(text));
      await tabTo('alice (in-process): its conversation, live');
      let found = false;
      for (let page = 0; page < 6 && !found; page += 1) {
        found = screen().includes('Bash(npm test) ✔');
        if (!found) {
          keys('PPage');
          await sleep(300);
        }
      }
      expect(found, "alice's transcript shows her npm test, allowed and run").toBe(true);
      keys('End');

      // The team's files, mid-work, pass the doctor.
      const during = await doctorOf(path.join(folder, 'muster-home'));
      expect(during.report.teams, during.output).toContain('slugify-team');
      expect(during.errors).toEqual([]);
      expect(during.code, during.output).toBe(0);

      // 7. Ctrl-C with bob's plan still waiting: the countdown, then everything ends.
      keys('C-c');
      await screenWith('SHUTTING DOWN:');
      await screenWith('muster exited with 0', 40_000);
      const stderr = await readFile(log, 'utf8');
      // The team is named even when the lead deleted it after every teammate approved.
      expect(stderr).toMatch(
        /muster: session ended \(Ctrl-C\) for team slugify-team( \(deleted by the lead\))?: shut down: /,
      );
      expect(tmux('list-panes', '-t', 'lead', '-F', '#{pane_id}').trim()).toBe(leadPane);
      expect(processesInvolving(folder)).toEqual([]);
      // Afterwards too (the lead may have deleted the team once every teammate approved).
      const after = await doctorOf(path.join(folder, 'muster-home'));
      expect(after.errors).toEqual([]);
      expect(after.code, after.output).toBe(0);
    },
    240_000,
  );

  it('with NO_COLOR: a plain frame at 80×24; a second Ctrl-C ends everything at once, nothing left running', async () => {
    const base = await makeTempDirectory('muster-cli-interactive-plain-');
    kept.push(base);
    const temporary = path.join(base, 'tmp');
    await mkdir(temporary);
    const log = path.join(base, 'muster.log');
    tmux(
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-x',
      '80',
      '-y',
      '24',
      '-s',
      'plain',
      `env -u ANTHROPIC_API_KEY -u ANTHROPIC_AUTH_TOKEN -u ANTHROPIC_BASE_URL -u MUSTER_HOME NO_COLOR=1 TMPDIR=${JSON.stringify(temporary)} HOME=${JSON.stringify(base)} ${JSON.stringify(process.execPath)} ${JSON.stringify(builtCli)} demo --run --teammate-mode in-process 2>${JSON.stringify(log)}; echo "muster exited with $?"; sleep 120`,
    );
    const screen = (escapes = false) =>
      tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', 'plain');
    const screenWith = async (text: string, timeoutMs = 30_000) => {
      for (let waited = 0; waited < timeoutMs; waited += 150) {
        const shown = screen();
        if (shown.includes(text)) {
          await sleep(100);
          if (screen() === shown) return shown;
        }
        await sleep(50);
      }
      throw new Error(`"${text}" did not show. Screen:\n${screen()}`);
    };
    await screenWith('lead> ');
    tmux('send-keys', '-t', 'plain', 'Enter');
    const working = await screenWith('asks to');
    // Plain ASCII marks and no color: capture-pane -e keeps every SGR sequence it drew.
    expect(working).toMatch(/^▸0 team-lead/m);
    expect(colorsDrawn(screen(true))).toEqual([]);
    const lines = working.split('\n');
    expect(lines[0]).toBe(SCRIPTED_DEMO_BANNER);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(80);
    const folder = /remove it with rm -rf (\S+)/.exec(await readFile(log, 'utf8'))?.[1];
    expect(folder).toBeDefined();
    tmux('send-keys', '-t', 'plain', 'C-c');
    await screenWith('SHUTTING DOWN:');
    tmux('send-keys', '-t', 'plain', 'C-c');
    await screenWith('muster exited with 0', 20_000);
    expect(await readFile(log, 'utf8')).toContain('everything was ended at once');
    expect(processesInvolving(folder!.replace(/^'|'$/g, ''))).toEqual([]);
  }, 120_000);
});
