// The text side of Edit: finding old_string, replacing it literally (never with `$&`-style
// patterns), and telling the model why a match failed.

/** How many match line numbers an ambiguity message lists. */
const LISTED_MATCHES = 10;
/** Lines of context shown above and below a change. */
const SNIPPET_CONTEXT_LINES = 3;
/** Most lines a snippet shows. */
const SNIPPET_MAX_LINES = 40;
/** Snippet lines are cut at this many characters. */
const SNIPPET_MAX_LINE_CHARS = 2000;

/** A successful replacement. */
export interface Replaced {
  /** The new text. */
  text: string;
  /** How many occurrences were replaced (0: none found). */
  count: number;
  /** Where the first replacement starts in `text`. */
  at: number;
  /** Length of the text inserted there. */
  newLength: number;
}

/** Several matches while exactly one was required. */
export interface Ambiguous {
  /** How many matches. */
  count: number;
  /** Line numbers of the first matches. */
  ambiguousLines: number[];
}

/**
 * Replaces `oldString` with `newString` in `original` (one occurrence, or all with
 * `replaceAll`). When nothing matches and the file uses CRLF line endings while `oldString`
 * uses LF, both strings are tried with CRLF.
 */
export function applyReplacement(
  original: string,
  oldString: string,
  newString: string,
  replaceAll: boolean,
): Replaced | Ambiguous {
  let search = oldString;
  let replacement = newString;
  let positions = findAll(original, search);
  if (positions.length === 0 && original.includes('\r\n') && /(?<!\r)\n/u.test(oldString)) {
    search = oldString.replace(/\r?\n/gu, '\r\n');
    replacement = newString.replace(/\r?\n/gu, '\r\n');
    positions = findAll(original, search);
  }
  if (positions.length > 1 && !replaceAll) {
    return {
      count: positions.length,
      ambiguousLines: positions
        .slice(0, LISTED_MATCHES)
        .map((position) => lineNumberAt(original, position)),
    };
  }
  if (positions.length === 0) return { text: original, count: 0, at: 0, newLength: 0 };
  const chosen = replaceAll ? positions : positions.slice(0, 1);
  const parts: string[] = [];
  let cursor = 0;
  for (const position of chosen) {
    parts.push(original.slice(cursor, position), replacement);
    cursor = position + search.length;
  }
  parts.push(original.slice(cursor));
  return {
    text: parts.join(''),
    count: chosen.length,
    at: chosen[0] as number,
    newLength: replacement.length,
  };
}

/** Start offsets of the non-overlapping occurrences of `search` in `text`. */
function findAll(text: string, search: string): number[] {
  const positions: number[] = [];
  let from = 0;
  for (;;) {
    const found = text.indexOf(search, from);
    if (found === -1) return positions;
    positions.push(found);
    from = found + search.length;
  }
}

function lineNumberAt(text: string, offset: number): number {
  let line = 1;
  for (
    let index = text.indexOf('\n');
    index !== -1 && index < offset;
    index = text.indexOf('\n', index + 1)
  ) {
    line += 1;
  }
  return line;
}

/** Why `oldString` was not found in the file, with a hint the model can act on. */
export function describeNoMatch(realPath: string, original: string, oldString: string): string {
  const base = `Edit refused: old_string was not found in ${realPath} (0 matches); nothing was changed.`;
  if (/^ *\d+\t/mu.test(oldString)) {
    return `${base} It seems to hold Read's line-number prefixes ("    12<tab>"): copy the text after the tab only.`;
  }
  const squeeze = (value: string) => value.replace(/\s+/gu, ' ').trim();
  if (squeeze(oldString).length > 0 && squeeze(original).includes(squeeze(oldString))) {
    return `${base} The same words occur with different whitespace or indentation: Read the lines again and copy them exactly.`;
  }
  return `${base} Read the file again and copy the text exactly as it is now, with its whitespace.`;
}

/** The lines around a change, numbered like `cat -n`. */
export function snippetAround(text: string, at: number, length: number): string {
  const lines = text.split('\n');
  const firstChanged = lineNumberAt(text, at);
  const lastChanged = lineNumberAt(text, at + Math.max(length - 1, 0));
  const first = Math.max(1, firstChanged - SNIPPET_CONTEXT_LINES);
  const last = Math.min(
    lines.length,
    lastChanged + SNIPPET_CONTEXT_LINES,
    first + SNIPPET_MAX_LINES - 1,
  );
  const shown: string[] = [];
  for (let number = first; number <= last; number += 1) {
    const line = (lines[number - 1] ?? '').replace(/\r$/u, '').slice(0, SNIPPET_MAX_LINE_CHARS);
    shown.push(`${String(number).padStart(6)}\t${line}`);
  }
  return shown.join('\n');
}
