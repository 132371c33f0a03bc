// The offline demo's team (@muster/scripted-model's `demo-team`, a TEST DOUBLE of the Messages
// API) in a real team runtime over a real git repository: alice, the repository's `implementer`
// agent type (`isolation: worktree`), works in a git worktree of her own, commits on its branch,
// and the lead merges it; once she ends, the clean worktree is removed.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { DEMO_TEAM_PROMPT } from '@muster/scripted-model';
import { describe, expect, it } from 'vitest';
import type { TeamEvent } from './team-event.js';
import { until } from './team-runtime-test-support.js';
import {
  gitIn,
  openDemoRuntime,
  repositoryTests,
  textsOf,
  untilDone,
} from './demo-team-test-support.js';

describe('the demo team with alice in a worktree of her own', () => {
  it('alice writes and commits in her worktree, the lead merges her branch, and the worktree is removed', async () => {
    const demo = await openDemoRuntime();
    const { runtime, events, cwd } = demo;
    const whileAsking: { worktrees: string; inWorktree: boolean; inMain: boolean }[] = [];
    runtime.subscribe((event) => {
      if (event.type !== 'ask') return;
      if (event.kind === 'plan') {
        void runtime.answer(event.askId, { behavior: 'allow' });
        return;
      }
      // alice asks for npm test in her worktree: look at the repository before answering.
      const spawn = events.find(
        (entry): entry is Extract<TeamEvent, { type: 'spawn' }> =>
          entry.type === 'spawn' && entry.agentName === 'alice',
      );
      const worktree = spawn?.worktreePath ?? '';
      void gitIn(cwd, 'worktree', 'list')
        .then((worktrees) =>
          whileAsking.push({
            worktrees,
            inWorktree: worktree !== '' && existsSync(join(worktree, 'src/slugify.js')),
            inMain: existsSync(join(cwd, 'src/slugify.js')),
          }),
        )
        .then(() => runtime.answer(event.askId, { behavior: 'allow' }));
    });

    await runtime.prompt(DEMO_TEAM_PROMPT);
    const spawn = events.find(
      (event): event is Extract<TeamEvent, { type: 'spawn' }> =>
        event.type === 'spawn' && event.agentName === 'alice',
    );
    const worktree = spawn?.worktreePath;
    expect(spawn?.agentType).toBe('implementer');
    expect(worktree).toContain(`${sep}.muster${sep}worktrees${sep}agents${sep}teammate-alice-`);
    expect(worktree?.startsWith(cwd)).toBe(true);
    await untilDone(demo);
    await runtime.close();

    // While alice worked, the worktree was git's and her file was only there.
    expect(whileAsking).toHaveLength(1);
    expect(whileAsking[0]?.worktrees).toContain(worktree);
    expect(whileAsking[0]?.inWorktree).toBe(true);
    expect(whileAsking[0]?.inMain).toBe(false);
    // She committed on her branch and asked the lead to merge it; the lead merged it.
    const merge = events.find(
      (event): event is Extract<TeamEvent, { type: 'message' }> =>
        event.type === 'message' && event.from === 'alice' && event.text.startsWith('Please merge'),
    );
    const branch = /^Please merge branch (\S+)/.exec(merge?.text ?? '')?.[1] ?? '';
    expect(branch).not.toBe('');
    expect(textsOf(events, 'team-lead').join('\n')).toContain(`Merging alice's branch ${branch}`);
    const tip = await gitIn(cwd, 'rev-parse', branch);
    await expect(gitIn(cwd, 'merge-base', '--is-ancestor', tip, 'HEAD')).resolves.toBe('');
    expect(await gitIn(cwd, 'log', '-1', '--format=%s', tip)).toBe('Add slugify(text)');
    expect(await gitIn(cwd, 'show', '--name-only', '--format=', tip)).toBe(
      'src/index.js\nsrc/slugify.js',
    );
    // Clean and merged: the worktree is gone, and the runtime said so.
    await until('the removal notice', () =>
      events.find(
        (event) =>
          event.type === 'notice' && event.agentName === 'alice' && event.text.includes('removed'),
      ),
    );
    expect(existsSync(worktree ?? '')).toBe(false);
    expect(await gitIn(cwd, 'worktree', 'list', '--porcelain')).not.toContain('teammate-alice');
    // The main checkout has the whole change, and its tests pass.
    expect(await readFile(join(cwd, 'src/slugify.js'), 'utf8')).toContain(
      'export function slugify',
    );
    expect(await repositoryTests(cwd)).toMatch(/# pass 4/);
  }, 60_000);
});
