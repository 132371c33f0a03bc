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

describe('muster send --external', () => {
  it('sends as someone outside the team, marked so the recipient can tell, and says so in --help', async () => {
    const help = await runMuster(['send', '--help']);
    expect(help.stdout).toContain('--external');
    expect(help.stdout).toContain('outside the team');

    const root = await copyReferenceState('06-all-teammates-spawned');
    const muster = (...args: string[]) => runMuster([...args, '--root', root]);
    // Without the flag a non-member is refused, and the error says how to send from outside.
    const refused = await muster('send', 'team-lead', 'Build 512 failed', '--from', 'ci');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--from "ci" is not a member of team "conf-team"');
    expect(refused.stderr).toContain('add --external');

    const sent = await muster(
      'send',
      'team-lead',
      'Build 512 failed',
      '--from',
      'ci',
      '--external',
    );
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain('Sent from ci (outside the team) to team-lead');
    const [last] = (await inbox(root, 'team-lead')).slice(-1);
    expect(last).toEqual({
      from: 'ci (outside the team)',
      text: 'Build 512 failed',
      timestamp: expect.any(String) as string,
      read: false,
    });
    const json = jsonOf<{ external: boolean; message: { from: string } }>(
      await muster(
        'send',
        'alpha',
        'Release is out',
        '--from',
        'release-bot',
        '--external',
        '--json',
      ),
    );
    expect(json).toMatchObject({
      external: true,
      message: { from: 'release-bot (outside the team)' },
    });

    const broadcast = await muster(
      'send',
      '--broadcast',
      'Freeze at 5',
      '--from',
      'ops',
      '--external',
    );
    expect(broadcast.code).toBe(0);
    // Every member gets it, the lead included: the sender is nobody in the team.
    for (const member of ['team-lead', 'alpha', 'beta', 'gamma']) {
      expect((await inbox(root, member)).at(-1)).toMatchObject({
        from: 'ops (outside the team)',
        text: 'Freeze at 5',
      });
    }
  });

  it('never lets an outside sender speak as the lead or a member', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const muster = (...args: string[]) => runMuster([...args, '--root', root]);
    const before = await snapshotTree(root);
    const cases: Array<{ args: string[]; code: number; says: string }> = [
      { args: ['--from', 'team-lead'], code: 2, says: "names the team's lead" },
      { args: ['--from', 'Team-Lead'], code: 2, says: "names the team's lead" },
      { args: ['--from', 'alpha'], code: 1, says: 'cannot use a member' },
      { args: ['--from', 'BETA'], code: 1, says: 'cannot use a member' },
      { args: [], code: 2, says: 'say who is sending with --from' },
      { args: ['--from', 'team-lead (outside the team)'], code: 2, says: 'a plain word' },
      { args: ['--from', 'ci\u001b]0;owned\u0007'], code: 2, says: 'a plain word' },
    ];
    for (const { args, code, says } of cases) {
      const run = await muster('send', 'gamma', 'Stop everything', ...args, '--external');
      expect({ args, code: run.code, says: run.stderr.includes(says) }).toEqual({
        args,
        code,
        says: true,
      });
      // Errors echo the argument escaped, never raw control characters.
      expect(run.stderr).not.toContain('\u001b');
    }
    expect(await snapshotTree(root)).toEqual(before);
  });
});

describe('muster send: the message size limit', () => {
  it('refuses a message over the limit with exit code 2 and what to do, writing nothing', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const before = await snapshotTree(root);
    // 300,000 bytes: over the 256 KiB limit, as a pipe would bring a big diff.
    const big = 'x'.repeat(300_000);
    const run = await runMuster(['send', 'alpha', '-', '--root', root], { input: big });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('300000 bytes');
    expect(run.stderr).toContain('at most 262144 bytes (256 KiB)');
    expect(await snapshotTree(root)).toEqual(before);
    const broadcast = await runMuster(['send', '--broadcast', '-', '--root', root], {
      input: `${'é'.repeat(131_073)}`,
    });
    expect(broadcast.code).toBe(2);
    expect(broadcast.stderr).toContain('262146 bytes');
    expect(await snapshotTree(root)).toEqual(before);
    // Just under the limit goes through.
    const fits = await runMuster(['send', 'alpha', '-', '--root', root], {
      input: 'y'.repeat(262_144),
    });
    expect(fits.code).toBe(0);
  }, 120_000);
});
