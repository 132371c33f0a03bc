// One table of Grep calls run through BOTH engines (ripgrep and the built-in one) on the same
// tree: the text the model reads and the data must be equal, and each case also states what it
// must (not) find, so two engines that are wrong the same way still fail.
import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeUnmanagedTempDirectory } from '@muster/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SEARCHED_FILE_BYTES } from './grep-engine-types.js';
import { createGrepTool } from './grep-tool.js';
import type { GrepInput } from './grep-tool.js';
import { findRipgrep } from './ripgrep-locate.js';
import { createTestToolContext } from './test-support.js';
import type { ToolContext } from '@muster/query';

const ripgrep = await findRipgrep(process.env.PATH);
if (ripgrep === undefined && process.env.CI === undefined) {
  console.warn(
    'grep-engine-parity: SKIPPED — ripgrep (`rg`) is not on the PATH. Install it (apt-get install ripgrep) to compare the two engines.',
  );
}

/** Files of the tree, relative path → content. */
const TREE: Record<string, string | Buffer> = {
  'src/app.ts':
    "import { helper } from './util.js';\nexport function main() {\n  return helper(42);\n}\n// TODO: tidy\n",
  'src/util.ts': 'export function helper(value: number) {\n  return value * 2;\n}\n',
  'src/util.test.ts':
    "import { helper } from './util.js';\ntest('helper', () => expect(helper(2)).toBe(4));\n",
  'src/view.tsx': 'export const View = () => <div>Hello World</div>;\n',
  'lib/legacy.js': 'function helper() {\n  var x = 1; // TODO remove\n  return x;\n}\n',
  'lib/deep/nested/data.json': '{ "name": "muster", "todo": true }\n',
  'docs/README.md': '# Muster\nTODO list\nSee helper docs.\n',
  'docs/notes.txt': 'first line\r\nTODO: windows\r\nlast\r\n',
  '.hidden/secret.ts': "export const todo = 'TODO hidden';\n",
  '.git/config': 'TODO in git\n',
  'node_modules/pkg/index.js': 'TODO in node_modules\n',
  'binary.bin': Buffer.from('TODO\0binary\n'),
  'late-binary.txt': `TODO first\n${'x'.repeat(200_000)}\n\0\n`,
  'unicode.txt': 'Ωmega café\nnaïve résumé\n日本語 テキスト\n',
  'bom-utf8.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('TODO with bom\n')]),
  'utf16.txt': Buffer.concat([
    Buffer.from([0xff, 0xfe]),
    Buffer.from('TODO utf16\nsecond\n', 'utf16le'),
  ]),
  'big.log': `TODO big\n${'y'.repeat(MAX_SEARCHED_FILE_BYTES)}\n`,
  'no-newline.txt': 'alpha\nbeta TODO',
  'empty.txt': '',
  'a-c/x.ts': 'TODO dash folder\n',
  'a/b.ts': 'TODO slash folder\n',
  'long.txt': `needle ${'z'.repeat(1200)}\n`,
  'dashes.txt': '-e flag\n--help\n',
  'braces.txt': 'interface{}\nmap[string]int\n',
};

interface Case {
  name: string;
  input: GrepInput;
  /** Substrings the result text must contain. */
  has?: string[];
  /** Substrings it must not contain. */
  hasNot?: string[];
  /** The error code both engines must refuse with. */
  errorCode?: string;
}

const NEVER = ['.git/', 'node_modules/', 'binary.bin', 'late-binary.txt', 'outside'];

