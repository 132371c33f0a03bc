// Walking a folder the way ripgrep walks it with `--no-ignore --hidden` and muster's fixed
// exclusions: hidden files are searched, symbolic links are never followed (so a walk never
// leaves the folder it was given), only regular files are yielded, and `--glob`/`--type` filters
// are applied with ripgrep's precedence (the last matching glob wins; a glob decides before the
// type). Used by the built-in Grep engine and by Glob.
import type { Dirent } from 'node:fs';
import { opendir } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { ToolError } from '@muster/query';
import { GREP_FILE_TYPES } from './grep-engine-file-types.js';

/**
 * Folders (and files) never searched nor listed, wherever they are below the searched folder:
 * version-control data and installed packages. Given as the search path itself, they are searched.
 */
export const SEARCH_SKIPPED_NAMES: readonly string[] = [
  '.git',
  '.hg',
  '.svn',
  '.jj',
  'node_modules',
];

/** The exclusion globs for `SEARCH_SKIPPED_NAMES` (placed after the model's globs, so they always win). */
export const SEARCH_SKIPPED_NAME_GLOBS: readonly string[] = SEARCH_SKIPPED_NAMES.map(
  (name) => `!${name}`,
);

/** Longest glob accepted. */
const MAX_GLOB_LENGTH = 1000;
/** Most `*` wildcards in one path segment, and most `**` segments, in one glob. */
const MAX_STARS_PER_SEGMENT = 3;
const MAX_GLOBSTARS = 3;

/** The picomatch options both tools use: dot files match, no extglobs (ripgrep has none). */
export const PICOMATCH_OPTIONS = { dot: true, noextglob: true } as const;

/**
 * Refuses a glob that could take very long to match. Globs become backtracking regular
 * expressions: `*a*a*a*a*a*b` needs seconds per 100-character name, and grows with every `*`.
 * Throws a `ToolError` (`INVALID_GLOB`) saying what to change.
 */
export function checkGlobComplexity(glob: string, inputName: string): void {
  const refuse = (what: string): never => {
    throw new ToolError(
      `The ${inputName} ${JSON.stringify(glob.length > 120 ? `${glob.slice(0, 120)}…` : glob)} ${what}. Use fewer wildcards (a longer fixed part, or a narrower path).`,
      'INVALID_GLOB',
      { glob },
    );
  };
  if (glob.length > MAX_GLOB_LENGTH) refuse(`is longer than ${MAX_GLOB_LENGTH} characters`);
  if (glob.includes('\0')) refuse('contains a NUL character, which no file name can hold');
  const segments = glob.split('/');
  if (segments.filter((segment) => segment === '**').length > MAX_GLOBSTARS) {
    refuse(`has more than ${MAX_GLOBSTARS} \`**\` segments, which could take very long to match`);
  }
  for (const segment of segments) {
    if (segment === '**') continue;
    if ((segment.match(/\*/gu) ?? []).length > MAX_STARS_PER_SEGMENT) {
      refuse(
        `has more than ${MAX_STARS_PER_SEGMENT} \`*\` in one path segment (${JSON.stringify(segment)}), which could take very long to match`,
      );
    }
  }
}

/** One compiled `--glob`. */
interface OverrideGlob {
  negated: boolean;
  directoryOnly: boolean;
  matches: (relativePath: string) => boolean;
}

/** A file found by a walk. */
export interface WalkedFile {
  /** Absolute path. */
  path: string;
  /** Path relative to the walked folder, `/`-separated. */
  relativePath: string;
}

/** What a walk filters on. */
export interface WalkOptions {
  /** ripgrep `--glob` globs in order (include, or `!exclude`); `SEARCH_SKIPPED_NAME_GLOBS` are added. */
  globs?: readonly string[];
  /** A `GREP_FILE_TYPES` name: files not matched by an include glob must have this type. */
  fileType?: string;
  /** Stops the walk (it then throws the signal's reason). */
  signal?: AbortSignal;
}

function compileGlob(glob: string): OverrideGlob {
  let pattern = glob;
  const negated = pattern.startsWith('!');
  if (negated) pattern = pattern.slice(1);
  const directoryOnly = pattern.endsWith('/');
  if (directoryOnly) pattern = pattern.slice(0, -1);
  const anchored = pattern.includes('/');
  if (pattern.startsWith('/')) pattern = pattern.slice(1);
  const isMatch = picomatch(pattern, PICOMATCH_OPTIONS);
  return {
    negated,
    directoryOnly,
    matches: anchored
      ? (relativePath) => isMatch(relativePath)
      : (relativePath) => isMatch(path.posix.basename(relativePath)),
  };
}

/** Decides entries the way ripgrep's overrides and types do. */
export function createEntryFilter(
  options: Pick<WalkOptions, 'globs' | 'fileType'>,
): (relativePath: string, isDirectory: boolean) => boolean {
  const overrides = [...(options.globs ?? []), ...SEARCH_SKIPPED_NAME_GLOBS].map(compileGlob);
  const hasInclude = overrides.some((glob) => !glob.negated);
  const typeGlobs =
    options.fileType === undefined ? undefined : GREP_FILE_TYPES.get(options.fileType);
  const typeMatches =
    typeGlobs === undefined ? undefined : picomatch([...typeGlobs], PICOMATCH_OPTIONS);
  return (relativePath, isDirectory) => {
    for (let index = overrides.length - 1; index >= 0; index -= 1) {
      const glob = overrides[index] as OverrideGlob;
      if (glob.directoryOnly && !isDirectory) continue;
      if (glob.matches(relativePath)) return !glob.negated;
    }
    if (isDirectory) return true;
    if (hasInclude) return false;
    if (typeMatches !== undefined) return typeMatches(path.posix.basename(relativePath));
    return true;
  };
}

/** Yields every regular file below `root` that the filters keep. Unreadable folders are skipped. */
export async function* walkFiles(
  root: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkedFile> {
  const keep = createEntryFilter(options);
  const pending: string[] = [''];
  while (pending.length > 0) {
    options.signal?.throwIfAborted();
    const relativeFolder = pending.pop() as string;
    const folder = relativeFolder === '' ? root : path.join(root, relativeFolder);
    let entries: Dirent[];
    try {
      entries = [];
      const directory = await opendir(folder);
      for await (const entry of directory) entries.push(entry);
    } catch {
      continue;
    }
    for (const entry of entries) {
      const relativePath = relativeFolder === '' ? entry.name : `${relativeFolder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (keep(relativePath, true)) pending.push(relativePath);
      } else if (entry.isFile()) {
        if (keep(relativePath, false)) yield { path: path.join(root, relativePath), relativePath };
      }
    }
  }
}
