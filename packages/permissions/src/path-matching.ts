import picomatch from 'picomatch';
import { normalizePosixPath } from '@muster/protocol';
import { resolveRealPath } from './real-path.js';

/**
 * Path handling for permission checks. `normalizeCallPath` is string normalization only
 * (`~` expanded, relative paths resolved against the working directory, `.`/`..` resolved,
 * `//` collapsed). `realCallPath` and the rule patterns follow symbolic links on the file
 * system (`resolveRealPath`), so a link is judged by where it points, not where it sits.
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

/** `~` expanded and made absolute, with `.`/`..` left for {@link resolveRealPath}. */
function expandCallPath(input: string, base: PathBase): string {
  if (input === '~') return base.homeDirectory;
  if (input.startsWith('~/')) return `${base.homeDirectory}/${input.slice(2)}`;
  return input.startsWith('/') ? input : `${base.currentDirectory}/${input}`;
}

/**
 * The physical absolute path a call path leads to: like {@link normalizeCallPath}, but
 * symbolic links are followed (and `..` after a link goes to the parent of its target).
 */
export function realCallPath(input: string, base: PathBase): string {
  return resolveRealPath(expandCallPath(input, base));
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

/**
 * {@link absolutePathPattern} with symbolic links in its literal directory part followed
 * (`src/**` where `src` links to `/data/src` → `/data/src/**`), so it compares with real paths.
 */
export function realPathPattern(specifier: string, base: PathBase): string {
  const pattern = absolutePathPattern(specifier, base);
  const firstGlob = pattern.search(/[*?[{]/);
  const literal = firstGlob === -1 ? pattern : pattern.slice(0, firstGlob);
  const directory = literal.slice(0, literal.lastIndexOf('/'));
  if (directory === '') return pattern;
  const real = resolveRealPath(directory);
  return `${real === '/' ? '' : real}${pattern.slice(directory.length)}`;
}

const matcherCache = new Map<string, (candidate: string) => boolean>();

/**
 * True when the absolute `candidate` matches the rule specifier's glob; with `realPaths` the
 * pattern's directory part is resolved through symbolic links first (for real candidates).
 */
export function pathMatchesSpecifier(
  candidate: string,
  specifier: string,
  base: PathBase,
  options: { realPaths: boolean } = { realPaths: false },
): boolean {
  const pattern = options.realPaths
    ? realPathPattern(specifier, base)
    : absolutePathPattern(specifier, base);
  let matcher = matcherCache.get(pattern);
  if (matcher === undefined) {
    matcher = picomatch(pattern, { dot: true });
    if (matcherCache.size > 500) matcherCache.clear();
    matcherCache.set(pattern, matcher);
  }
  return matcher(candidate);
}
