// Grep as a tool: its schema equals Claude Code 2.1.45's, the engine choice is reported and
// refused clearly, every path goes through the roots, bad input gets a message, and an abort or
// a time limit stops a search without leaving listeners behind.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { getEventListeners } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createGrepTool, GrepInputSchema, splitGlobInput } from './grep-tool.js';
import type { GrepResultData } from './grep-tool-format.js';
import { callWithTimeout } from './grep-tool-support.js';
import { ripgrepArguments } from './ripgrep-engine.js';
import { compileSearchPattern } from './grep-engine-regex.js';
import { createTestToolContext } from './test-support.js';

const fixtures = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../fixtures/claude-code-2.1.45-all-tools',
);

/** The parts of a JSON Schema the model relies on: property names, types, enums, required, additionalProperties. */
function shape(schema: Record<string, unknown>): unknown {
  const properties = schema.properties as Record<string, Record<string, unknown>>;
  return {
    type: schema.type,
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [
        name,
        { type: property.type, enum: property.enum },
      ]),
    ),
    required: schema.required,
    additionalProperties: schema.additionalProperties,
  };
}

async function makeTree(): Promise<string> {
  const root = await makeTempDirectory('muster-grep-tool-');
  await mkdir(path.join(root, 'src'));
  await writeFile(path.join(root, 'src', 'a.ts'), 'const needle = 1;\n');
  await writeFile(path.join(root, 'src', 'b.ts'), 'no match here\n');
  return root;
}

