// The Grep tool, with Claude Code 2.1.45's input schema: a regular-expression search over the
// files of a folder, by ripgrep when `rg` is on the PATH and by the built-in engine otherwise,
// with the same results either way (see grep-engine-parity.test.ts). The engine used is
// reported in the result's `data.engine`.
import { stat } from 'node:fs/promises';
import type { Tool, ToolContext, ToolResult } from '@muster/query';
import { ToolError } from '@muster/query';
import { z } from 'zod';
import { searchWithBuiltinEngine } from './grep-engine-builtin.js';
import { GREP_FILE_TYPES } from './grep-engine-file-types.js';
import { checkGlobComplexity } from './grep-engine-walk.js';
import { compileSearchPattern } from './grep-engine-regex.js';
import type { GrepEngineName, SearchOutcome, SearchRequest } from './grep-engine-types.js';
import { formatGrepResult } from './grep-tool-format.js';
import type { GrepOutputMode } from './grep-tool-format.js';
import { findRipgrep } from './ripgrep-locate.js';
import { searchWithRipgrep } from './ripgrep-engine.js';
import { resolveToolPath } from './tool-paths.js';
import { callWithTimeout, toolJsonSchema } from './grep-tool-support.js';

const count = (name: string) =>
  z
    .number()
    .refine(
      (value) => Number.isInteger(value) && value >= 0,
      `${name} must be a whole number, 0 or more`,
    );

/** Grep's input, field for field as Claude Code 2.1.45 declares it. */
export const GrepInputSchema = z.strictObject({
  pattern: z
    .string()
    .describe(
      'The regular expression to search for (ripgrep syntax), e.g. "log.*Error" or "function\\s+\\w+".',
    ),
  path: z
    .string()
    .optional()
    .describe(
      'The file or folder to search in (absolute, or relative to the working directory). Default: the working directory.',
    ),
  glob: z
    .string()
    .optional()
    .describe(
      'Only search files matching this glob, e.g. "*.js" or "*.{ts,tsx}"; several globs separated by spaces or commas; "!glob" excludes (rg --glob).',
    ),
  output_mode: z
    .enum(['content', 'files_with_matches', 'count'])
    .optional()
    .describe(
      '"content": matching lines; "files_with_matches": matching file paths, newest first (default); "count": matching lines per file.',
    ),
  '-B': count('-B').optional().describe('Lines to show before each match (content mode only).'),
  '-A': count('-A').optional().describe('Lines to show after each match (content mode only).'),
  '-C': count('-C')
    .optional()
    .describe('Lines to show before and after each match (content mode only).'),
  context: count('context').optional().describe('Same as -C.'),
  '-n': z.boolean().optional().describe('Show line numbers (content mode only). Default: true.'),
  '-i': z.boolean().optional().describe('Case-insensitive search.'),
  type: z
    .string()
    .optional()
    .describe('Only search files of this type (rg --type): js, py, rust, go, java, ts, …'),
  head_limit: count('head_limit')
    .optional()
    .describe(
      'Show only the first N entries (lines, files or counts) after offset. 0 or absent: all, within the size cap.',
    ),
  offset: count('offset')
    .optional()
    .describe('Skip the first N entries before head_limit applies. Default: 0.'),
  multiline: z
    .boolean()
    .optional()
    .describe(
      'Let the pattern span lines; "." then matches line breaks too (rg -U --multiline-dotall). Default: false.',
    ),
});

/** What the Grep tool's input parses to. */
export type GrepInput = z.infer<typeof GrepInputSchema>;

/** Which engine Grep uses: `auto` picks ripgrep when `rg` is on the PATH, else the built-in one. */
export type GrepEngineChoice = 'auto' | 'ripgrep' | 'builtin';

