// What both Grep engines (ripgrep and the built-in one) take and give back, and the few rules
// they share so their results are the same: which files count as text, how a file's bytes become
// lines, and how long a kept line may be.
import { open } from 'node:fs/promises';
import type { CompiledPattern } from './grep-engine-regex.js';

/** Which engine ran a search. */
export type GrepEngineName = 'ripgrep' | 'builtin';

/** Files larger than this are skipped while walking a folder (ripgrep `--max-filesize`). */
export const MAX_SEARCHED_FILE_BYTES = 10 * 1024 * 1024;

/** The built-in engine refuses a single file given by path above this size (it reads files whole). */
export const MAX_EXPLICIT_FILE_BYTES = 256 * 1024 * 1024;

/** A kept line is cut to this many characters (the rest is counted, not kept). */
export const MAX_LINE_CHARACTERS = 500;

/** At most this many lines (matches and context) are collected in content mode. */
export const MAX_COLLECTED_LINES = 50_000;

/** One search, as both engines receive it. Paths are real, absolute and inside the roots. */
export interface SearchRequest {
  /** The folder or file to search (real path). */
  root: string;
  /** Whether `root` is a single file (then `globs` and `fileType` do not apply, as in ripgrep). */
  rootIsFile: boolean;
  /** The pattern as the model wrote it (ripgrep syntax). */
  pattern: string;
  /** The same pattern translated for JavaScript. */
  compiled: CompiledPattern;
  /** `-i`. */
  caseInsensitive: boolean;
  /** `multiline`. */
  multiline: boolean;
  /** Include/exclude globs (ripgrep `--glob` semantics), in order; later ones win. */
  globs: readonly string[];
  /** A file type name from `GREP_FILE_TYPES`. */
  fileType?: string;
  /** Whether lines are kept (content mode) or only counted. */
  collectLines: boolean;
  /** Context lines before each match (content mode). */
  contextBefore: number;
  /** Context lines after each match (content mode). */
  contextAfter: number;
  /** Stops the search. */
  signal: AbortSignal;
}

/** A line of a file in a result. */
export interface SearchLine {
  /** 1-based line number. */
  number: number;
  /** The line without its line break, cut to `MAX_LINE_CHARACTERS`. */
  text: string;
  /** How many characters were cut off (0 when none). */
  cutCharacters: number;
  /** A matching line (true) or a context line (false). */
  isMatch: boolean;
}

/** The matches of one file. */
export interface FileMatches {
  /** Absolute real path. */
  path: string;
  /** How many lines match (a multi-line match counts every line it covers). */
  matchingLines: number;
  /** Matching and context lines in order (content mode only). */
  lines: SearchLine[];
}

/** What an engine found: every file with at least one match, in no particular order. */
export interface SearchOutcome {
  /** The engine that searched. */
  engine: GrepEngineName;
  /** Files with at least one match (binary files never). */
  files: FileMatches[];
}

/** Keeps a line's first `MAX_LINE_CHARACTERS` characters and counts the rest. */
export function clipLine(text: string, number: number, isMatch: boolean): SearchLine {
  const withoutBreak = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (withoutBreak.length <= MAX_LINE_CHARACTERS) {
    return { number, text: withoutBreak, cutCharacters: 0, isMatch };
  }
  return {
    number,
    text: withoutBreak.slice(0, MAX_LINE_CHARACTERS),
    cutCharacters: withoutBreak.length - MAX_LINE_CHARACTERS,
    isMatch,
  };
}

/**
 * A file's text as both engines see it: a UTF-8 byte order mark is dropped, a UTF-16 one
 * decodes the file as UTF-16 (as ripgrep does), anything else is UTF-8 (invalid bytes become
 * U+FFFD). `undefined` for a binary file: one whose text holds a NUL character.
 */
export function decodeSearchText(bytes: Uint8Array): string | undefined {
  let text: string;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) text = new TextDecoder('utf-16le').decode(bytes);
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = new TextDecoder('utf-16be').decode(bytes);
  else text = new TextDecoder('utf-8').decode(bytes);
  return text.includes('\0') ? undefined : text;
}

/** Whether a file is binary by the rule of `decodeSearchText`, reading as little as it can. */
export async function isBinaryFile(filePath: string): Promise<boolean> {
  const handle = await open(filePath, 'r');
  try {
    const chunk = Buffer.alloc(64 * 1024);
    let first = true;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) return false;
      const bytes = chunk.subarray(0, bytesRead);
      if (
        first &&
        bytesRead >= 2 &&
        ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
      ) {
        const whole = await handle.readFile();
        return decodeSearchText(Buffer.concat([bytes, whole])) === undefined;
      }
      first = false;
      if (bytes.includes(0)) return true;
    }
  } finally {
    await handle.close();
  }
}

/** Splits a file's text into lines the way ripgrep does (`\n` ends a line; no line after a final one). */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}
