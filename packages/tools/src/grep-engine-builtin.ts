// The built-in Grep engine: the same search as ripgrep with `--no-ignore --hidden`, written in
// JavaScript for machines without `rg`. Files are read whole (folder walks skip files over
// `MAX_SEARCHED_FILE_BYTES`), binary files are skipped, and the pattern runs line by line (or
// over the whole text in multiline mode) as translated by `compileSearchPattern`.
import { readFile, stat } from 'node:fs/promises';
import { ToolError } from '@muster/query';
import { createPatternMatcher } from './grep-engine-matcher.js';
import type { PatternMatcher } from './grep-engine-matcher.js';
import { walkFiles } from './grep-engine-walk.js';
import {
  clipLine,
  decodeSearchText,
  MAX_COLLECTED_LINES,
  MAX_EXPLICIT_FILE_BYTES,
  MAX_SEARCHED_FILE_BYTES,
  splitLines,
} from './grep-engine-types.js';
import type { FileMatches, SearchLine, SearchOutcome, SearchRequest } from './grep-engine-types.js';

/** How many files are read at the same time. */
const PARALLEL_READS = 8;

/** Runs a search with the built-in engine. */
export async function searchWithBuiltinEngine(
  request: SearchRequest,
  options: { matchBudgetMs?: number } = {},
): Promise<SearchOutcome> {
  request.signal.throwIfAborted();
  const files: FileMatches[] = [];
  let collectedLines = 0;
  const record = (found: FileMatches | undefined): void => {
    if (found === undefined) return;
    collectedLines += found.lines.length;
    if (collectedLines > MAX_COLLECTED_LINES) throw tooManyLines();
    files.push(found);
  };
  const matcher = createPatternMatcher(request.compiled, {
    signal: request.signal,
    budgetMs: options.matchBudgetMs,
  });
  try {
    if (request.rootIsFile) {
      const { size } = await stat(request.root);
      if (size > MAX_EXPLICIT_FILE_BYTES) {
        throw new ToolError(
          `${request.root} is ${size} bytes; the built-in search engine reads at most ${MAX_EXPLICIT_FILE_BYTES} bytes from one file. Install ripgrep (\`rg\`) to search it, or Read it in parts.`,
          'FILE_TOO_LARGE',
          { path: request.root, size },
        );
      }
      record(await searchFile(request.root, request, matcher));
    } else {
      await searchFolder(request, matcher, record);
    }
  } finally {
    await matcher.close();
  }
  request.signal.throwIfAborted();
  return { engine: 'builtin', files };
}

/** Walks the folder and searches up to `PARALLEL_READS` files at a time. */
async function searchFolder(
  request: SearchRequest,
  matcher: PatternMatcher,
  record: (found: FileMatches | undefined) => void,
): Promise<void> {
  const running = new Set<Promise<void>>();
  let failure: unknown;
  const walk = walkFiles(request.root, {
    globs: request.globs,
    fileType: request.fileType,
    signal: request.signal,
  });
  for await (const file of walk) {
    if (failure !== undefined) break;
    const task = (async () => {
      const info = await stat(file.path).catch(() => undefined);
      if (info === undefined || info.size > MAX_SEARCHED_FILE_BYTES) return;
      record(await searchFile(file.path, request, matcher));
    })()
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => running.delete(task));
    running.add(task);
    if (running.size >= PARALLEL_READS) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure !== undefined) throw failure;
}

function tooManyLines(): ToolError {
  return new ToolError(
    `The search found more than ${MAX_COLLECTED_LINES} lines to show. Narrow it (a more specific pattern, path, glob or type), or use output_mode "files_with_matches" or "count" first.`,
    'TOO_MANY_RESULTS',
  );
}

/** Searches one file; `undefined` when it has no match, is binary, or cannot be read. */
async function searchFile(
  filePath: string,
  request: SearchRequest,
  matcher: PatternMatcher,
): Promise<FileMatches | undefined> {
  request.signal.throwIfAborted();
  let bytes: Buffer;
  try {
    bytes = await readFile(filePath);
  } catch {
    return undefined;
  }
  const text = decodeSearchText(bytes);
  if (text === undefined) return undefined;
  const lines = splitLines(text);
  const matched = new Set<number>(await matcher.matchingLines(text, filePath));
  if (matched.size === 0) return undefined;
  return {
    path: filePath,
    matchingLines: matched.size,
    lines: request.collectLines ? withContext(lines, matched, request) : [],
  };
}

/** The matching lines plus their context, in order. */
function withContext(
  lines: readonly string[],
  matched: ReadonlySet<number>,
  request: SearchRequest,
): SearchLine[] {
  const shown = new Set<number>();
  for (const index of matched) {
    const from = Math.max(0, index - request.contextBefore);
    const to = Math.min(lines.length - 1, index + request.contextAfter);
    for (let line = from; line <= to; line += 1) shown.add(line);
  }
  return [...shown]
    .sort((left, right) => left - right)
    .map((index) => clipLine(lines[index] as string, index + 1, matched.has(index)));
}