/** Options of `createGrepTool`. */
export interface GrepToolOptions {
  /** Default `auto`. `ripgrep` without an `rg` to run fails every call with a message saying so. */
  engine?: GrepEngineChoice;
  /** The `rg` to run; default: the first `rg` on the call's `PATH` (`context.environment.PATH`). */
  ripgrepPath?: string;
  /** A search taking longer fails with `SEARCH_TIMEOUT`. Default 120 000 ms. */
  timeoutMs?: number;
  /**
   * Built-in engine: how long the pattern may take on one file before the search fails with
   * `PATTERN_TOO_SLOW` (JavaScript regular expressions can backtrack for minutes; they run in a
   * worker thread, so the process never freezes). Default 10 000 ms.
   */
  patternBudgetMs?: number;
}

const DESCRIPTION = [
  'Searches file contents with a regular expression (ripgrep syntax) and reports matching files, lines or counts.',
  'Use it instead of running grep or rg through Bash.',
  '- output_mode "files_with_matches" (default) lists matching files, newest first; "content" shows matching lines as path:line:text (with -A/-B/-C context); "count" gives matching lines per file.',
  '- Filter with glob (e.g. "*.ts", "!*.test.ts") or type (e.g. "py"); page with head_limit and offset.',
  '- Patterns match within one line unless multiline is true. Escape literal braces and brackets: "interface\\{\\}".',
  '- Hidden files are searched; .git, .hg, .svn, .jj and node_modules folders, binary files and files over 10 MiB (unless given as path) are not; .gitignore is not applied.',
].join('\n');

/** Splits Grep's `glob` input into globs: at spaces and at commas outside `{…}`. */
export function splitGlobInput(glob: string | undefined): string[] {
  if (glob === undefined) return [];
  const globs: string[] = [];
  let current = '';
  let depth = 0;
  for (const character of glob) {
    if (character === '{') depth += 1;
    if (character === '}') depth = Math.max(0, depth - 1);
    if (/\s/u.test(character) || (character === ',' && depth === 0)) {
      if (current !== '') globs.push(current);
      current = '';
    } else {
      current += character;
    }
  }
  if (current !== '') globs.push(current);
  return globs;
}

/** Names models often write for a ripgrep type. */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  typescript: 'ts',
  javascript: 'js',
  python: 'py',
  golang: 'go',
  shell: 'sh',
  bash: 'sh',
  yml: 'yaml',
  'c++': 'cpp',
  rb: 'ruby',
  rs: 'rust',
  kt: 'kotlin',
};

function checkFileType(type: string | undefined): string | undefined {
  if (type === undefined) return undefined;
  if (GREP_FILE_TYPES.has(type)) return type;
  const alias = TYPE_ALIASES[type.toLowerCase()];
  const close = [...GREP_FILE_TYPES.keys()].filter((name) =>
    name.startsWith(type.slice(0, 2).toLowerCase()),
  );
  const suggestion =
    alias !== undefined
      ? `Did you mean "${alias}"?`
      : `Use one of ripgrep's type names (${close.length > 0 ? `for example ${close.slice(0, 8).join(', ')}` : 'js, ts, py, rust, go, java, c, cpp, md, json, …'}).`;
  throw new ToolError(
    `Unknown file type ${JSON.stringify(type)}. ${suggestion} Or use the glob input instead (e.g. "*.vue").`,
    'UNKNOWN_FILE_TYPE',
    { type },
  );
}

async function chooseEngine(
  options: GrepToolOptions,
  context: ToolContext,
): Promise<{ name: GrepEngineName; executable?: string }> {
  const choice = options.engine ?? 'auto';
  if (choice === 'builtin') return { name: 'builtin' };
  const searchPath = context.environment.PATH ?? process.env.PATH;
  const executable = options.ripgrepPath ?? (await findRipgrep(searchPath));
  if (executable !== undefined) return { name: 'ripgrep', executable };
  if (choice === 'auto') return { name: 'builtin' };
  throw new ToolError(
    `Grep is set to use ripgrep (engine: 'ripgrep'), but no \`rg\` executable is on the PATH (${searchPath ?? 'unset'}). Install ripgrep (e.g. \`apt-get install ripgrep\`), pass ripgrepPath, or create the tool with engine 'auto' or 'builtin'.`,
    'RIPGREP_MISSING',
    { path: searchPath },
  );
}

