import { WorktreeError } from './worktree-error.js';

/** Longest slug accepted, in characters. */
export const MAXIMUM_SLUG_LENGTH = 64;

const segmentPattern = /^[a-zA-Z0-9._-]+$/;

/**
 * Why `slug` is not an acceptable worktree slug, or undefined when it is. A slug is one
 * or more `/`-separated segments, each made only of ASCII letters, digits, `.`, `_` and
 * `-`, none of them `.` or `..`, at most 64 characters in all.
 */
export function explainInvalidSlug(slug: unknown): string | undefined {
  if (typeof slug !== 'string') return `it is a ${typeof slug}, not a string`;
  if (slug.length === 0) return 'it is empty';
  if (slug.length > MAXIMUM_SLUG_LENGTH) {
    return `it is ${slug.length} characters long; the limit is ${MAXIMUM_SLUG_LENGTH}`;
  }
  for (const segment of slug.split('/')) {
    if (segment === '') return 'it has an empty segment (a leading, trailing or doubled "/")';
    if (segment === '.' || segment === '..') return `it has a "${segment}" segment`;
    if (!segmentPattern.test(segment)) {
      return `the segment ${printable(segment)} has characters other than ASCII letters, digits, ".", "_" and "-"`;
    }
  }
  return undefined;
}

/** True when `slug` can name a worktree (see {@link explainInvalidSlug} for the rules). */
export function isValidWorktreeSlug(slug: unknown): slug is string {
  return explainInvalidSlug(slug) === undefined;
}

/**
 * Throws `INVALID_SLUG` unless `slug` can name a worktree. Runs before anything touches
 * the disk, so a slug like `../../etc` can never place a worktree outside the repository.
 */
export function validateWorktreeSlug(slug: unknown): asserts slug is string {
  const problem = explainInvalidSlug(slug);
  if (problem === undefined) return;
  throw new WorktreeError({
    code: 'INVALID_SLUG',
    message: `The worktree slug ${typeof slug === 'string' ? printable(slug) : String(slug)} is not allowed: ${problem}. Use segments of ASCII letters, digits, ".", "_" and "-" separated by "/", at most ${MAXIMUM_SLUG_LENGTH} characters.`,
    details: { slug: typeof slug === 'string' ? slug : String(slug), reason: problem },
  });
}

/**
 * The branch name a new worktree gets: `muster-wt-{timestamp}-{slug}`, with `/` written
 * as `+` and `.` as `_` so every valid slug gives a valid branch name.
 */
export function branchNameForSlug(slug: string, timestamp: number): string {
  return `muster-wt-${timestamp}-${slug.replaceAll('/', '+').replaceAll('.', '_')}`;
}

/** Quotes text for a message, writing anything outside printable ASCII as `\u{…}`. */
function printable(text: string): string {
  let result = '';
  for (const character of text) {
    const codePoint = character.codePointAt(0) ?? 0;
    if (character === '"' || character === '\\') result += `\\${character}`;
    else if (codePoint >= 0x20 && codePoint <= 0x7e) result += character;
    else result += `\\u{${codePoint.toString(16)}}`;
  }
  return `"${result}"`;
}