const CASES: Case[] = [
  {
    name: 'files, default mode',
    input: { pattern: 'TODO' },
    has: ['src/app.ts', '.hidden/secret.ts', 'bom-utf8.txt', 'utf16.txt', 'no-newline.txt'],
    hasNot: [...NEVER, 'big.log'],
  },
  {
    name: 'content',
    input: { pattern: 'TODO', output_mode: 'content' },
    has: [
      'docs/notes.txt:2:TODO: windows',
      'bom-utf8.txt:1:TODO with bom',
      'utf16.txt:1:TODO utf16',
    ],
    hasNot: NEVER,
  },
  {
    name: 'count, case-insensitive',
    input: { pattern: 'todo', '-i': true, output_mode: 'count' },
    has: ['.hidden/secret.ts:1', 'lib/deep/nested/data.json:1', 'matching lines in'],
    hasNot: NEVER,
  },
  {
    name: '-C 1',
    input: { pattern: 'helper', output_mode: 'content', '-C': 1 },
    has: ['src/util.ts-2-  return value * 2;', '--'],
  },
  {
    name: '-B 2 -A 0',
    input: { pattern: 'return helper', output_mode: 'content', '-B': 2, '-A': 0 },
    has: ['app.ts-1-import', 'app.ts:3:  return helper(42);'],
    hasNot: ['app.ts-4-'],
  },
  {
    name: 'context with -A overriding after',
    input: { pattern: 'TODO list', output_mode: 'content', context: 1, '-A': 0 },
    has: ['README.md-1-# Muster'],
    hasNot: ['README.md-3-'],
  },
  {
    name: 'glob *.ts',
    input: { pattern: 'helper', glob: '*.ts' },
    has: ['util.test.ts'],
    hasNot: ['legacy.js', 'README.md'],
  },
  {
    name: 'glob braces, count',
    input: { pattern: 'export', glob: '*.{ts,tsx}', output_mode: 'count' },
    has: ['view.tsx:1'],
  },
  {
    name: 'negated glob',
    input: { pattern: 'helper', glob: '!*.test.ts' },
    has: ['legacy.js'],
    hasNot: ['util.test.ts'],
  },
  {
    name: 'anchored glob with **',
    input: { pattern: 'TODO', glob: 'src/**' },
    has: ['src/app.ts'],
    hasNot: ['docs/', 'lib/'],
  },
  {
    name: 'leading-slash glob',
    input: { pattern: 'TODO', glob: '/docs/*' },
    has: ['docs/README.md'],
    hasNot: ['src/'],
  },
  {
    name: 'folder-only negated glob',
    input: { pattern: 'TODO', glob: '!lib/ !docs/' },
    has: ['src/app.ts'],
    hasNot: ['lib/', 'docs/'],
  },
  {
    name: 'globstar in the middle',
    input: { pattern: 'muster', glob: '**/nested/*.json' },
    has: ['lib/deep/nested/data.json'],
    hasNot: ['README.md'],
  },
  {
    name: 'case-insensitive non-ASCII',
    input: { pattern: 'ΩMEGA CAFÉ', '-i': true, output_mode: 'content' },
    has: ['unicode.txt:1:Ωmega café'],
  },
  {
    name: 'two globs, comma',
    input: { pattern: 'TODO', glob: 'a/*.ts, src/*.ts' },
    has: ['a/b.ts', 'src/app.ts'],
    hasNot: ['a-c/'],
  },
  {
    name: 'type js',
    input: { pattern: 'TODO', type: 'js' },
    has: ['lib/legacy.js'],
    hasNot: ['src/app.ts', ...NEVER],
  },
  {
    name: 'include glob beats type',
    input: { pattern: 'TODO', type: 'ts', glob: '*.md' },
    has: ['docs/README.md'],
    hasNot: ['src/app.ts'],
  },
  {
    name: 'word boundary',
    input: { pattern: '\\bhelper\\(', output_mode: 'content' },
    has: ['util.ts:1:export function helper(value'],
  },
  {
    name: 'no line numbers',
    input: { pattern: '^export', output_mode: 'content', '-n': false },
    has: ['src/util.ts:export function'],
    hasNot: ['util.ts:1:'],
  },
  {
    name: 'CRLF and $',
    input: { pattern: 'windows$', output_mode: 'content' },
    has: ['No matches found'],
  },
  {
    name: 'Unicode \\w',
    input: { pattern: '^\\w+ \\w+$', output_mode: 'content' },
    has: [
      'unicode.txt:1:Ωmega café',
      'unicode.txt:2:naïve résumé',
      'unicode.txt:3:日本語 テキスト',
    ],
  },
  {
    name: 'Unicode \\b',
    input: { pattern: '\\bcafé\\b', output_mode: 'count' },
    has: ['unicode.txt:1'],
  },
  {
    name: 'Unicode \\d and repetition',
    input: { pattern: '\\d{2}', output_mode: 'content' },
    has: ['app.ts:3:'],
  },
  {
    name: 'Unicode script',
    input: { pattern: '\\p{Han}+', output_mode: 'content' },
    has: ['unicode.txt:3:'],
  },
  {
    name: 'POSIX class',
    input: { pattern: '[[:upper:]]{4}', output_mode: 'count' },
    has: ['README.md:1'],
  },
  {
    name: 'leading (?i)',
    input: { pattern: '(?i)muster', output_mode: 'content' },
    has: ['data.json:1:', 'README.md:1:# Muster'],
  },
  {
    name: 'named group',
    input: { pattern: '(?P<word>help)er', output_mode: 'count' },
    has: ['util.ts:1'],
  },
  {
    name: 'multiline',
    input: {
      pattern: 'helper\\(value: number\\) \\{\\n\\s+return',
      multiline: true,
      output_mode: 'content',
    },
    has: ['util.ts:1:', 'util.ts:2:  return value * 2;'],
  },
  {
    name: 'multiline dot-all, count',
    input: { pattern: 'function.*?return', multiline: true, output_mode: 'count' },
    has: ['legacy.js:3'],
  },
  {
    name: 'multiline ^ over a folder',
    input: { pattern: '^', multiline: true, output_mode: 'count', path: 'docs' },
    has: ['README.md:3', 'notes.txt:3'],
  },
  {
    name: 'empty matches',
    input: { pattern: 'x*', output_mode: 'count', path: 'docs' },
    has: ['README.md:3'],
  },
  {
    name: 'search one folder',
    input: { pattern: 'TODO', path: 'docs' },
    has: ['docs/README.md'],
    hasNot: ['src/'],
  },
  {
    name: 'search one file',
    input: { pattern: 'helper', path: 'src/app.ts', output_mode: 'content', glob: '*.js' },
    has: ['app.ts:1:', 'app.ts:3:'],
  },
  {
    name: 'a skipped folder given as path',
    input: { pattern: 'TODO', path: 'node_modules' },
    has: ['node_modules/pkg/index.js'],
  },
  {
    name: 'a file over the size limit given as path',
    input: { pattern: 'TODO', path: 'big.log', output_mode: 'count' },
    has: ['big.log:1'],
  },
  {
    name: 'head_limit and offset',
    input: { pattern: 'TODO', output_mode: 'content', head_limit: 3, offset: 2 },
    has: ['[Showing lines 3–5 of'],
  },
  {
    name: 'offset past the end',
    input: { pattern: 'helper', offset: 50 },
    has: ['no files at offset 50'],
  },
  {
    name: 'long line cut',
    input: { pattern: 'needle', output_mode: 'content' },
    has: ['more characters]'],
  },
  {
    name: 'escaped braces',
    input: { pattern: 'interface\\{\\}', output_mode: 'content' },
    has: ['braces.txt:1:interface{}'],
  },
  {
    name: 'pattern starting with a dash',
    input: { pattern: '-e', output_mode: 'content' },
    has: ['dashes.txt:1:-e flag'],
  },
  {
    name: 'no final newline',
    input: { pattern: 'beta TODO$', output_mode: 'content' },
    has: ['no-newline.txt:2:beta TODO'],
  },
  { name: 'no match', input: { pattern: 'nothing-matches-this' }, has: ['No files found'] },
  { name: 'look-around refused', input: { pattern: 'a(?=b)' }, errorCode: 'INVALID_PATTERN' },
  { name: 'backreference refused', input: { pattern: '(a)\\1' }, errorCode: 'INVALID_PATTERN' },
  {
    name: 'newline without multiline refused',
    input: { pattern: 'a\\nb' },
    errorCode: 'INVALID_PATTERN',
  },
  { name: 'unclosed group refused', input: { pattern: '(unclosed' }, errorCode: 'INVALID_PATTERN' },
  {
    name: 'unknown type refused',
    input: { pattern: 'TODO', type: 'nosuchtype' },
    errorCode: 'UNKNOWN_FILE_TYPE',
  },
];

