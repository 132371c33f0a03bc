import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  isolatedGitEnvironment,
  makeGitRepository,
  makeTempDirectory,
  startNodeProcess,
} from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { cleanupAgentWorktree, createAgentWorktree } from './index.js';
import { testGitOptions } from './test-helpers.js';

const writerScript = fileURLToPath(new URL('./test-fixtures/racing-writer.mjs', import.meta.url));

/**
 * A `git` that opens a window for the writer right before cleanup's point of no return:
 * on the second `rev-parse --show-toplevel` (cleanup's lookup of the worktree's git
 * folder after its change check) or the first `worktree remove`, whichever comes first,
 * it lets the writer start (creates `{control}/go`) and waits until the writer has written
 * five files (`{control}/ready`) before running the real git. The writes then land after
 * the change check said "no changes" and before anything is deleted.
 */
async function gatedGit(control: string): Promise<NodeJS.ProcessEnv> {
  const folder = await makeTempDirectory('muster-gated-git-');
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  await writeFile(
    path.join(folder, 'git'),
    [
      '#!/bin/sh',
      'gate=no',
      'previous=""',
      'for argument in "$@"; do',
      `  if [ "$argument" = --show-toplevel ]; then echo >> '${control}/lookups'; [ "$(wc -l < '${control}/lookups')" -ge 2 ] && gate=yes; fi`,
      '  if [ "$previous" = worktree ] && [ "$argument" = remove ]; then gate=yes; fi',
      '  previous="$argument"',
      'done',
      `if [ $gate = yes ] && [ ! -e '${control}/go' ]; then`,
      `  : > '${control}/go'`,
      '  waited=0',
      `  while [ ! -e '${control}/ready' ] && [ $waited -lt 1200 ]; do sleep 0.05; waited=$((waited + 1)); done`,
      'fi',
      `exec '${realGit}' "$@"`,
      '',
    ].join('\n'),
  );
  await chmod(path.join(folder, 'git'), 0o755);
  return { ...isolatedGitEnvironment, PATH: `${folder}:${process.env.PATH}` };
}

async function readLines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
}

describe('cleanup racing a process that keeps writing', () => {
  for (const mode of ['absolute', 'relative'] as const) {
    it(`never deletes a file the writer wrote (${mode} paths)`, async () => {
      const repository = await makeGitRepository();
      const worktree = await createAgentWorktree(repository.path, `racer-${mode}`, testGitOptions);
      if (worktree.managedBy !== 'git') throw new Error('expected a git worktree');
      const control = await makeTempDirectory('muster-writer-control-');
      const env = await gatedGit(control);
      const writer = startNodeProcess(writerScript, [mode, worktree.path, control], {
        cwd: mode === 'relative' ? worktree.path : control,
      });
      try {
        await writer.waitForLine((line) => line === 'started');
        const result = await cleanupAgentWorktree(worktree, { env });
        const gateOpened = existsSync(path.join(control, 'go'));

        // The writer runs on after cleanup returned, then stops.
        if (!existsSync(path.join(control, 'go'))) await writeFile(path.join(control, 'go'), '');
        for (let waited = 0; !existsSync(path.join(control, 'ready')) && waited < 600; waited++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await writeFile(path.join(control, 'stop'), '');
        expect((await writer.exited).code).toBe(0);

        const written = await readLines(path.join(control, 'written.log'));
        expect(written.length).toBeGreaterThanOrEqual(5);
        const missing = written.filter(
          (name) =>
            !existsSync(path.join(worktree.path, name)) &&
            !(result.kept && existsSync(path.join(result.path, name))),
        );
        expect(missing).toEqual([]);
        if (mode === 'absolute') {
          // Five files were written after the check, before the folder could be deleted:
          // cleanup saw them once the folder was out of the writer's way, and kept it.
          expect(gateOpened).toBe(true);
          expect(result.kept && result.reason).toMatch(/Something changed while/);
        } else {
          // The writer works inside the folder: cleanup refuses before the window opens.
          expect(result.kept && result.reason).toMatch(/is in use by process \d+ .*working folder/);
        }
      } finally {
        if (writer.child.exitCode === null) writer.child.kill();
        await writer.exited;
      }
    });
  }
});
