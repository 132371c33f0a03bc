import picomatch from 'picomatch';
import { normalizePosixPath } from '@muster/protocol';

/**
 * Path handling for permission checks. Everything here is string normalization only:
 * `~` is expanded to the home directory, relative paths are resolved against the working
 * directory, `.` and `..` segments are resolved and `//` collapsed. The file system is never
 * consulted, so symbolic links are NOT resolved: a link inside a working directory that
 * points elsewhere is judged by where the link is, not where it points. Callers that need
 * link-proof checks must resolve paths (`fs.realpath`) before asking.
 */

/** Where `~` and relative paths point. */
export interface PathBase {
  /** Absolute home directory; `~` and `~/x` expand to it. */
  homeDirectory: string;
  /** Absolute directory relative paths are resolved against. */
  currentDirectory: string;
}

/** Expands `~`, resolves against the current directory and normalizes; always absolute. */
export function normalizeCallPath(input: string, base: PathBase): string {
  let expanded = input;
  if (expanded === '~') expanded = base.homeDirectory;
  else if (expanded.startsWith('~/')) expanded = `${base.homeDirectory}/${expanded.slice(2)}`;
  if (!expanded.startsWith('/')) expanded = `${base.currentDirectory}/${expanded}`;
  return normalizePosixPath(expanded);
}

/** True when `candidate` is `directory` itself or anywhere below it (both normalized). */
export function isPathInside(candidate: string, directory: string): boolean {
  const normalizedDirectory = normalizePosixPath(directory);
  if (candidate === normalizedDirectory) return true;
  const prefix = normalizedDirectory === '/' ? '/' : `${normalizedDirectory}/`;
  return candidate.startsWith(prefix);
}

/**
 * Turns a path rule specifier into an absolute glob: `~/x` is under the home directory;
 * `/x` and `//x` are absolute (there is no settings-file-relative form here); anything else
 * is relative to the current directory. `.`/`..` segments are resolved. A specifier that
 * names a directory without a glob (`src/`) covers everything below it.
 */
export function absolutePathPattern(specifier: string, base: PathBase): string {
  let pattern = specifier.trim();
  if (pattern.endsWith('/')) pattern = `${pattern}**`;
  if (pattern.startsWith('//')) pattern = pattern.slice(1);
  return normalizeCallPath(pattern, base);
}

const matcherCache = new Map<string, (candidate: string) => boolean>();

/** True when the normalized absolute `candidate` matches the rule specifier's glob. */
export function pathMatchesSpecifier(
  candidate: string,
  specifier: string,
  base: PathBase,
): boolean {
  const pattern = absolutePathPattern(specifier, base);
  let matcher = matcherCache.get(pattern);
  if (matcher === undefined) {
    matcher = picomatch(pattern, { dot: true });
    if (matcherCache.size > 500) matcherCache.clear();
    matcherCache.set(pattern, matcher);
  }
  return matcher(candidate);
}
