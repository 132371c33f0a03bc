import { makeTempDirectory } from '@muster/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './test-support/reference.js';
import { runMuster, snapshotTree, type CliRun } from './test-support/run-cli.js';

beforeAll(assertBuilt);

/**
 * Every wrong command line ends with exit code 2 (README: "2 the command line is wrong"),
 * whatever the command, and says so on stderr as "muster: error: …"; a command that ran
 * and failed ends with 1. Checked against a real team, so a 2 is never "no team found".
 */
const wrongCommandLines: string[][] = [
  ['tasks', 'frobnicate'],
  ['doctor', '--frobnicate'],
  ['tasks', 'list', 'extra'],
  ['team', 'create'],
  ['team', 'create', '!!!'],
  ['team', 'create', ''],
  ['team', 'create', '名前'],
  ['team', 'delete'],
  ['inbox'],
  ['send'],
  ['send', 'team-lead'],
  ['send', 'team-lead', ''],
  ['send', '--broadcast', 'a', 'b'],
  ['send', 'team-lead', 'hi', '--summary', ''],
  ['tasks', 'add', ''],
  ['tasks', 'add', 'Subject', '--blocked-by', 'x'],
  ['tasks', 'show', 'abc'],
  ['tasks', 'show', '0'],
  ['tasks', 'show', '#1x'],
  ['tasks', 'claim', '1'],
  ['tasks', 'claim', 'x', '--agent', 'team-lead'],
  ['tasks', 'claim', '1', '--agent', 'a', '--from', 'b'],
  ['tasks', 'update', '1'],
  ['tasks', 'update', 'abc', '--status', 'completed'],
  ['tasks', 'update', '1', '--status', 'finished'],
  ['tasks', 'update', '1', '--add-blocked-by', '1.5'],
  ['tasks', 'update', '1', '--remove-blocked-by', '-3'],
  ['tasks', 'done'],
  ['tasks', 'done', 'one'],
  ['tasks', 'block', '1'],
  ['tasks', 'block', '2', '--by', 'first'],
  ['tasks', 'unblock', '2'],
  ['tasks', 'unblock', '2', '--by', '00'],
  ['tasks', 'list', '--team', ''],
  ['tasks', 'list', '--root', ''],
  ['tasks', 'list', '--root'],
  ['watch', '--frob'],
  ['demo', 'extra'],
];

/** Commands that are well formed but fail on what is on disk: exit code 1. */
const runtimeFailures: string[][] = [
  ['tasks', 'show', '99'],
  ['tasks', 'add', 'Subject', '--blocked-by', '99'],
  ['send', 'nobody', 'hi'],
  ['send', 'team-lead', 'hi', '--from', 'nobody'],
  ['tasks', 'update', '1', '--owner', 'nobody'],
  ['team', 'show', 'nosuch'],
  ['team', 'delete', 'nosuch'],
];

/** Runs the command lines a few at a time (the machine may have 2 cores). */
async function inBatches(
  commandLines: string[][],
  run: (args: string[]) => Promise<CliRun>,
): Promise<Array<{ args: string[]; run: CliRun }>> {
  const results: Array<{ args: string[]; run: CliRun }> = [];
  for (let index = 0; index < commandLines.length; index += 4) {
    const batch = commandLines.slice(index, index + 4);
    const runs = await Promise.all(batch.map((args) => run(args)));
    batch.forEach((args, offset) => results.push({ args, run: runs[offset]! }));
  }
  return results;
}

describe('exit codes', () => {
  it('every wrong command line, across commands, ends with exit code 2 and changes nothing', async () => {
    const root = await makeTempDirectory('muster-cli-exit-codes-');
    expect((await runMuster(['team', 'create', 'work', '--root', root])).code).toBe(0);
    expect((await runMuster(['tasks', 'add', 'First', '--root', root])).code).toBe(0);
    const before = await snapshotTree(root);
    // --root goes first so that "--root" without a value stays the last argument.
    const runs = await inBatches(wrongCommandLines, (args) => runMuster(['--root', root, ...args]));
    const wrong = runs
      .filter(
        ({ run }) =>
          run.code !== 2 || !run.stderr.startsWith('muster: error:') || run.stdout !== '',
      )
      .map(
        ({ args, run }) =>
          `${JSON.stringify(args)} → exit ${run.code}: ${run.stderr.slice(0, 160)}`,
      );
    expect(wrong).toEqual([]);
    expect(await snapshotTree(root)).toEqual(before);
  }, 240_000);

  it('with --json, a wrong command line is reported as a JSON USAGE error, still exit code 2', async () => {
    const root = await makeTempDirectory('muster-cli-exit-codes-');
    for (const args of [
      ['tasks', 'show', 'abc'],
      ['tasks', 'frobnicate'],
      ['doctor', '--frob'],
      [],
    ]) {
      const run = await runMuster(['--root', root, ...args, '--json']);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      const parsed = JSON.parse(run.stderr) as { error: { code: string; message: string } };
      expect(parsed.error.code).toBe('USAGE');
      expect(parsed.error.message).toMatch(/^[A-Z]/);
    }
  }, 120_000);

  it('a well-formed command that fails on what is on disk ends with exit code 1', async () => {
    const root = await makeTempDirectory('muster-cli-exit-codes-');
    expect((await runMuster(['team', 'create', 'work', '--root', root])).code).toBe(0);
    expect((await runMuster(['tasks', 'add', 'First', '--root', root])).code).toBe(0);
    const runs = await inBatches(runtimeFailures, (args) => runMuster(['--root', root, ...args]));
    const wrong = runs
      .filter(({ run }) => run.code !== 1 || !run.stderr.startsWith('muster: error:'))
      .map(
        ({ args, run }) =>
          `${JSON.stringify(args)} → exit ${run.code}: ${run.stderr.slice(0, 160)}`,
      );
    expect(wrong).toEqual([]);
  }, 120_000);
});
