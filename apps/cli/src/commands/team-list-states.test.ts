import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, copyReferenceState } from '../test-support/reference.js';
import { jsonOf, runMuster } from '../test-support/run-cli.js';
import { describeMemberStates } from '../watch/member-state-summary.js';

beforeAll(assertBuilt);

describe('muster team list shows what is known about each member', () => {
  it('counts members by state: a Claude Code team long over is 1 unknown, 3 gone, not working', async () => {
    const root = await copyReferenceState('11-all-shutdowns-approved');
    expect((await runMuster(['team', 'create', 'fresh', '--root', root])).code).toBe(0);
    const run = await runMuster(['team', 'list', '--root', root]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/conf-team\s+4 members \(1 unknown, 3 gone\)/);
    expect(run.stdout).toMatch(/fresh\s+1 member \(1 unknown\)/);
    const json = jsonOf<{ teams: { name: string; memberStates: Record<string, string> }[] }>(
      await runMuster(['team', 'list', '--root', root, '--json']),
    );
    expect(json.teams.find((team) => team.name === 'conf-team')?.memberStates).toEqual({
      'team-lead': 'unknown',
      alpha: 'gone',
      beta: 'gone',
      gamma: 'gone',
    });
  });

  it('orders the counts from working to gone', () => {
    expect(describeMemberStates({ a: 'gone', b: 'working', c: 'idle', d: 'working' })).toBe(
      '2 working, 1 idle, 1 gone',
    );
  });
});
