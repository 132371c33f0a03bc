// The Glob tool, with Claude Code 2.1.45's input schema: files whose path matches a glob
// pattern, newest first. Patterns follow picomatch (`**` crosses folders, `*` does not, `{a,b}`
// alternatives, dot files included); the walk never follows symbolic links and skips the same
// folders as Grep (`.git`, `.hg`, `.svn`, `.jj`, `node_modules`).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Tool, ToolContext, ToolResult } from '@muster/query';
import { ToolError } from '@muster/query';
import picomatch from 'picomatch';
import { z } from 'zod';
import { checkGlobComplexity, PICOMATCH_OPTIONS, walkFiles } from './grep-engine-walk.js';
import { callWithTimeout, toolJsonSchema } from './grep-tool-support.js';
import { isInsideRoots, resolveToolPath } from './tool-paths.js';

/** Glob's input, field for field as Claude Code 2.1.45 declares it. */
export const GlobInputSchema = z.strictObject({
  pattern: z
    .string()
    .describe(
      'The glob to match file paths against, e.g. "**/*.ts" or "src/**/*.{js,jsx}". Relative to path.',
    ),
  path: z
    .string()
    .optional()
    .describe(
      'The folder to search in (absolute, or relative to the working directory). Omit it to search the working directory.',
    ),
});

/** What the Glob tool's input parses to. */
export type GlobInput = z.infer<typeof GlobInputSchema>;

/** Options of `createGlobTool`. */
export interface GlobToolOptions {
  /** At most this many paths are returned (newest first). Default 100. */
  maxResults?: number;
  /** The walk stops after this many files and says so. Default 200 000. */
  maxWalkedFiles?: number;
  /** A listing taking longer fails with `SEARCH_TIMEOUT`. Default 60 000 ms. */
  timeoutMs?: number;
}

/** What programs and UIs get in `ToolResult.data`. */
export interface GlobResultData {
  /** The paths returned, absolute, newest first. */
  filenames: string[];
  /** How many files matched in all. */
  numFiles: number;
  /** True when more files matched than were returned, or the walk stopped early. */
  truncated: boolean;
  /** The folder walked (real path). */
  searchRoot: string;
}

const DESCRIPTION = [
  'Finds files by name with a glob pattern, e.g. "**/*.js" or "src/**/*.ts", and returns their absolute paths, most recently modified first.',
  '- `*` matches within one folder, `**` across folders, `{a,b}` either; hidden files match too.',
  '- .git, .hg, .svn, .jj and node_modules folders are skipped, symbolic links are not followed; .gitignore is not applied.',
  '- At most 100 paths are returned; narrow the pattern or path when the result says it was truncated. Use Grep to search file contents.',
].join('\n');

/** Splits a pattern into the folder part without glob characters and the glob below it. */
function splitPattern(pattern: string): { base: string; glob: string } {
  const scanned = picomatch.scan(pattern);
  if (scanned.isGlob) return { base: scanned.base, glob: scanned.glob };
  return {
    base: path.posix.dirname(pattern),
    glob: picomatch.scan(path.posix.basename(pattern)).glob || path.posix.basename(pattern),
  };
}

/**
 * The folder a Glob call reads, as it is given to the roots check: the pattern's folder part
 * (the part before its first glob character) when absolute, else that part below `path` — or
 * below the working directory when `path` is left out, in which case the result is relative
 * (`..` parts kept: `../other/*.ts` names `../other`). A relative folder starting with `~` is
 * written `./~…`, since Glob reads it below the working directory and never in the home folder.
 * A relative pattern whose folder part leaves `path` — through `..` or a symbolic link — is
 * refused by the call, so a folder is read only when the permission decision judged it.
 */
export function globFolder(input: Pick<GlobInput, 'pattern' | 'path'>): string {
  const { base } = splitPattern(input.pattern);
  const start = input.path === '' ? undefined : input.path;
  const folder =
    base === '' || base === '.'
      ? (start ?? '.')
      : path.isAbsolute(base) || start === undefined
        ? base
        : `${start}/${base}`;
  return folder.startsWith('~') ? `./${folder}` : folder;
}

/**
 * Whether a relative pattern's folder part leaves the folder it is relative to (`../x`,
 * `a/../../x`). The permission decision judges `path` and absolute patterns only, so such a
 * pattern must name its folder in `path` instead.
 */
function climbsOut(base: string): boolean {
  if (base === '' || path.isAbsolute(base)) return false;
  const normalized = path.posix.normalize(base);
  return normalized === '..' || normalized.startsWith('../');
}

