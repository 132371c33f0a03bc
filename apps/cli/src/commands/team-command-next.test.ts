import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, builtCli } from '../test-support/reference.js';
import { runMuster } from '../test-support/run-cli.js';

beforeAll(assertBuilt);

/**
 * Runs a printed command line as a user pasting it into a shell would: `sh -c`, with
 * `muster` being the built CLI, in another folder and without MUSTER_HOME / MUSTER_TEAM.
 */
function pasteIntoShell(
  line: string,
  home: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const environment: NodeJS.ProcessEnv = { ...process.env, HOME: home, MUSTER_CLI: builtCli };
  delete environment.MUSTER_HOME;
  delete environment.MUSTER_TEAM;
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', `muster() { "${process.execPath}" "$MUSTER_CLI" "$@"; }\n${line}`],
      { env: environment, cwd: home, encoding: 'utf8', timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        });
      },
    );
  });
}

/** The `muster …` commands in an output, one per line (after "Next:" or alone). */
function printedCommands(output: string): string[] {
  return output
    .split('\n')
    .map((line) => /(?:^|Next: |see )(muster .*)$/.exec(line.trim())?.[1])
    .filter((line): line is string => line !== undefined);
}

describe('printed next commands', () => {
  it('a non-ASCII team name gets a readable folder, and the printed commands work when pasted', async () => {
    const base = await makeTempDirectory('muster-cli-next-');
    const home = path.join(base, 'home');
    await mkdir(home);
    // A root a shell would split or expand if it were printed unquoted.
    const root = path.join(base, "it's my $root");
    const created = await runMuster(['team', 'create', 'Équipe doc', '--root', root], { home });
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Created team equipe-doc (from "Équipe doc")');
    const commands = printedCommands(created.stdout);
    expect(commands).toHaveLength(2);
    for (const command of commands) {
      expect(command).toContain('--root');
      const pasted = await pasteIntoShell(command, home);
      expect({ command, ...pasted }).toMatchObject({ code: 0 });
    }
    // The pasted `tasks add` created the task in that team under that root.
    const listed = await runMuster(['tasks', 'list', '--root', root, '--team', 'equipe-doc'], {
      home,
    });
    expect(listed.stdout).toContain('#1 <subject> [pending]');
    // Given by its original name, the team is found too.
    const shown = await runMuster(['team', 'show', 'Équipe doc', '--root', root], { home });
    expect(shown.code).toBe(0);
    for (const command of printedCommands(shown.stdout)) {
      expect({ command, ...(await pasteIntoShell(command, home)) }).toMatchObject({ code: 0 });
    }
  }, 120_000);

  it('hints carry --team when several teams make it necessary, and a $MUSTER_HOME root', async () => {
    const base = await makeTempDirectory('muster-cli-next-');
    const root = path.join(base, 'root');
    const home = path.join(base, 'home');
    await mkdir(home);
    const env = { MUSTER_HOME: root };
    expect((await runMuster(['team', 'create', 'first'], { home, env })).code).toBe(0);
    expect((await runMuster(['team', 'create', 'second'], { home, env })).code).toBe(0);
    const empty = await runMuster(['tasks', 'list', '--team', 'second'], { home, env });
    expect(empty.code).toBe(0);
    const [hint] = printedCommands(empty.stdout.replace(/^.*Add one: /m, 'Next: '));
    expect(hint).toBe(`muster tasks add '<subject>' --root ${root} --team second`);
    // Pasted in a shell without MUSTER_HOME, with two teams under the root.
    expect((await pasteIntoShell(hint!, home)).code).toBe(0);
    const second = await runMuster(['tasks', 'list', '--team', 'second'], { home, env });
    expect({ stdout: second.stdout, stderr: second.stderr }).toMatchObject({
      stdout: expect.stringContaining('#1 <subject>') as string,
    });
  }, 120_000);

  it('the "no team yet" hint keeps the root the user chose, quoted', async () => {
    const base = await makeTempDirectory('muster-cli-next-');
    const root = path.join(base, 'a root');
    const run = await runMuster(['tasks', 'list', '--root', root]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `Create one with "muster team create <name>" (with --root '${root}')`,
    );
  });

  it('refuses a name with no Latin letters or digits, with exit code 2 and what to do', async () => {
    const root = await makeTempDirectory('muster-cli-next-');
    const run = await runMuster(['team', 'create', '名前', '--root', root]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('has no ASCII letters or digits, even with accents removed');
  });
});
