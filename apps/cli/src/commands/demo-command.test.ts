import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../test-support/reference.js';
import { jsonOf, runMuster } from '../test-support/run-cli.js';

beforeAll(assertBuilt);

describe('muster demo', () => {
  it('creates a team that shows every kind of state, and passes the doctor', async () => {
    const root = await makeTempDirectory('muster-cli-demo-');
    const run = await runMuster(['demo', '--root', root]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Created the demo team demo in ${root}`);
    expect(run.stdout).toContain(`muster watch --root ${root}`);
    const model = jsonOf<{
      members: { name: string; state: string }[];
      tasks: { id: string; status: string; openBlockers: string[] }[];
      feed: { sentence: string; kind: string }[];
    }>(await runMuster(['watch', '--root', root, '--json']));
    expect(model.members.map((member) => [member.name, member.state])).toEqual([
      ['team-lead', 'working'],
      ['alpha', 'working'],
      ['beta', 'awaiting plan approval'],
      ['gamma', 'idle'],
    ]);
    expect(model.tasks.map((task) => [task.id, task.status, task.openBlockers])).toEqual([
      ['1', 'in_progress', []],
      ['2', 'pending', ['1']],
      ['3', 'pending', ['2']],
      ['4', 'completed', []],
    ]);
    const sentences = model.feed.map((entry) => entry.sentence);
    expect(sentences).toContain('gamma asks to run Bash: npm test');
    expect(sentences).toContain("beta's plan was rejected: Please also cover the empty-name case.");
    expect(sentences).toContain('team-lead to everyone: Stand-up in five minutes');
    expect(sentences).toContain('gamma went idle after finishing task #4');
    const doctor = await runMuster(['doctor', '--root', root]);
    expect(doctor.code).toBe(0);
  });

  it('uses a fresh temporary folder without --root, and says where (JSON too)', async () => {
    const demo = jsonOf<{ root: string; team: string; members: string[] }>(
      await runMuster(['demo', '--json']),
    );
    try {
      expect(path.dirname(demo.root)).toBe(tmpdir());
      expect(path.basename(demo.root)).toMatch(/^muster-demo-/);
      expect(demo.team).toBe('demo');
      expect(demo.members).toEqual(['team-lead', 'alpha', 'beta', 'gamma']);
      expect(existsSync(path.join(demo.root, 'teams', 'demo', 'config.json'))).toBe(true);
    } finally {
      await rm(demo.root, { recursive: true, force: true });
    }
  });

  it('names the temporary folder it keeps, and removes the one it made for --watch', async () => {
    const kept = await runMuster(['demo']);
    expect(kept.code).toBe(0);
    const keptRoot = /Created the demo team demo in (\S+)/.exec(kept.stdout)?.[1] ?? '';
    try {
      expect(path.basename(keptRoot)).toMatch(/^muster-demo-/);
      expect(existsSync(path.join(keptRoot, 'teams', 'demo', 'config.json'))).toBe(true);
      expect(kept.stdout).toContain(`remove it when you are done: rm -rf ${keptRoot}`);
    } finally {
      await rm(keptRoot, { recursive: true, force: true });
    }

    // Without a terminal, --watch prints one frame and returns: the folder goes with it.
    const watched = await runMuster(['demo', '--watch']);
    expect(watched.code).toBe(0);
    const watchedRoot = /Created the demo team demo in (\S+)/.exec(watched.stdout)?.[1] ?? '';
    expect(path.basename(watchedRoot)).toMatch(/^muster-demo-/);
    expect(watched.stdout).toContain('alpha');
    expect(watched.stdout).toContain(`Removed the temporary demo folder ${watchedRoot}.`);
    expect(existsSync(watchedRoot)).toBe(false);
  });
});
