import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startNodeProcess } from '@muster/test-utils';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, builtCli, copyReferenceState } from '../test-support/reference.js';
import { jsonOf, runMuster } from '../test-support/run-cli.js';
import { makeSessionLive } from '../test-support/session-teams.js';

beforeAll(assertBuilt);

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const flashEntry = fileURLToPath(new URL('../test-fixtures/flash-entry.mjs', import.meta.url));

describe.skipIf(!hasTmux)('muster watch on a 2.1.330 session (tmux)', () => {
  const socket = `muster-history-test-${process.pid}-${Date.now()}`;
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const screenWith = async (text: string, timeoutMs = 20_000) => {
    const started = Date.now();
    let last = '';
    while (Date.now() - started < timeoutMs) {
      try {
        last = tmux('capture-pane', '-p', '-t', 'watch');
      } catch {
        last = '(no pane)';
      }
      if (last.includes(text)) return last;
      await sleep(25);
    }
    throw new Error(`"${text}" did not appear within ${timeoutMs} ms. Screen:\n${last}`);
  };

  afterEach(() => {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
  });

  it('shows and records a reply that lived 100 ms in the lead inbox, and inbox shows it delivered', async () => {
    const root = await copyReferenceState('tmux-08-permission-answered');
    const team = await makeSessionLive(root);
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(builtCli)} watch --root ${JSON.stringify(root)}; sleep 30`;
    tmux('new-session', '-d', '-x', '160', '-y', '40', '-s', 'watch', '-e', 'NO_COLOR=', command);
    await screenWith(`team ${team} — session running`);
    // The follower has started once it recorded what the inboxes already hold.
    const recorded = path.join(root, '.muster', 'history', team, 'team-lead.jsonl');
    for (let waited = 0; !existsSync(recorded); waited += 25) {
      if (waited > 20_000) throw new Error(`${recorded} never appeared: watch records no history`);
      await sleep(25);
    }
    const inbox = path.join(root, 'teams', team, 'inboxes', 'team-lead.json');
    const writer = startNodeProcess(flashEntry, [inbox, 'alpha', 'Reply that lives 100 ms', '100']);
    await writer.waitForLine((line) => line === 'removed');
    await writer.exited;
    const screen = await screenWith('alpha to team-lead: Reply that lives 100 ms');
    expect(screen).toContain('alpha to team-lead: Alpha started task 1');
    tmux('send-keys', '-t', 'watch', 'q');

    const read = jsonOf<{ messages: { text: string; delivered: boolean; index: number | null }[] }>(
      await runMuster(['inbox', 'team-lead', '--root', root, '--json']),
    );
    expect(
      read.messages.map((message) => [message.text, message.delivered, message.index]),
    ).toEqual([
      ['Started task 1 (greeting module).', false, 0],
      ['Reply that lives 100 ms', true, null],
    ]);
  });
});