async function searchRoot(
  context: ToolContext,
  givenPath: string | undefined,
): Promise<{ root: string; isFile: boolean }> {
  const root = await resolveToolPath(context, givenPath ?? context.cwd, 'read');
  const info = await stat(root).catch(() => undefined);
  if (info === undefined) {
    throw new ToolError(
      `Cannot search ${JSON.stringify(givenPath ?? context.cwd)}: ${root} does not exist. Give an existing file or folder (Glob finds files by name).`,
      'PATH_NOT_FOUND',
      { givenPath, resolvedPath: root },
    );
  }
  if (!info.isDirectory() && !info.isFile()) {
    throw new ToolError(
      `Cannot search ${JSON.stringify(givenPath)}: ${root} is not a regular file or a folder (a pipe, socket or device). Give a file or folder.`,
      'NOT_A_FILE',
      { givenPath, resolvedPath: root },
    );
  }
  return { root, isFile: info.isFile() };
}

/** Creates the Grep tool. */
export function createGrepTool(options: GrepToolOptions = {}): Tool<GrepInput> {
  const engineChoice = options.engine ?? 'auto';
  if (!['auto', 'ripgrep', 'builtin'].includes(engineChoice)) {
    throw new ToolError(
      `createGrepTool: engine must be 'auto', 'ripgrep' or 'builtin', not ${JSON.stringify(engineChoice)}.`,
      'INVALID_OPTIONS',
    );
  }
  const timeoutMs = options.timeoutMs ?? 120_000;
  return {
    name: 'Grep',
    description: DESCRIPTION,
    inputSchema: GrepInputSchema,
    inputJsonSchema: toolJsonSchema(GrepInputSchema),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    pathsOf: (input) => [input.path ?? '.'],
    async call(input, context): Promise<ToolResult> {
      const parsed = GrepInputSchema.parse(input);
      const outputMode: GrepOutputMode = parsed.output_mode ?? 'files_with_matches';
      const caseInsensitive = parsed['-i'] ?? false;
      const multiline = parsed.multiline ?? false;
      const compiled = compileSearchPattern(parsed.pattern, { caseInsensitive, multiline });
      const fileType = checkFileType(parsed.type);
      const globs = splitGlobInput(parsed.glob);
      for (const glob of globs) checkGlobComplexity(glob, 'glob');
      const { root, isFile } = await searchRoot(context, parsed.path);
      const engine = await chooseEngine(options, context);
      const around = parsed.context ?? parsed['-C'] ?? 0;
      const content = outputMode === 'content';
      const outcome = await callWithTimeout(
        context.signal,
        timeoutMs,
        'Grep',
        async (signal): Promise<SearchOutcome> => {
          const request: SearchRequest = {
            root,
            rootIsFile: isFile,
            pattern: parsed.pattern,
            compiled,
            caseInsensitive,
            multiline,
            globs,
            fileType,
            collectLines: content,
            contextBefore: content ? (parsed['-B'] ?? around) : 0,
            contextAfter: content ? (parsed['-A'] ?? around) : 0,
            signal,
          };
          if (engine.name === 'builtin') {
            return searchWithBuiltinEngine(request, { matchBudgetMs: options.patternBudgetMs });
          }
          return searchWithRipgrep(request, {
            executable: engine.executable as string,
            environment: context.environment,
            countLines: outputMode === 'count',
          });
        },
      );
      const formatted = await formatGrepResult(outcome, {
        outputMode,
        lineNumbers: parsed['-n'] ?? true,
        withContext: content && (parsed['-B'] ?? around) + (parsed['-A'] ?? around) > 0,
        headLimit: parsed.head_limit ?? 0,
        offset: parsed.offset ?? 0,
      });
      return { content: formatted.text, data: formatted.data };
    },
  };
}
