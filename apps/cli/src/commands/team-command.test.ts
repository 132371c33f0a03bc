import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, copyReferenceState } from '../test-support/reference.js';
import { jsonOf, runMuster, snapshotTree } from '../test-support/run-cli.js';

beforeAll(assertBuilt);

describe('muster team', () => {
  it('creates a team with its lead, in Claude Code’s format, and says what to do next', async () => {
    const root = await makeTempDirectory('muster-cli-team-');
    const run = await runMuster([
      'team',
      'create',
      'Docs Team',
      '--description',
      'Rewrite the docs',
      '--root',
      root,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Created team docs-team (from "Docs Team")');
    expect(run.stdout).toContain('muster watch docs-team');
    const text = await readFile(path.join(root, 'teams', 'docs-team', 'config.json'), 'utf8');
    expect(text.endsWith('\n')).toBe(false);
    const config = JSON.parse(text) as {
      name: string;
      description: string;
      members: { name: string }[];
    };
    expect(config.name).toBe('docs-team');
    expect(config.description).toBe('Rewrite the docs');
    expect(config.members.map((member) => member.name)).toEqual(['team-lead']);
    expect(existsSync(path.join(root, 'tasks', 'docs-team', '.lock'))).toBe(true);

    const json = jsonOf<{ team: string; leadAgentId: string; config: { name: string } }>(
      await runMuster(['team', 'create', 'docs team', '--root', root, '--json']),
    );
    expect(json.team).toBe('docs-team-2');
    expect(json.leadAgentId).toBe('team-lead@docs-team-2');
  });

  it('refuses a name without letters or digits, writing nothing', async () => {
    const root = await makeTempDirectory('muster-cli-team-');
    const run = await runMuster(['team', 'create', '!!!', '--root', root]);
    expect(run.code).toBe(2); // a wrong command line (README: exit code 2)
    expect(run.stderr).toContain('has no letters or digits');
    expect(await snapshotTree(root)).toEqual({});
  });

  it('lists teams with members and task counts, as text and JSON', async () => {
    const root = await copyReferenceState('11-all-shutdowns-approved');
    const run = await runMuster(['team', 'list', '--root', root]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /conf-team\s+4 members \(1 unknown, 3 gone\)\s+2\/3 tasks done\s+Conformance fixture team/,
    );
    const json = jsonOf<{
      teams: { name: string; members: string[]; tasks: { total: number; completed: number } }[];
    }>(await runMuster(['team', 'list', '--root', root, '--json']));
    expect(json.teams).toEqual([
      expect.objectContaining({
        name: 'conf-team',
        members: ['team-lead', 'alpha', 'beta', 'gamma'],
        tasks: { total: 3, completed: 2 },
      }),
    ]);
  });

  it('shows a team with each member’s state', async () => {
    const root = await copyReferenceState('11-all-shutdowns-approved');
    const before = await snapshotTree(root);
    const run = await runMuster(['team', 'show', '--root', root]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/alpha\s+in-process\s+gone/);
    expect(run.stdout).toContain('3 (2 completed, 0 in progress, 1 pending), 3 internal hidden');
    const json = jsonOf<{ members: { name: string; state: string }[] }>(
      await runMuster(['team', 'show', 'conf-team', '--root', root, '--json']),
    );
    // No process is known for the lead and its last message is long past (CLI display).
    expect(json.members.map((member) => member.state)).toEqual(['unknown', 'gone', 'gone', 'gone']);
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('deletes a team with only its lead; refuses one with teammates, changing nothing', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    expect((await runMuster(['team', 'create', 'solo', '--root', root])).code).toBe(0);
    const before = await snapshotTree(root);
    const refused = await runMuster(['team', 'delete', 'conf-team', '--root', root]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('alpha');
    expect(await snapshotTree(root)).toEqual(before);
    const missing = await runMuster(['team', 'delete', 'nope', '--root', root]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('"nope"');
    const deleted = jsonOf<{ team: string; deleted: boolean }>(
      await runMuster(['team', 'delete', 'solo', '--root', root, '--json']),
    );
    expect(deleted).toEqual({ team: 'solo', deleted: true, removedMembers: [] });
    expect(existsSync(path.join(root, 'teams', 'solo'))).toBe(false);
    expect(existsSync(path.join(root, 'tasks', 'solo'))).toBe(false);
  });
});