async function searchFolder(context: ToolContext, input: GlobInput, base: string): Promise<string> {
  const given = globFolder(input);
  const root = await resolveToolPath(context, given, 'read');
  if (base !== '' && base !== '.' && !path.isAbsolute(base)) {
    // The permission decision judged `path` (or the working directory), not the pattern's
    // folder part: a link in that part must not lead the walk out of what was judged.
    const start = await resolveToolPath(context, input.path ?? context.cwd, 'read');
    if (!isInsideRoots(root, [start])) {
      throw new ToolError(
        `The pattern ${JSON.stringify(input.pattern)} leads out of the folder it searches (${JSON.stringify(input.path ?? '.')}): its folder part ${JSON.stringify(base)} is ${root} through a symbolic link. Give that folder as path and the rest as pattern, so it is checked like any path.`,
        'PATTERN_LEAVES_PATH',
        { pattern: input.pattern, folder: given, resolvedPath: root },
      );
    }
  }
  const info = await stat(root).catch(() => undefined);
  if (info === undefined) {
    throw new ToolError(
      `Cannot list ${JSON.stringify(given)}: ${root} does not exist. Give an existing folder as path (or leave path out to search the working directory).`,
      'PATH_NOT_FOUND',
      { givenPath: given, resolvedPath: root },
    );
  }
  if (!info.isDirectory()) {
    throw new ToolError(
      `Cannot list ${JSON.stringify(given)}: ${root} is a file, not a folder. Give its folder as path, or Read the file.`,
      'NOT_A_FOLDER',
      { givenPath: given, resolvedPath: root },
    );
  }
  return root;
}

/** Creates the Glob tool. */
export function createGlobTool(options: GlobToolOptions = {}): Tool<GlobInput> {
  const maxResults = options.maxResults ?? 100;
  const maxWalkedFiles = options.maxWalkedFiles ?? 200_000;
  const timeoutMs = options.timeoutMs ?? 60_000;
  return {
    name: 'Glob',
    description: DESCRIPTION,
    inputSchema: GlobInputSchema,
    inputJsonSchema: toolJsonSchema(GlobInputSchema),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    pathsOf: (input) => [globFolder(input)],
    async call(input, context): Promise<ToolResult> {
      const parsed = GlobInputSchema.parse(input);
      if (parsed.pattern.trim() === '') {
        throw new ToolError(
          'The glob pattern is empty. Give one such as "**/*.ts".',
          'INVALID_PATTERN',
        );
      }
      if (parsed.pattern.includes('\0')) {
        throw new ToolError(
          'The glob pattern contains a NUL byte, which no file name can hold. Remove it.',
          'INVALID_PATTERN',
        );
      }
      if (parsed.path === '') {
        throw new ToolError(
          'path is empty. Give the folder to search, or leave path out to search the working directory.',
          'INVALID_PATH',
        );
      }
      checkGlobComplexity(parsed.pattern, 'pattern');
      const { base, glob } = splitPattern(parsed.pattern);
      if (climbsOut(base)) {
        throw new ToolError(
          `The pattern ${JSON.stringify(parsed.pattern)} climbs out of the folder it searches (${JSON.stringify(parsed.path ?? '.')}) with "..". Give that folder as path and the rest as pattern, e.g. path ${JSON.stringify(globFolder(parsed))} and pattern ${JSON.stringify(glob)}.`,
          'PATTERN_LEAVES_PATH',
          { pattern: parsed.pattern, folder: globFolder(parsed) },
        );
      }
      const root = await searchFolder(context, parsed, base);
      const matches = picomatch(glob, PICOMATCH_OPTIONS);
      const found: string[] = [];
      let walkStopped = false;
      await callWithTimeout(context.signal, timeoutMs, 'Glob', async (signal) => {
        let walked = 0;
        for await (const file of walkFiles(root, { signal })) {
          walked += 1;
          if (walked > maxWalkedFiles) {
            walkStopped = true;
            break;
          }
          if (matches(file.relativePath)) found.push(file.path);
        }
      });
      const times = new Map<string, number>();
      await Promise.all(
        found.map(async (file) =>
          times.set(file, (await stat(file).catch(() => undefined))?.mtimeMs ?? 0),
        ),
      );
      found.sort(
        (left, right) =>
          (times.get(right) ?? 0) - (times.get(left) ?? 0) ||
          (left < right ? -1 : left > right ? 1 : 0),
      );
      const filenames = found.slice(0, maxResults);
      const truncated = walkStopped || found.length > filenames.length;
      const data: GlobResultData = {
        filenames,
        numFiles: found.length,
        truncated,
        searchRoot: root,
      };
      if (filenames.length === 0) {
        const note = walkStopped
          ? ` (the walk stopped after ${maxWalkedFiles} files: give a narrower path)`
          : '';
        return { content: `No files found${note}`, data };
      }
      const notes: string[] = [];
      if (found.length > filenames.length) {
        notes.push(
          `(Showing the ${filenames.length} most recently modified of ${found.length} files. Use a more specific pattern or path to see the others.)`,
        );
      }
      if (walkStopped)
        notes.push(
          `(The walk stopped after ${maxWalkedFiles} files; files beyond were not looked at. Give a narrower path.)`,
        );
      return { content: [filenames.join('\n'), ...notes].join('\n'), data };
    },
  };
}
