import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, builtCli } from './test-support/reference.js';
import { hasAnsi, hasNonAscii, runMuster, snapshotTree } from './test-support/run-cli.js';

beforeAll(assertBuilt);

describe('muster (the built CLI as a process)', () => {
  it('prints its version and exits 0', async () => {
    const run = await runMuster(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('prints help with every command and examples; each command has its own help', async () => {
    const run = await runMuster(['--help']);
    expect(run.code).toBe(0);
    for (const command of ['team', 'send', 'inbox', 'tasks', 'doctor', 'watch', 'demo']) {
      expect(run.stdout).toContain(command);
    }
    expect(run.stdout).toContain('Examples:');
    const tasksHelp = await runMuster(['tasks', 'add', '--help']);
    expect(tasksHelp.code).toBe(0);
    expect(tasksHelp.stdout).toContain('--blocked-by <ids...>');
    expect(tasksHelp.stdout).toContain('$ muster tasks add');
    expect(tasksHelp.stdout).toContain('--root <dir>');
  });

  it('stops quietly when its reader closes the pipe early (muster … | head)', async () => {
    const child = spawn(process.execPath, [builtCli, 'tasks', 'add', '--help'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy(); // the reader is gone before muster writes a byte
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
    // A failing command keeps its own exit code when nobody reads its error.
    const root = await makeTempDirectory('muster-cli-root-');
    const failing = spawn(process.execPath, [builtCli, 'tasks', 'list', '--root', root], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    failing.stdout.destroy();
    failing.stderr.destroy();
    expect(await new Promise((resolve) => failing.on('close', resolve))).toBe(1);
  });

  it('refuses an unknown command or option with exit code 2 and a hint on stderr', async () => {
    const unknownCommand = await runMuster(['tasks', 'frobnicate']);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toContain("unknown command 'frobnicate'");
    expect(unknownCommand.stdout).toBe('');
    const unknownOption = await runMuster(['doctor', '--frobnicate']);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("unknown option '--frobnicate'");
    expect(unknownOption.stderr).toContain('--help');
    const badChoice = await runMuster(['tasks', 'update', '1', '--status', 'finished']);
    expect(badChoice.code).toBe(2);
    expect(badChoice.stderr).toContain(
      'Allowed choices are pending, in_progress, completed, deleted',
    );
  });

  it('uses ~/.muster by default and $MUSTER_HOME when set, and says how to create a team when there is none', async () => {
    const home = await makeTempDirectory('muster-cli-home-');
    const byDefault = await runMuster(['tasks', 'list'], { home });
    expect(byDefault.code).toBe(1);
    expect(byDefault.stderr).toContain('There is no team yet.');
    expect(byDefault.stderr).toContain('muster team create <name>');
    expect(byDefault.stderr).toContain('muster demo');
    expect(byDefault.stderr).toContain(path.join(home, '.muster', 'teams'));
    const elsewhere = path.join(home, 'elsewhere');
    const fromEnvironment = await runMuster(['tasks', 'list'], {
      home,
      env: { MUSTER_HOME: elsewhere },
    });
    expect(fromEnvironment.stderr).toContain(path.join(elsewhere, 'teams'));
    expect(await snapshotTree(home)).toEqual({});
  });

  it('picks the only team, $MUSTER_TEAM or --team, and lists the teams when the choice is ambiguous', async () => {
    const root = await makeTempDirectory('muster-cli-root-');
    for (const team of ['red', 'blue']) {
      expect((await runMuster(['team', 'create', team, '--root', root])).code).toBe(0);
    }
    const before = await snapshotTree(root);
    const ambiguous = await runMuster(['tasks', 'list', '--root', root]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain('There are 2 teams');
    expect(ambiguous.stderr).toContain('blue, red');
    expect(ambiguous.stderr).toContain('--team <name>');
    const fromEnvironment = await runMuster(['tasks', 'list', '--root', root], {
      env: { MUSTER_TEAM: 'blue' },
    });
    expect(fromEnvironment.code).toBe(0);
    expect(fromEnvironment.stdout).toContain('No tasks in team blue');
    const wrong = await runMuster(['tasks', 'list', '--root', root, '--team', 'green']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('There is no team "green"');
    expect(wrong.stderr).toContain('Teams there: blue, red.');
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('names the unreadable team config instead of saying there is no team, and refuses doctor --team', async () => {
    const root = await makeTempDirectory('muster-cli-root-');
    expect((await runMuster(['team', 'create', 'red', '--root', root])).code).toBe(0);
    await writeFile(path.join(root, 'teams', 'red', 'config.json'), '{"name": "red", ');
    const before = await snapshotTree(root);
    for (const command of [
      ['tasks', 'list'],
      ['send', 'x', 'hello'],
      ['team', 'show'],
    ]) {
      const run = await runMuster([...command, '--root', root]);
      expect(run.code, command.join(' ')).toBe(1);
      expect(run.stderr).toContain('can be read');
      expect(run.stderr).toContain('"red"');
      expect(run.stderr).toContain('muster doctor');
      expect(run.stderr).not.toContain('There is no team yet');
    }
    const doctorWithTeam = await runMuster(['doctor', '--team', 'red', '--root', root]);
    expect(doctorWithTeam.code).toBe(2);
    expect(doctorWithTeam.stderr).toContain('it has no --team');
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('prints errors as JSON on stderr with --json', async () => {
    const root = await makeTempDirectory('muster-cli-root-');
    const run = await runMuster(['tasks', 'list', '--root', root, '--json']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const error = JSON.parse(run.stderr) as { error: { code: string; message: string } };
    expect(error.error.code).toBe('NO_TEAM');
    expect(error.error.message).toContain('muster team create');
  });

  it('never prints ANSI colors or non-ASCII symbols when stdout is not a terminal', async () => {
    const root = await makeTempDirectory('muster-cli-root-');
    await mkdir(path.join(root, 'teams'), { recursive: true });
    const run = await runMuster(['team', 'create', 'plain', '--root', root]);
    expect(run.code).toBe(0);
    expect(hasAnsi(run.stdout)).toBe(false);
    expect(hasNonAscii(run.stdout)).toBe(false);
    await writeFile(path.join(root, 'teams', 'plain', 'inboxes.txt'), 'stray');
    const doctor = await runMuster(['doctor', '--root', root]);
    expect(hasAnsi(doctor.stdout)).toBe(false);
    expect(doctor.stdout).toContain('[warning]');
  });
});