describe('Grep tool', () => {
  it('declares exactly the input schema of Claude Code 2.1.45', () => {
    const expected = JSON.parse(
      readFileSync(path.join(fixtures, 'Grep.input_schema.json'), 'utf8'),
    ) as Record<string, unknown>;
    const tool = createGrepTool();
    expect(tool.name).toBe('Grep');
    expect(tool.inputJsonSchema).toBeDefined();
    expect(shape(tool.inputJsonSchema as Record<string, unknown>)).toEqual(shape(expected));
    expect(Object.keys((tool.inputJsonSchema as { properties: object }).properties)).toEqual(
      Object.keys(expected.properties as object),
    );
    expect(tool.inputJsonSchema).not.toHaveProperty('$schema');
    expect(tool.isReadOnly({ pattern: 'x' })).toBe(true);
    expect(tool.isConcurrencySafe({ pattern: 'x' })).toBe(true);
    expect(tool.pathsOf?.({ pattern: 'x', path: 'src' })).toEqual(['src']);
  });

  it('refuses input outside the schema with a message naming the field', () => {
    const negative = GrepInputSchema.safeParse({ pattern: 'x', '-A': -1 });
    expect(negative.success).toBe(false);
    expect(negative.error?.issues[0]?.message).toContain('-A must be a whole number');
    expect(GrepInputSchema.safeParse({ pattern: 'x', head_limit: 1.5 }).success).toBe(false);
    expect(GrepInputSchema.safeParse({ pattern: 'x', output_mode: 'lines' }).success).toBe(false);
    expect(GrepInputSchema.safeParse({ pattern: 'x', recursive: true }).success).toBe(false);
  });

  it('reports the engine it used, and refuses ripgrep clearly when there is no rg', async () => {
    const root = await makeTree();
    const withoutRipgrep = createTestToolContext({
      cwd: root,
      environment: { PATH: path.join(root, 'no-bin') },
    });
    const auto = await createGrepTool().call({ pattern: 'needle' }, withoutRipgrep.context);
    expect((auto.data as GrepResultData).engine).toBe('builtin');
    expect(auto.content).toBe(`Found 1 file\n${path.join(root, 'src', 'a.ts')}`);

    const refusal = createGrepTool({ engine: 'ripgrep' }).call(
      { pattern: 'needle' },
      withoutRipgrep.context,
    );
    await expect(refusal).rejects.toMatchObject({ code: 'RIPGREP_MISSING' });
    await expect(refusal).rejects.toThrow(/no `rg` executable is on the PATH .*Install ripgrep/u);

    const builtin = await createGrepTool({ engine: 'builtin' }).call(
      { pattern: 'needle' },
      createTestToolContext({ cwd: root }).context,
    );
    expect((builtin.data as GrepResultData).engine).toBe('builtin');
    const wrongPath = createGrepTool({
      engine: 'ripgrep',
      ripgrepPath: path.join(root, 'src', 'a.ts'),
    });
    await expect(wrongPath.call({ pattern: 'needle' }, withoutRipgrep.context)).rejects.toThrow(
      /ripgrep could not be started from .*a\.ts \(EACCES\)/u,
    );
    expect(() => createGrepTool({ engine: 'fast' as 'auto' })).toThrow(
      /engine must be 'auto', 'ripgrep' or 'builtin'/u,
    );
  });

  it('searches only inside the read roots, and never through a link that leaves them', async () => {
    const root = await makeTree();
    const outside = await makeTempDirectory('muster-grep-outside-');
    await writeFile(path.join(outside, 'secret.txt'), 'needle outside\n');
    await symlink(outside, path.join(root, 'src', 'escape'));
    const { context } = createTestToolContext({ cwd: root });
    for (const engine of ['builtin', 'ripgrep'] as const) {
      const tool = createGrepTool({ engine });
      await expect(tool.call({ pattern: 'needle', path: outside }, context)).rejects.toMatchObject({
        code: 'PATH_OUTSIDE_ROOTS',
      });
      await expect(tool.call({ pattern: 'needle', path: '../' }, context)).rejects.toMatchObject({
        code: 'PATH_OUTSIDE_ROOTS',
      });
      await expect(
        tool.call({ pattern: 'needle', path: 'src/escape' }, context),
      ).rejects.toMatchObject({ code: 'SYMLINK_ESCAPES' });
      const walked = await tool.call({ pattern: 'needle', output_mode: 'content' }, context);
      expect(walked.content).toBe(`${path.join(root, 'src', 'a.ts')}:1:const needle = 1;`);
    }
    const readOnlyElsewhere = createTestToolContext({ cwd: root, roots: { read: [outside] } });
    await expect(
      createGrepTool().call({ pattern: 'needle' }, readOnlyElsewhere.context),
    ).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOTS' });
  });

  it('says what is wrong with a missing path, an unknown type or a bad pattern', async () => {
    const root = await makeTree();
    const { context } = createTestToolContext({ cwd: root });
    const tool = createGrepTool({ engine: 'builtin' });
    await expect(tool.call({ pattern: 'x', path: 'nope' }, context)).rejects.toThrow(
      /does not exist\. Give an existing file or folder/u,
    );
    await expect(tool.call({ pattern: 'x', type: 'typescript' }, context)).rejects.toThrow(
      /Unknown file type "typescript"\. Did you mean "ts"\?/u,
    );
    await expect(tool.call({ pattern: 'a(?=b)' }, context)).rejects.toThrow(
      /look-ahead and look-behind are not supported/u,
    );
    await expect(tool.call({ pattern: 'a\\nb' }, context)).rejects.toThrow(/multiline: true/u);
    await expect(
      tool.call({ pattern: 'x', glob: '*.ts *a*a*a*a*b' }, context),
    ).rejects.toMatchObject({
      code: 'INVALID_GLOB',
    });
    await expect(tool.call({ pattern: 'a{' }, context)).rejects.toThrow(
      /Write `\\\{` for a literal brace/u,
    );
  });

  it('stops at once when the turn is aborted, and leaves no listener on the turn signal', async () => {
    const root = await makeTree();
    for (const engine of ['builtin', 'ripgrep'] as const) {
      const aborted = createTestToolContext({ cwd: root });
      aborted.abort(new Error('turn interrupted'));
      await expect(
        createGrepTool({ engine }).call({ pattern: 'needle' }, aborted.context),
      ).rejects.toThrow('turn interrupted');

      const running = createTestToolContext({ cwd: root });
      const tool = createGrepTool({ engine });
      for (let call = 0; call < 8; call += 1)
        await tool.call({ pattern: 'needle' }, running.context);
      expect(getEventListeners(running.context.signal, 'abort')).toHaveLength(0);
    }
  });

  it('stops a backtracking pattern in the built-in engine without freezing the process', async () => {
    const root = await makeTempDirectory('muster-grep-redos-');
    await writeFile(path.join(root, 'input.txt'), `${'a'.repeat(40)}b\n`);
    const { context } = createTestToolContext({ cwd: root });
    let ticks = 0;
    const ticker = setInterval(() => {
      ticks += 1;
    }, 10);
    try {
      const slow = createGrepTool({ engine: 'builtin', patternBudgetMs: 300 });
      await expect(slow.call({ pattern: '^(a+)+$' }, context)).rejects.toMatchObject({
        code: 'PATTERN_TOO_SLOW',
        message: expect.stringContaining('input.txt'),
      });
      expect(ticks).toBeGreaterThan(0);

      const interrupted = createTestToolContext({ cwd: root });
      const pending = createGrepTool({ engine: 'builtin', patternBudgetMs: 600_000 }).call(
        { pattern: '^(a+)+$' },
        interrupted.context,
      );
      setTimeout(() => interrupted.abort(new Error('turn interrupted')), 200);
      await expect(pending).rejects.toThrow('turn interrupted');
    } finally {
      clearInterval(ticker);
    }
    const byRipgrep = await createGrepTool({ engine: 'auto' }).call(
      { pattern: '^(a+)+$' },
      context,
    );
    if ((byRipgrep.data as GrepResultData).engine === 'ripgrep') {
      expect(byRipgrep.content).toBe('No files found');
    }
  });

  it('refuses a pipe as path, and a time limit ends work that ignores its signal', async () => {
    const root = await makeTree();
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const { context } = createTestToolContext({ cwd: root });
    await expect(
      createGrepTool().call({ pattern: 'x', path: 'pipe' }, context),
    ).rejects.toMatchObject({
      code: 'NOT_A_FILE',
    });
    const walked = await createGrepTool({ engine: 'builtin' }).call({ pattern: 'needle' }, context);
    expect((walked.data as GrepResultData).numFiles).toBe(1);
    const deaf = () => new Promise<never>(() => undefined);
    await expect(
      callWithTimeout(new AbortController().signal, 20, 'Grep', deaf),
    ).rejects.toMatchObject({
      code: 'SEARCH_TIMEOUT',
    });
  });

  it('turns a time limit into SEARCH_TIMEOUT and an abort into its reason', async () => {
    const parent = new AbortController();
    const never = (signal: AbortSignal) =>
      new Promise<never>((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
      );
    await expect(callWithTimeout(parent.signal, 20, 'Grep', never)).rejects.toMatchObject({
      code: 'SEARCH_TIMEOUT',
    });
    const pending = callWithTimeout(parent.signal, 60_000, 'Grep', never);
    parent.abort(new Error('stopped by the person'));
    await expect(pending).rejects.toThrow('stopped by the person');
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });

  it('splits the glob input at spaces and at commas outside braces', () => {
    expect(splitGlobInput('*.ts, *.tsx')).toEqual(['*.ts', '*.tsx']);
    expect(splitGlobInput('*.{ts,tsx} !*.test.ts')).toEqual(['*.{ts,tsx}', '!*.test.ts']);
    expect(splitGlobInput(undefined)).toEqual([]);
  });

  it('runs ripgrep without config, ignore files or mmap surprises, pattern after --regexp', () => {
    const request = {
      root: '/tmp/x',
      rootIsFile: false,
      pattern: '-e',
      compiled: compileSearchPattern('-e', { caseInsensitive: false, multiline: false }),
      caseInsensitive: false,
      multiline: false,
      globs: ['*.ts'],
      fileType: 'ts',
      collectLines: true,
      contextBefore: 1,
      contextAfter: 2,
      signal: new AbortController().signal,
    };
    const argumentsList = ripgrepArguments(request, false);
    expect(argumentsList.slice(0, 4)).toEqual([
      '--no-config',
      '--no-ignore',
      '--hidden',
      '--no-messages',
    ]);
    expect(argumentsList).toContain('--json');
    expect(argumentsList.slice(-4)).toEqual(['--regexp', '-e', '--', '/tmp/x']);
    expect(argumentsList.join(' ')).toContain('--glob *.ts --glob !.git');
    expect(argumentsList.join(' ')).toContain(
      '--type-clear ts --type-add ts:*.ts --type-add ts:*.tsx --type ts',
    );
  });
});
