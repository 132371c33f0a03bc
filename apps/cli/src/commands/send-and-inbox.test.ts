import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, copyReferenceState } from '../test-support/reference.js';
import { jsonOf, runMuster, snapshotTree } from '../test-support/run-cli.js';

beforeAll(assertBuilt);

async function inbox(root: string, agent: string) {
  const file = path.join(root, 'teams', 'conf-team', 'inboxes', `${agent}.json`);
  return JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>[];
}

describe('muster send and muster inbox', () => {
  it('appends a message to a Claude Code inbox, keeping what was there', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const run = await runMuster([
      'send',
      'alpha',
      'Please also add a README',
      '--summary',
      'Add a README',
      '--root',
      root,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'Sent from team-lead to alpha (teams/conf-team/inboxes/alpha.json)',
    );
    const messages = await inbox(root, 'alpha');
    expect(messages).toHaveLength(2);
    expect(Object.keys(messages[1]!)).toEqual(['from', 'text', 'summary', 'timestamp', 'read']);
    expect(messages[1]).toMatchObject({
      from: 'team-lead',
      text: 'Please also add a README',
      summary: 'Add a README',
      read: false,
    });

    const json = jsonOf<{ recipient: string; message: { from: string; color: string } }>(
      await runMuster([
        'send',
        'team-lead',
        'done with 1',
        '--from',
        'alpha',
        '--root',
        root,
        '--json',
      ]),
    );
    expect(json.recipient).toBe('team-lead');
    expect(json.message).toMatchObject({ from: 'alpha', color: 'blue' });
  });

  it('reads the text from standard input with "-", and refuses empty input', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const long = `${'line of a long report\n'.repeat(2_000)}end\n\n`;
    const run = await runMuster(['send', 'alpha', '-', '--root', root], { input: long });
    expect(run.code, run.stderr).toBe(0);
    expect((await inbox(root, 'alpha')).at(-1)?.text).toBe(long.replace(/\n+$/, ''));
    const before = await snapshotTree(root);
    const empty = await runMuster(['send', 'alpha', '-', '--root', root], { input: '\n' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('The message text is empty');
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('broadcasts to every member but the sender', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const json = jsonOf<{ recipients: string[] }>(
      await runMuster([
        'send',
        '--broadcast',
        'Stand-up now',
        '--from',
        'beta',
        '--root',
        root,
        '--json',
      ]),
    );
    expect(json.recipients).toEqual(['team-lead', 'alpha', 'gamma']);
    for (const agent of json.recipients) {
      expect((await inbox(root, agent)).at(-1)).toMatchObject({
        from: 'beta',
        text: 'Stand-up now',
      });
    }
  });

  it('refuses unknown recipients and senders, missing text, and two arguments with --broadcast, changing nothing', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const before = await snapshotTree(root);
    const unknown = await runMuster(['send', 'alhpa', 'hi', '--root', root]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('The recipient "alhpa" is not a member of team "conf-team"');
    expect(unknown.stderr).toContain('Did you mean "alpha"?');
    const sender = await runMuster(['send', 'alpha', 'hi', '--from', 'zeta', '--root', root]);
    expect(sender.code).toBe(1);
    expect(sender.stderr).toContain('--from "zeta" is not a member of team "conf-team"');
    const noText = await runMuster(['send', 'alpha', '--root', root]);
    expect(noText.code).toBe(2);
    expect(noText.stderr).toContain('muster send alpha "<text>"');
    const both = await runMuster(['send', '--broadcast', 'alpha', 'hi', '--root', root]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('With --broadcast give only the text');
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('reads an inbox with protocol messages in words, only unread ones, and marks them read', async () => {
    const root = await copyReferenceState('11-all-shutdowns-approved');
    const all = await runMuster(['inbox', 'beta', '--root', root]);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain(
      "beta's plan was rejected: Please also cover the empty-name case.",
    );
    expect(all.stdout).toContain(
      'team-lead asks beta to shut down: Thanks beta, shutting the team down.',
    );
    expect(all.stdout).not.toContain('{"type"');
    const unread = jsonOf<{
      total: number;
      unread: number;
      messages: { index: number; kind: string; words: string }[];
    }>(await runMuster(['inbox', 'team-lead', '--unread', '--root', root, '--json']));
    expect(unread.total).toBe(23);
    expect(unread.unread).toBe(23);
    expect(unread.messages[0]).toMatchObject({
      index: 0,
      kind: 'permission_request',
      words: 'gamma asks to run Write: /tmp/cc-team-run.VrSyaN/repo/gamma.txt',
    });
    const marked = await runMuster([
      'inbox',
      'team-lead',
      '--unread',
      '--mark-read',
      '--root',
      root,
    ]);
    expect(marked.code).toBe(0);
    expect(marked.stdout).toContain('Marked 23 messages read.');
    expect((await inbox(root, 'team-lead')).every((message) => message.read === true)).toBe(true);
    const none = await runMuster(['inbox', 'team-lead', '--unread', '--root', root]);
    expect(none.stdout).toContain('team-lead has no unread messages in team conf-team (23 read).');
  });

  it('refuses the inbox of an agent who is not in the team', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const before = await snapshotTree(root);
    const run = await runMuster(['inbox', 'zeta', '--root', root]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'Agent "zeta" is not a member of team "conf-team" (members: team-lead, alpha, beta, gamma).',
    );
    expect(await snapshotTree(root)).toEqual(before);
  });
});
