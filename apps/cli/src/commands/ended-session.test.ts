import { rm } from 'node:fs/promises';
import path from 'node:path';
import { followInboxes } from '@muster/mailbox';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, copyReferenceState } from '../test-support/reference.js';
import { jsonOf, runMuster } from '../test-support/run-cli.js';
import { makeSessionLive } from '../test-support/session-teams.js';

beforeAll(assertBuilt);

describe('muster after a Claude Code 2.1.330 session ended', () => {
  it('shows the kept task list and the recorded history, and says the session ended', async () => {
    const root = await copyReferenceState('tmux-08-permission-answered');
    const team = await makeSessionLive(root);
    // What a follower (muster watch) records while the session runs.
    const following = new AbortController();
    const follower = await followInboxes({ root, team, signal: following.signal, thread: 'main' });
    following.abort();
    await follower.stopped;
    // /exit: the team folder goes, the task list stays.
    await rm(path.join(root, 'teams', team), { recursive: true });

    const [watch, tasks, inbox, lead, list] = await Promise.all([
      runMuster(['watch', '--once', '--root', root]),
      runMuster(['tasks', 'list', '--root', root]),
      runMuster(['inbox', 'gamma', '--root', root]),
      runMuster(['inbox', 'team-lead', '--root', root, '--json']),
      runMuster(['team', 'list', '--root', root]),
    ]);
    for (const run of [watch, tasks, inbox, list]) {
      expect(run.stdout + run.stderr).not.toContain('There is no team yet');
      expect(run.code).toBe(0);
    }
    expect(watch.stdout).toContain(`team ${team} - session ended`);
    expect(watch.stdout).toContain('#3 Document greeting module');
    expect(watch.stdout).toContain('team-lead allowed gamma to run Write');
    expect(tasks.stdout).toContain(`Session ${team} has ended; Claude Code kept its task list:`);
    expect(tasks.stdout).toContain('[x] #1 Implement greeting module [completed] (alpha)');
    expect(inbox.stdout).toContain(`Session ${team} has ended`);
    expect(inbox.stdout).toMatch(/delivered \d\d:\d\d:\d\d team-lead allowed gamma to run Write/);
    expect(jsonOf<{ ended: boolean; messages: { from: string }[] }>(lead)).toMatchObject({
      ended: true,
      messages: [{ from: 'alpha' }],
    });
    expect(list.stdout).toContain(`Ended sessions (task lists Claude Code keeps after /exit):`);

    // Commands that change a team say the session ended and how to see it.
    const add = await runMuster(['tasks', 'add', 'More work', '--root', root]);
    expect(add.code).toBe(1);
    expect(add.stderr).toContain(`Claude Code session ${team} ended`);
  });
});
