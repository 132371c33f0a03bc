import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, copyReferenceState } from '../test-support/reference.js';
import { jsonOf, runMuster } from '../test-support/run-cli.js';
import { makeSessionLive } from '../test-support/session-teams.js';

beforeAll(assertBuilt);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('muster send into a Claude Code 2.1.330 session team', () => {
  it('writes 2.1.330 entries, prints the msg_id, and says how Claude Code will take the sender', async () => {
    const root = await copyReferenceState('tmux-08-permission-answered');
    const team = await makeSessionLive(root);
    const muster = (...args: string[]) => runMuster([...args, '--root', root]);
    const [asLead, asPane, asOutsider, json] = await Promise.all([
      muster('send', 'alpha', 'Please take task 2'),
      muster('send', 'team-lead', 'Done with #1', '--from', 'gamma'),
      muster('send', 'gamma', 'Build 512 failed', '--from', 'ci', '--external'),
      muster('send', 'gamma', 'Release is out', '--from', 'release-bot', '--external', '--json'),
    ]);
    const inbox = async (agent: string) =>
      JSON.parse(
        await readFile(path.join(root, 'teams', team, 'inboxes', `${agent}.json`), 'utf8'),
      ) as Record<string, unknown>[];

    expect(asLead.code).toBe(0);
    const [toAlpha] = await inbox('alpha');
    expect(Object.keys(toAlpha!)).toEqual([
      'from',
      'text',
      'timestamp',
      'msgV',
      'msg_id',
      'type',
      'read',
    ]);
    expect(toAlpha).toMatchObject({ from: 'team-lead', msgV: 1, type: 'message', read: false });
    expect(toAlpha!.msg_id).toMatch(UUID);
    expect(asLead.stdout).toContain(`msg_id ${String(toAlpha!.msg_id)}`);
    expect(asLead.stdout).toContain('marked verified="false"');
    expect(asLead.stdout).toContain('will not obey protocol requests in it');

    // A pane teammate's name is not one Claude Code checks: no note.
    expect(asPane.code).toBe(0);
    expect(asPane.stdout).not.toContain('Note:');

    expect(asOutsider.code).toBe(0);
    expect(asOutsider.stdout).toContain('unverified outsider');
    const sent = jsonOf<{ messageId: string; claudeCodeVerdict: string; notice: string }>(json);
    expect(sent.claudeCodeVerdict).toBe('outsider');
    const toGamma = await inbox('gamma');
    expect(toGamma.map((entry) => [entry.from, entry.msg_id])).toEqual(
      expect.arrayContaining([
        ['ci (outside the team)', expect.stringMatching(UUID)],
        ['release-bot (outside the team)', sent.messageId],
      ]),
    );
  });

  it('warns that nothing reads the inbox when the session has ended, and still writes the entry', async () => {
    // As recorded, the session's lead process is long gone but its team folder remains.
    const root = await copyReferenceState('tmux-08-permission-answered');
    const sent = await runMuster([
      'send',
      'gamma',
      'Anyone there?',
      '--from',
      'alpha',
      '--root',
      root,
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/Warning: the session of session-[0-9a-f]{8} has ended/);
    expect(sent.stdout).toContain('nothing reads this inbox any more');
    const teamName = /session-[0-9a-f]{8}/.exec(sent.stdout)![0];
    const gamma = JSON.parse(
      await readFile(path.join(root, 'teams', teamName, 'inboxes', 'gamma.json'), 'utf8'),
    ) as { text: string }[];
    expect(gamma.at(-1)?.text).toBe('Anyone there?');

    const live = await copyReferenceState('tmux-08-permission-answered');
    await makeSessionLive(live);
    const toLive = await runMuster([
      'send',
      'gamma',
      'Anyone there?',
      '--from',
      'alpha',
      '--root',
      live,
    ]);
    expect(toLive.code, toLive.stderr).toBe(0);
    expect(toLive.stdout).not.toContain('has ended');
  });
});
