// A long-lived agent that starts many background shells keeps a bounded number of ended ones:
// the oldest ended are pruned with their output files (read ones first), running shells never
// are, and a read of a pruned id says it was pruned. Real bash processes and real files.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  shellRegistry,
  type BackgroundShellStatus,
  type ShellRecord,
  type ShellRegistry,
} from './background-shells.js';
import {
  DEFAULT_MAX_FINISHED_SHELLS,
  MAX_PRUNED_NOTES,
  prunedShellError,
  pruneFinishedShells,
} from './background-shells-pruning.js';
import { createBashTool } from './bash-tool.js';
import {
  eventually,
  processesWith,
  setUpBashTool,
  trackSleepTokens,
} from './bash-tool-test-processes.js';

const token = trackSleepTokens();

describe('pruning ended background shells', () => {
  it('keeps at most maxFinishedShells ended shells, pruning read ones first, then the longest ended', async () => {
    const { tool, context, shells } = await setUpBashTool({
      killGraceMs: 300,
      maxFinishedShells: 2,
    });
    const start = async (command: string) => {
      const id = `bash-${shellRegistry(context).nextNumber}`;
      await tool.call({ command, run_in_background: true }, context);
      expect(await eventually(() => shells.get(id)?.status !== 'running')).toBe(true);
      return id;
    };
    await start('echo one');
    const outputOfTwo = shells.get(await start('echo two'))!.outputPath;
    expect((await shells.readOutput('bash-2')).output).toBe('two');
    expect(shells.list().map((shell) => shell.id)).toEqual(['bash-1', 'bash-2']);

    // A third ended shell: bash-2 goes, though bash-1 ended earlier, since its output was read.
    await start('echo three');
    expect(shells.list().map((shell) => shell.id)).toEqual(['bash-1', 'bash-3']);
    expect(await eventually(() => !existsSync(outputOfTwo))).toBe(true);
    await expect(shells.readOutput('bash-2')).rejects.toMatchObject({
      code: 'SHELL_PRUNED',
      message: expect.stringMatching(
        /^Background shell bash-2 \("echo two"\) ended \(completed, exit code 0\) and was pruned: this agent keeps the 2 background shells that ended most recently.*Run the command again/,
      ),
    });

    // Then the longest ended: bash-1. Killing a pruned shell is refused the same way.
    await start('exit 3');
    expect(shells.list().map((shell) => [shell.id, shell.status])).toEqual([
      ['bash-3', 'completed'],
      ['bash-4', 'failed'],
    ]);
    await expect(shells.kill('bash-1')).rejects.toMatchObject({ code: 'SHELL_PRUNED' });
    await expect(shells.readOutput('bash-99')).rejects.toMatchObject({ code: 'UNKNOWN_SHELL' });

    // A running shell is never pruned, however many end after it.
    const seconds = token();
    await tool.call({ command: `sleep ${seconds}`, run_in_background: true }, context);
    await start('true');
    await start('true');
    expect(shells.list().map((shell) => [shell.id, shell.status])).toEqual([
      ['bash-5', 'running'],
      ['bash-6', 'completed'],
      ['bash-7', 'completed'],
    ]);
    expect((await shells.kill('bash-5')).status).toBe('killed');
    expect(processesWith(seconds)).toEqual([]);
    // Killed, bash-5 is the most recently ended: bash-6 is the one that goes.
    expect(shells.list().map((shell) => shell.id)).toEqual(['bash-5', 'bash-7']);
    // Once its note is gone too, an id this agent gave out is still known as pruned.
    shellRegistry(context).pruned.clear();
    await expect(shells.readOutput('bash-2')).rejects.toMatchObject({
      code: 'SHELL_PRUNED',
      message: expect.stringContaining('ended long ago and was pruned'),
    });
  });

  it('an agent that starts many background shells keeps a bounded number of records and files', async () => {
    const { tool, context, shells } = await setUpBashTool({ maxFinishedShells: 3 });
    for (let index = 0; index < 20; index += 1) {
      await tool.call({ command: `echo ${index}`, run_in_background: true }, context);
    }
    const ended = () => shells.list().every((shell) => shell.status !== 'running');
    expect(await eventually(ended, 20_000)).toBe(true);
    expect(shells.list().map((shell) => shell.id)).toEqual(['bash-18', 'bash-19', 'bash-20']);
    const folder = path.dirname(shells.get('bash-20')!.outputPath);
    expect(await eventually(() => readdirSync(folder).length === 3)).toBe(true);
    expect(shellRegistry(context).pruned.size).toBe(17);
  });

  it('leaves a shell being read for a later pass, and keeps at most MAX_PRUNED_NOTES notes', () => {
    const registry: ShellRegistry = {
      shells: new Map(),
      nextNumber: 1,
      nextCallNumber: 1,
      maxFinishedShells: 1,
      endedCount: 0,
      pruned: new Map(),
    };
    const add = (status: BackgroundShellStatus, reading = 0) => {
      const id = `bash-${registry.nextNumber++}`;
      const record = {
        info: {
          id,
          command: `echo ${id}`,
          status,
          startedAt: '',
          outputPath: `/nonexistent/${id}.output`,
          discardedBytes: 0,
        },
        run: undefined as never,
        readFrom: 0,
        readAfterEnd: true,
        reading,
        endOrder: registry.nextNumber,
      } satisfies ShellRecord;
      registry.shells.set(id, record);
      return record;
    };
    const beingRead = add('completed', 1);
    add('failed');
    pruneFinishedShells(registry);
    expect([...registry.shells.keys()]).toEqual(['bash-1']);
    beingRead.reading = 0;
    add('killed');
    pruneFinishedShells(registry);
    expect([...registry.shells.keys()]).toEqual(['bash-3']);
    expect(prunedShellError(registry, 'bash-1')?.message).toMatch(/ended \(completed\)/);
    for (let index = 0; index < MAX_PRUNED_NOTES + 10; index += 1) {
      add('completed');
      pruneFinishedShells(registry);
    }
    expect(registry.pruned.size).toBe(MAX_PRUNED_NOTES);
    expect(registry.pruned.has('bash-1')).toBe(false);
    expect(prunedShellError(registry, 'bash-1')?.code).toBe('SHELL_PRUNED');
    expect(prunedShellError(registry, `bash-${registry.nextNumber}`)).toBeUndefined();
    expect(prunedShellError(registry, 'bash-01')).toBeUndefined();
  });

  it('refuses a maxFinishedShells that is not a whole number of at least 1', () => {
    expect(DEFAULT_MAX_FINISHED_SHELLS).toBe(32);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => createBashTool({ maxFinishedShells: bad })).toThrow(
        /maxFinishedShells must be a whole number of at least 1/,
      );
    }
  });
});