type Outcome =
  | { ok: true; content: unknown; data: { engine: string } }
  | { ok: false; code: string | undefined; message: string };

async function runGrep(
  engine: 'ripgrep' | 'builtin',
  input: GrepInput,
  context: ToolContext,
): Promise<Outcome> {
  try {
    const result = await createGrepTool({ engine }).call(input, context);
    return { ok: true, content: result.content, data: result.data as { engine: string } };
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    return { ok: false, code, message };
  }
}

describe.skipIf(ripgrep === undefined && process.env.CI === undefined)(
  'Grep gives the same results with ripgrep and the built-in engine',
  () => {
    let tree: { path: string; remove: () => Promise<void> };
    let outside: { path: string; remove: () => Promise<void> };

    beforeAll(async () => {
      if (ripgrep === undefined) {
        throw new Error(
          'ripgrep (`rg`) is not on the PATH, and CI must install it (.ci/run installs the Debian ripgrep package): the two Grep engines cannot be compared.',
        );
      }
      tree = await makeUnmanagedTempDirectory('muster-grep-parity-');
      outside = await makeUnmanagedTempDirectory('muster-grep-outside-');
      await writeFile(path.join(outside.path, 'outside.txt'), 'TODO outside the roots\nhelper\n');
      let time = Date.UTC(2026, 0, 1) / 1000;
      for (const [relative, content] of Object.entries(TREE)) {
        const file = path.join(tree.path, relative);
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, content);
        time += 60;
        await utimes(file, time, time);
      }
      await symlink(outside.path, path.join(tree.path, 'link-to-outside'));
      await symlink(
        path.join(outside.path, 'outside.txt'),
        path.join(tree.path, 'link-to-outside-file.txt'),
      );
      await symlink(path.join(tree.path, 'src', 'app.ts'), path.join(tree.path, 'link-to-app.ts'));
    }, 60_000);

    afterAll(async () => {
      await tree?.remove();
      await outside?.remove();
    });

    it.each(CASES)('$name', async ({ input, has = [], hasNot = [], errorCode }) => {
      const { context } = createTestToolContext({ cwd: tree.path });
      const [byRipgrep, byBuiltin] = await Promise.all([
        runGrep('ripgrep', input, context),
        runGrep('builtin', input, context),
      ]);
      if (errorCode !== undefined) {
        expect(byRipgrep.ok ? 'no error' : byRipgrep.code).toBe(errorCode);
        expect(byBuiltin.ok ? 'no error' : byBuiltin.code).toBe(errorCode);
        return;
      }
      if (!byRipgrep.ok) throw new Error(`ripgrep failed: ${byRipgrep.message}`);
      if (!byBuiltin.ok) throw new Error(`built-in engine failed: ${byBuiltin.message}`);
      expect(byRipgrep.data.engine).toBe('ripgrep');
      expect(byBuiltin.data.engine).toBe('builtin');
      expect(byBuiltin.content).toBe(byRipgrep.content);
      expect({ ...byBuiltin.data, engine: 'either' }).toEqual({
        ...byRipgrep.data,
        engine: 'either',
      });
      for (const expected of has) expect(byRipgrep.content).toContain(expected);
      for (const unexpected of hasNot) expect(byRipgrep.content).not.toContain(unexpected);
    });
  },
);
