import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { backgroundShells } from './background-shells.js';
import type { BashResultData } from './bash-tool.js';
import { createBashTool } from './bash-tool.js';
import {
  eventually,
  processesWith,
  setUpBashTool,
  trackSleepTokens,
} from './bash-tool-test-processes.js';
import { createTestToolContext } from './test-support.js';

const token = trackSleepTokens();

const setUp = () => setUpBashTool({ killGraceMs: 300 }, 'muster-bash-background-');

describe('Bash run_in_background and backgroundShells', () => {
  it('returns at once with an id; the output can be read, blocking until the command ends', async () => {
    const { tool, context, shells, cwd } = await setUp();
    const result = await tool.call(
      {
        command: 'echo one; sleep 0.3; echo two >&2; pwd',
        run_in_background: true,
        description: 'two lines',
      },
      context,
    );
    const { shellId } = result.data as BashResultData;
    expect(shellId).toBe('bash-1');
    // Foreground calls do not use up shell ids.
    await tool.call({ command: 'true' }, context);
    const second = await tool.call({ command: 'true', run_in_background: true }, context);
    expect((second.data as BashResultData).shellId).toBe('bash-2');
    expect(result.content).toMatch(/background with id bash-1.*TaskOutput/);
    expect(shells.list().map((shell) => [shell.id, shell.description])).toEqual([
      ['bash-1', 'two lines'],
      ['bash-2', undefined],
    ]);
    const read = await shells.readOutput('bash-1', { block: true, timeoutMs: 10_000 });
    expect(read.output).toBe(`one\ntwo\n${cwd}`);
    expect(read.stillRunning).toBe(false);
    expect(read.shell.status).toBe('completed');
    expect(read.shell.outcome?.exitCode).toBe(0);
  });

  it('reads only new output with sinceLastRead, and reports a failed command', async () => {
    const { tool, context, shells } = await setUp();
    await tool.call(
      { command: 'echo first; sleep 0.5; echo second; exit 4', run_in_background: true },
      context,
    );
    const first = await shells.readOutput('bash-1', { sinceLastRead: true });
    // The first line may or may not be there yet; after the end, the rest comes exactly once.
    const rest = await shells.readOutput('bash-1', {
      sinceLastRead: true,
      block: true,
      timeoutMs: 10_000,
    });
    expect(`${first.output}\n${rest.output}`.replace(/^\n/, '')).toBe('first\nsecond');
    expect(rest.shell.status).toBe('failed');
    expect(rest.shell.outcome?.exitCode).toBe(4);
    expect((await shells.readOutput('bash-1', { sinceLastRead: true })).output).toBe('');
  });

  it('past the size limit a background shell keeps running and its earlier output is discarded', async () => {
    const cwd = realpathSync(await makeTempDirectory('muster-bash-background-'));
    const test = createTestToolContext({ cwd });
    const tool = createBashTool({
      outputRoot: cwd,
      killGraceMs: 300,
      maxOutputFileBytes: 1024 * 1024,
    });
    const shells = backgroundShells(test.context);
    const seconds = token();
    // The command waits (bounded) until its output file (also its stderr, fd 2) was emptied, then writes on.
    await tool.call(
      {
        command:
          "head -c 3000000 /dev/zero | tr '\\0' x; " +
          'for i in $(seq 400); do [ "$(stat -L -c %s /proc/self/fd/2)" -lt 100000 ] && break; sleep 0.05; done; ' +
          `echo after-discard; sleep ${seconds}`,
        run_in_background: true,
      },
      test.context,
    );
    expect(await eventually(() => (shells.get('bash-1')?.discardedBytes ?? 0) > 0, 20_000)).toBe(
      true,
    );
    let output = '';
    for (let attempt = 0; attempt < 400 && !output.endsWith('after-discard'); attempt += 1) {
      output = (await shells.readOutput('bash-1')).output;
      if (!output.endsWith('after-discard'))
        await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(output.endsWith('after-discard')).toBe(true);
    expect(shells.get('bash-1')?.status).toBe('running');
    expect(output.length).toBeLessThan(1_000_000);
    await test.closeAgent();
    expect(processesWith(seconds)).toEqual([]);
  });

  it('a blocking read that times out says the shell is still running', async () => {
    const { tool, context, shells } = await setUp();
    const seconds = token();
    await tool.call({ command: `sleep ${seconds}`, run_in_background: true }, context);
    const read = await shells.readOutput('bash-1', { block: true, timeoutMs: 100 });
    expect(read.stillRunning).toBe(true);
    expect(read.shell.status).toBe('running');
  });

  it('kill ends the shell’s whole group, leftovers included', async () => {
    const { tool, context, shells } = await setUp();
    const seconds = token();
    await tool.call(
      {
        command: `setsid -f sleep ${seconds}; sleep ${seconds} & sleep ${seconds}`,
        run_in_background: true,
      },
      context,
    );
    expect(await eventually(() => processesWith(seconds).length >= 3)).toBe(true);
    const killed = await shells.kill('bash-1');
    expect(killed.status).toBe('killed');
    expect(processesWith(seconds)).toEqual([]);
    // Killing again is harmless.
    expect((await shells.kill('bash-1')).status).toBe('killed');
  });

  it('closing the agent kills every background shell and removes the output directory', async () => {
    const { tool, context, shells, test, outputRoot } = await setUp();
    const seconds = token();
    await tool.call(
      { command: `sleep ${seconds} & sleep ${seconds}`, run_in_background: true },
      context,
    );
    await tool.call(
      { command: `trap '' TERM; sleep ${seconds}`, run_in_background: true },
      context,
    );
    expect(await eventually(() => processesWith(seconds).length >= 3)).toBe(true);
    const outputPath = shells.get('bash-1')!.outputPath;
    expect(statSync(outputPath).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(outputPath)).mode & 0o777).toBe(0o700);
    expect(path.dirname(path.dirname(outputPath))).toBe(outputRoot);
    await test.closeAgent();
    expect(processesWith(seconds)).toEqual([]);
    expect(shells.list().map((shell) => shell.status)).toEqual(['killed', 'killed']);
    expect(existsSync(path.dirname(outputPath))).toBe(false);
    await expect(shells.readOutput('bash-2')).rejects.toThrow(
      /output of background shell bash-2 is gone/,
    );
  });

  it('a background shell that ends by itself unregisters from agent close', async () => {
    const { tool, context, shells, test } = await setUp();
    await tool.call({ command: 'true', run_in_background: true }, context);
    // One disposer for the output directory, one for the running shell.
    await shells.readOutput('bash-1', { block: true, timeoutMs: 10_000 });
    expect(test.pendingDisposers()).toBe(1);
  });

  it('the background shell is not tied to the turn: aborting the turn leaves it running', async () => {
    const { tool, context, shells, test } = await setUp();
    const seconds = token();
    await tool.call({ command: `sleep ${seconds}`, run_in_background: true }, context);
    test.abort();
    expect(await eventually(() => processesWith(seconds).length === 1)).toBe(true);
    expect(shells.get('bash-1')?.status).toBe('running');
    await shells.kill('bash-1');
    expect(processesWith(seconds)).toEqual([]);
  });

  it('refuses an unknown id, naming the shells it knows', async () => {
    const { tool, context, shells } = await setUp();
    await expect(shells.readOutput('bash-9')).rejects.toThrow(/started none/);
    await tool.call({ command: 'true', run_in_background: true }, context);
    await expect(shells.kill('bash-9')).rejects.toThrow(
      /No background shell "bash-9".*Known shells: bash-1/,
    );
  });
});
