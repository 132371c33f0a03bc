/**
 * Just enough of gitignore's pattern syntax to decide which ignored directories are worth
 * opening for `.worktreeinclude`. The matching itself is left to git; this only prunes.
 */

/** One non-comment line of a `.worktreeinclude` file. */
export interface IncludePattern {
  /** The pattern's `/`-separated parts, without a leading `/`, trailing `/` or `!`. */
  segments: string[];
  /** True when the pattern holds a `/` before its end, so it is relative to the root. */
  anchored: boolean;
  /** True for `!pattern` lines, which can only take files away. */
  negated: boolean;
}

/** Parses `.worktreeinclude` text (gitignore syntax) into patterns, skipping comments. */
export function parseIncludePatterns(text: string): IncludePattern[] {
  const patterns: IncludePattern[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    let line = trimTrailingSpaces(rawLine);
    if (line === '' || line.startsWith('#')) continue;
    let negated = false;
    if (line.startsWith('!')) {
      negated = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
      line = line.slice(1);
    }
    while (line.endsWith('/') && !line.endsWith('\\/')) line = line.slice(0, -1);
    if (line === '') continue;
    const anchored = line.includes('/');
    const segments = line.replace(/^\/+/, '').split('/');
    patterns.push({ segments, anchored, negated });
  }
  return patterns;
}

/**
 * True when some pattern could match `directory` itself or a path inside it, so that this
 * ignored directory should be opened. `directory` is relative to the root, `/`-separated,
 * with or without a trailing `/`. A pattern without a `/` (like `.env`) is only tested
 * against the directory's own name: it does not open a directory by itself.
 */
export function patternsReachDirectory(patterns: IncludePattern[], directory: string): boolean {
  const directorySegments = directory.split('/').filter((segment) => segment !== '');
  const name = directorySegments.at(-1) ?? '';
  return patterns.some((pattern) => {
    if (pattern.negated) return false;
    if (!pattern.anchored) return matchSegment(pattern.segments[0] ?? '', name);
    return prefixCouldMatch(pattern.segments, directorySegments);
  });
}

function prefixCouldMatch(patternSegments: string[], directorySegments: string[]): boolean {
  const [patternHead, ...patternRest] = patternSegments;
  const [directoryHead, ...directoryRest] = directorySegments;
  // The pattern ends at (or above) this directory, or goes on inside it.
  if (patternHead === undefined || directoryHead === undefined) return true;
  if (patternHead === '**') return true;
  if (!matchSegment(patternHead, directoryHead)) return false;
  return prefixCouldMatch(patternRest, directoryRest);
}

/** Matches one path segment against one glob segment (`*`, `?`, `[…]`, `\` escapes). */
export function matchSegment(glob: string, segment: string): boolean {
  return segmentExpression(glob).test(segment);
}

function segmentExpression(glob: string): RegExp {
  let source = '';
  for (let index = 0; index < glob.length; index += 1) {
    const character = glob[index]!;
    if (character === '*') source += '[^/]*';
    else if (character === '?') source += '[^/]';
    else if (character === '\\' && index + 1 < glob.length) {
      index += 1;
      source += escapeForExpression(glob[index]!);
    } else if (character === '[') {
      const close = glob.indexOf(']', index + 2);
      if (close === -1) {
        source += '\\[';
        continue;
      }
      let body = glob.slice(index + 1, close);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      source += `[${body.replaceAll('\\', '\\\\')}]`;
      index = close;
    } else source += escapeForExpression(character);
  }
  try {
    return new RegExp(`^${source}$`);
  } catch {
    // A bracket expression JavaScript cannot read: open the directory rather than skip it.
    return /^/;
  }
}

function escapeForExpression(character: string): string {
  return character.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === ' ' && line[end - 2] !== '\\') end -= 1;
  return line.slice(0, end);
}
