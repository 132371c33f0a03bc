import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from './program.js';
import { builtCli, repositoryRoot } from './test-support/reference.js';

const readmePath = path.join(repositoryRoot, 'apps/cli/README.md');

function find(command: Command, name: string): Command {
  const found = command.commands.find((child) => child.name() === name);
  if (found === undefined) throw new Error(`no command ${name}`);
  return found;
}

describe('apps/cli/README.md', () => {
  it('installs only in ways that exist: no registry install of the unpublished package', async () => {
    const readme = await readFile(readmePath, 'utf8');
    expect(readme).not.toMatch(/npm\s+(install|i)\s+(-g|--global)\s+@muster\/cli/);
    expect(readme).not.toMatch(/npx\s+@muster\/cli/);
    // The alias it suggests points at the file the build makes.
    expect(readme).toContain('alias muster="node $PWD/apps/cli/dist/cli.js"');
    expect(path.relative(repositoryRoot, builtCli)).toBe('apps/cli/dist/cli.js');
  });

  it('names every command and every option of send and the dependency commands', async () => {
    const readme = await readFile(readmePath, 'utf8');
    const program = createProgram(
      {},
      { stdout: { write: () => true }, stderr: { write: () => true } },
    );
    for (const command of program.commands) {
      expect(readme).toContain(`\`${command.name()}`);
    }
    for (const tasksCommand of find(program, 'tasks').commands) {
      expect(readme).toContain(tasksCommand.name());
    }
    for (const option of find(program, 'send').options) {
      expect(readme).toContain(option.long!);
    }
    for (const option of find(program, 'run').options) {
      expect(readme).toContain(option.long!);
    }
    expect(readme).toContain('`3` stopped by `--timeout` or a signal');
    for (const option of ['--remove-blocked-by', '--remove-blocks', 'unblock <id> --by']) {
      expect(readme).toContain(option);
    }
  });
});
