// Turning what a Grep engine found into the text the model reads. One formatter for both
// engines, so equal findings always read the same: files by modification time (newest first),
// content and counts by path, `head_limit`/`offset` paging over output entries, and a cap on
// the whole text.
import { stat } from 'node:fs/promises';
import type { FileMatches, GrepEngineName, SearchOutcome } from './grep-engine-types.js';

/** The text of one result is cut (at a line) past this many characters. */
export const MAX_RESULT_CHARACTERS = 30_000;

/** Grep's `output_mode`. */
export type GrepOutputMode = 'content' | 'files_with_matches' | 'count';

/** How to present a search's findings. */
export interface FormatOptions {
  /** Which of the three presentations. */
  outputMode: GrepOutputMode;
  /** `-n`: line numbers in content mode. */
  lineNumbers: boolean;
  /** Whether context lines were asked for (groups are then separated by `--`). */
  withContext: boolean;
  /** `head_limit` (0 = no limit). */
  headLimit: number;
  /** `offset`: entries skipped before `head_limit` applies. */
  offset: number;
}

/** What programs and UIs get in `ToolResult.data`. */
export interface GrepResultData {
  /** The engine that searched. */
  engine: GrepEngineName;
  /** The output mode used. */
  outputMode: GrepOutputMode;
  /** How many files matched. */
  numFiles: number;
  /** How many lines matched, over all files (not counted in files_with_matches mode). */
  numMatchingLines?: number;
  /** The files shown (files_with_matches) or all matching files in path order (other modes), absolute paths. */
  filenames: string[];
  /** Output entries before paging (paths, lines or counts). */
  totalEntries: number;
  /** Output entries shown. */
  shownEntries: number;
  /** True when paging, `head_limit` or the size cap left entries out. */
  truncated: boolean;
}

/** The text and data of a Grep result. */
export interface FormattedGrepResult {
  /** What the model reads. */
  text: string;
  /** What programs read. */
  data: GrepResultData;
}

function byPath(left: FileMatches, right: FileMatches): number {
  return left.path < right.path ? -1 : left.path > right.path ? 1 : 0;
}

async function byModificationTime(files: readonly FileMatches[]): Promise<FileMatches[]> {
  const times = new Map<string, number>();
  await Promise.all(
    files.map(async (file) => {
      times.set(file.path, (await stat(file.path).catch(() => undefined))?.mtimeMs ?? 0);
    }),
  );
  return [...files].sort((left, right) => {
    const difference = (times.get(right.path) ?? 0) - (times.get(left.path) ?? 0);
    return difference !== 0 ? difference : byPath(left, right);
  });
}

function contentEntries(files: readonly FileMatches[], options: FormatOptions): string[] {
  const entries: string[] = [];
  let previous: { path: string; number: number } | undefined;
  for (const file of files) {
    for (const line of file.lines) {
      const continues =
        previous !== undefined &&
        previous.path === file.path &&
        previous.number + 1 === line.number;
      if (options.withContext && previous !== undefined && !continues) entries.push('--');
      const separator = line.isMatch ? ':' : '-';
      const number = options.lineNumbers ? `${line.number}${separator}` : '';
      const cut = line.cutCharacters > 0 ? ` … [${line.cutCharacters} more characters]` : '';
      entries.push(`${file.path}${separator}${number}${line.text}${cut}`);
      previous = { path: file.path, number: line.number };
    }
  }
  return entries;
}

/** Formats an engine's findings for the model. */
export async function formatGrepResult(
  outcome: SearchOutcome,
  options: FormatOptions,
): Promise<FormattedGrepResult> {
  const numMatchingLines = outcome.files.reduce((sum, file) => sum + file.matchingLines, 0);
  const ordered =
    options.outputMode === 'files_with_matches'
      ? await byModificationTime(outcome.files)
      : [...outcome.files].sort(byPath);
  const entries =
    options.outputMode === 'files_with_matches'
      ? ordered.map((file) => file.path)
      : options.outputMode === 'count'
        ? ordered.map((file) => `${file.path}:${file.matchingLines}`)
        : contentEntries(ordered, options);
  const end = options.headLimit > 0 ? options.offset + options.headLimit : entries.length;
  let shown = entries.slice(options.offset, end);
  let sizeCut = false;
  let length = 0;
  const fitting = shown.findIndex((entry) => {
    length += entry.length + 1;
    return length > MAX_RESULT_CHARACTERS;
  });
  if (fitting >= 0) {
    shown = shown.slice(0, fitting);
    sizeCut = true;
  }
  const truncated = sizeCut || options.offset > 0 || options.offset + shown.length < entries.length;
  const data: GrepResultData = {
    engine: outcome.engine,
    outputMode: options.outputMode,
    numFiles: outcome.files.length,
    ...(options.outputMode === 'files_with_matches' ? {} : { numMatchingLines }),
    filenames:
      options.outputMode === 'files_with_matches' ? shown : ordered.map((file) => file.path),
    totalEntries: entries.length,
    shownEntries: shown.length,
    truncated,
  };
  return { text: render(shown, entries.length, options, data, sizeCut, numMatchingLines), data };
}

function render(
  shown: readonly string[],
  total: number,
  options: FormatOptions,
  data: GrepResultData,
  sizeCut: boolean,
  numMatchingLines: number,
): string {
  const kind =
    options.outputMode === 'content'
      ? 'lines'
      : options.outputMode === 'count'
        ? 'counts'
        : 'files';
  if (total === 0)
    return options.outputMode === 'files_with_matches' ? 'No files found' : 'No matches found';
  const parts: string[] = [];
  if (options.outputMode === 'files_with_matches') {
    parts.push(`Found ${data.numFiles} ${data.numFiles === 1 ? 'file' : 'files'}`);
  }
  if (shown.length === 0) {
    parts.push(
      `(no ${kind} at offset ${options.offset}: there are ${total}. Use a smaller offset.)`,
    );
  } else {
    parts.push(shown.join('\n'));
  }
  if (options.outputMode === 'count') {
    parts.push(
      `\nFound ${numMatchingLines} matching ${numMatchingLines === 1 ? 'line' : 'lines'} in ${data.numFiles} ${data.numFiles === 1 ? 'file' : 'files'}.`,
    );
  }
  if (data.truncated && shown.length > 0) {
    const first = options.offset + 1;
    const last = options.offset + shown.length;
    const why = sizeCut ? ` (cut at ${MAX_RESULT_CHARACTERS} characters)` : '';
    const next =
      last < total ? ` Pass offset: ${last} for the next ones, or narrow the search.` : '';
    parts.push(`\n[Showing ${kind} ${first}–${last} of ${total}${why}.${next}]`);
  }
  return parts.join('\n');
}
