import { readFileSync, realpathSync } from 'node:fs';
import { getEventListeners } from 'node:events';
import { readdir } from 'node:fs/promises';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { BashResultData, BashToolOptions } from './bash-tool.js';
import { BASH_INPUT_JSON_SCHEMA, BashInputSchema, createBashTool } from './bash-tool.js';
import {
  eventually,
  processesWith,
  setUpBashTool,
  trackSleepTokens,
} from './bash-tool-test-processes.js';
import { claudeCodeToolSchema, createTestToolContext, toolSchemaShape } from './test-support.js';

const fixture = JSON.parse(
  readFileSync(
    new URL(
      '../../../fixtures/claude-code-2.1.45-all-tools/Bash.input_schema.json',
      import.meta.url,
    ),
    'utf8',
  ),
) as {
  properties: Record<string, { type: string }>;
  required: string[];
  additionalProperties: boolean;
};

const token = trackSleepTokens();

const setUp = (options: BashToolOptions = {}) => setUpBashTool(options);

describe('Bash input schema', () => {
  it('has Claude Code 2.1.45’s properties, types, required fields and no additional properties', () => {
    const schema = BASH_INPUT_JSON_SCHEMA as typeof fixture;
    const types = (properties: Record<string, { type: string }>) =>
      Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, property.type]),
      );
    expect(types(schema.properties)).toEqual(types(fixture.properties));
    expect(schema.required).toEqual(fixture.required);
    expect(schema.additionalProperties).toBe(false);
    expect(toolSchemaShape(createBashTool().inputJsonSchema)).toEqual(
      toolSchemaShape(claudeCodeToolSchema('Bash')),
    );
    // The zod schema parses the same fields.
    const fromZod = z.toJSONSchema(BashInputSchema) as typeof fixture;
    expect(Object.keys(fromZod.properties).sort()).toEqual(Object.keys(fixture.properties).sort());
    expect(fromZod.required).toEqual(fixture.required);
  });

  it('refuses unknown fields, an empty command and an out-of-range timeout with messages that say why', async () => {
    expect(BashInputSchema.safeParse({ command: 'ls', cwd: '/' }).success).toBe(false);
    const { tool, context } = await setUp();
    await expect(tool.call({ command: '   ' }, context)).rejects.toThrow(/command is empty/);
    await expect(tool.call({ command: 'ls', timeout: 700_000 }, context)).rejects.toThrow(
      /at most 600000 ms.*run_in_background/,
    );
    await expect(tool.call({ command: 'ls', timeout: 0 }, context)).rejects.toThrow(/positive/);
    await expect(tool.call({ command: 'echo \0' }, context)).rejects.toThrow(/NUL/);
  });
});

describe('Bash read-only judgement', () => {
  it('is read-only (and concurrency-safe) only when every command of the line only reads', () => {
    const tool = createBashTool();
    const judge = (command: string) => [
      tool.isReadOnly({ command }),
      tool.isConcurrencySafe({ command }),
    ];
    expect(judge('ls -la')).toEqual([true, true]);
    expect(judge('git status && cat README.md | grep muster')).toEqual([true, true]);
    expect(judge('ls; rm -rf build')).toEqual([false, false]);
    expect(judge('echo hi > notes.txt')).toEqual([false, false]);
    expect(judge('npm test')).toEqual([false, false]);
  });
});

