import { access } from 'node:fs/promises';
import { makeTempDirectory } from '@muster/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTaskStore } from './index.js';
import { runClaimRace, runCreateRace } from './test-fixtures/races.mjs';

// Real processes contending real locks. The workers import the built package (dist), which
// `pnpm test` builds first.
beforeAll(async () => {
  await access(new URL('../dist/index.js', import.meta.url)).catch(() => {
    throw new Error(
      'packages/tasks/dist is missing: run `pnpm --filter @muster/tasks build` first.',
    );
  });
});

describe('many processes at once', () => {
  it.each([8, 32])(
    '%i processes racing to claim 300 tasks: every task claimed exactly once',
    async (processes) => {
      const root = await makeTempDirectory('muster-tasks-claim-race-');
      const figures = await runClaimRace({ root, team: 'race', processes, taskCount: 300 });
      expect(figures).toMatchObject({
        claims: 300,
        distinctClaimed: 300,
        doubleClaims: 0,
        unclaimed: 0,
        ownerMismatches: 0,
        problems: 0,
      });
      expect(figures.perProcess).toHaveLength(processes);
    },
    120_000, // 32 Node processes start slowly on a busy 2-core machine
  );

  it('8 processes creating 300 tasks at once: 300 files with 300 distinct ids', async () => {
    const root = await makeTempDirectory('muster-tasks-create-race-');
    const figures = await runCreateRace({ root, team: 'race', processes: 8, total: 300 });
    expect(figures).toMatchObject({
      files: 300,
      distinctIds: 300,
      distinctSubjects: 300,
      highestId: 300,
    });
    const listing = await createTaskStore({ root, team: 'race' }).list();
    expect(listing.tasks).toHaveLength(300);
    expect(listing.problems).toEqual([]);
  });

  it('4 busy-checked processes claim and complete 40 tasks, one task at a time each', async () => {
    const root = await makeTempDirectory('muster-tasks-busy-race-');
    const figures = await runClaimRace({
      root,
      team: 'race',
      processes: 4,
      taskCount: 40,
      mode: 'busy',
    });
    expect(figures).toMatchObject({
      claims: 40,
      distinctClaimed: 40,
      doubleClaims: 0,
      unclaimed: 0,
    });
    const listing = await createTaskStore({ root, team: 'race' }).list();
    expect(listing.tasks.every((entry) => entry.task.status === 'completed')).toBe(true);
  });
});