describe('Bash foreground commands', () => {
  it('returns stdout and stderr interleaved in the order they were written', async () => {
    const { tool, context } = await setUp();
    const result = await tool.call(
      { command: 'echo one; echo two >&2; echo three; echo four >&2; printf "five\\n"' },
      context,
    );
    expect(result.content).toBe('one\ntwo\nthree\nfour\nfive');
    expect(result.isError).toBe(false);
    expect((result.data as BashResultData).outcome?.exitCode).toBe(0);
  });

  it('reports a non-zero exit code as an error', async () => {
    const { tool, context } = await setUp();
    const result = await tool.call({ command: 'echo failing >&2; exit 3' }, context);
    expect(result.isError).toBe(true);
    expect(result.content).toBe('failing\nExit code 3');
    expect((result.data as BashResultData).outcome?.exitCode).toBe(3);
  });

  it('runs in the context’s working directory without changing the process’s', async () => {
    const { tool, context, cwd } = await setUp();
    const before = process.cwd();
    const result = await tool.call({ command: 'pwd; cd / && pwd' }, context);
    expect(result.content).toBe(`${cwd}\n/`);
    expect(process.cwd()).toBe(before);
    // `cd` does not carry over: the next call starts in the working directory again.
    expect((await tool.call({ command: 'pwd' }, context)).content).toBe(cwd);
  });

  it('gives the command exactly the context’s environment: no API key from this process reaches it', async () => {
    const cwd = realpathSync(await makeTempDirectory('muster-bash-'));
    const secret = 'sk-ant-api03-this-is-a-test-secret-value';
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = secret;
    try {
      const test = createTestToolContext({
        cwd,
        environment: { PATH: process.env.PATH ?? '/usr/bin:/bin', MUSTER_TEST_VALUE: 'visible' },
      });
      const result = await createBashTool({ outputRoot: cwd }).call(
        { command: 'env' },
        test.context,
      );
      const text = String(result.content);
      expect(text).toContain('MUSTER_TEST_VALUE=visible');
      expect(text).not.toContain('ANTHROPIC_API_KEY');
      expect(text).not.toContain(secret);
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it('drops model credentials even from a context environment that still holds them', async () => {
    const cwd = realpathSync(await makeTempDirectory('muster-bash-'));
    const secret = 'sk-ant-api03-another-test-secret-value';
    const test = createTestToolContext({
      cwd,
      environment: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ANTHROPIC_API_KEY: secret,
        CLAUDE_CODE_OAUTH_TOKEN: secret,
        MUSTER_TEST_VALUE: 'visible',
      },
    });
    const result = await createBashTool({ outputRoot: cwd }).call({ command: 'env' }, test.context);
    expect(String(result.content)).toContain('MUSTER_TEST_VALUE=visible');
    expect(String(result.content)).not.toContain(secret);
  });

  it('refuses to run when the working directory is gone, saying which one', async () => {
    const { tool, test } = await setUp();
    const context = { ...test.context, cwd: '/nonexistent/muster-bash-test' };
    await expect(tool.call({ command: 'pwd' }, context)).rejects.toThrow(
      /working directory \/nonexistent\/muster-bash-test does not exist/,
    );
  });

  it('cuts long output in the middle and keeps both ends, without the output file left behind', async () => {
    const { tool, context, outputRoot } = await setUp({ maxOutputChars: 1_000 });
    const result = await tool.call({ command: 'seq 1 200000' }, context);
    const text = String(result.content);
    expect(text.length).toBeLessThan(1_200);
    expect(text.startsWith('1\n2\n3\n')).toBe(true);
    expect(text.endsWith('199999\n200000')).toBe(true);
    expect(text).toMatch(/bytes of output cut from the middle/);
    expect((result.data as BashResultData).truncated).toBe(true);
    const [agentDirectory] = await readdir(outputRoot);
    expect(await readdir(`${outputRoot}/${agentDirectory}`)).toEqual([]);
  });

  it('gives the command an empty stdin, so a command reading it does not hang', async () => {
    const { tool, context } = await setUp();
    const result = await tool.call({ command: 'cat; read line || echo "stdin at end"' }, context);
    expect(result.content).toBe('stdin at end');
  });

  it('ends a command whose output file passes the size limit', async () => {
    const { tool, context } = await setUp({
      maxOutputFileBytes: 1024 * 1024,
      maxOutputChars: 100,
      killGraceMs: 200,
    });
    const seconds = token();
    const result = await tool.call(
      { command: `head -c 5000000 /dev/zero | tr '\\0' x; echo; sleep ${seconds}` },
      context,
    );
    expect(result.isError).toBe(true);
    expect((result.data as BashResultData).outcome?.end).toBe('output-limit');
    expect(result.content).toMatch(/output passed 1048576 bytes/);
    expect(processesWith(seconds)).toEqual([]);
  });

  it('ends the whole process group on timeout', async () => {
    const { tool, context } = await setUp({ killGraceMs: 200 });
    const seconds = token();
    const result = await tool.call(
      { command: `sleep ${seconds} & sleep ${seconds}; echo never`, timeout: 300 },
      context,
    );
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/Timed out after 300 ms/);
    expect((result.data as BashResultData).outcome?.end).toBe('timed-out');
    expect(processesWith(seconds)).toEqual([]);
  });

  it('ends the whole process group promptly when the turn is aborted, even a command that ignores SIGTERM', async () => {
    const { tool, context, test } = await setUp({ killGraceMs: 300 });
    const seconds = token();
    const pending = tool.call(
      { command: `trap '' TERM; sleep ${seconds} & sleep ${seconds}; wait` },
      context,
    );
    expect(await eventually(() => processesWith(seconds).length >= 2)).toBe(true);
    test.abort(new Error('interrupted by the test'));
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/Interrupted/);
    expect((result.data as BashResultData).outcome?.end).toBe('aborted');
    expect(processesWith(seconds)).toEqual([]);
  });

  it('leaves no abort listener on the turn signal after its calls end', async () => {
    const { tool, context } = await setUp();
    for (let call = 0; call < 5; call += 1)
      await tool.call({ command: `exit ${call % 2}` }, context);
    await tool.call({ command: 'sleep 5', timeout: 50 }, context);
    expect(getEventListeners(context.signal, 'abort')).toHaveLength(0);
  });

  it('refuses to start when the turn is already aborted', async () => {
    const { tool, context, test } = await setUp();
    test.abort();
    await expect(tool.call({ command: 'echo hi' }, context)).rejects.toThrow(/already aborted/);
  });

  it('kills a foreground command when the agent closes without aborting the turn', async () => {
    const { tool, context, test } = await setUp({ killGraceMs: 200 });
    const seconds = token();
    const pending = tool.call({ command: `sleep ${seconds}` }, context);
    expect(await eventually(() => processesWith(seconds).length === 1)).toBe(true);
    await test.closeAgent();
    const result = await pending;
    expect((result.data as BashResultData).outcome?.end).toBe('killed');
    expect(processesWith(seconds)).toEqual([]);
    expect(test.pendingDisposers()).toBe(0);
  });
});
