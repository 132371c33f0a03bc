// The ripgrep Grep engine: runs `rg` with flags that make its search equal to the built-in
// engine's (no ignore files, hidden files included, no config file, the same size limit, the
// same file types, muster's fixed exclusions), reads its `--json` (or `--files-with-matches`)
// output, and drops binary files by the rule both engines share.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ToolError } from '@muster/query';
import { GREP_FILE_TYPES } from './grep-engine-file-types.js';
import { SEARCH_SKIPPED_NAME_GLOBS } from './grep-engine-walk.js';
import {
  clipLine,
  isBinaryFile,
  MAX_COLLECTED_LINES,
  MAX_SEARCHED_FILE_BYTES,
} from './grep-engine-types.js';
import type { FileMatches, SearchOutcome, SearchRequest } from './grep-engine-types.js';

/** How `rg` is run. */
export interface RipgrepRunOptions {
  /** Absolute path of the `rg` executable. */
  executable: string;
  /** The environment `rg` starts with. */
  environment: Readonly<Record<string, string>>;
  /** Whether per-file line counts are needed (count mode); otherwise only file names are. */
  countLines: boolean;
}

/** The `rg` arguments for a search (exported for tests and for people reading the README). */
export function ripgrepArguments(request: SearchRequest, countLines: boolean): string[] {
  const argumentsList = [
    '--no-config',
    '--no-ignore',
    '--hidden',
    '--no-messages',
    '--max-filesize',
    String(MAX_SEARCHED_FILE_BYTES),
  ];
  if (request.collectLines || countLines) argumentsList.push('--json');
  else argumentsList.push('--files-with-matches', '--null');
  if (request.caseInsensitive) argumentsList.push('--ignore-case');
  else argumentsList.push('--case-sensitive');
  if (request.multiline) argumentsList.push('--multiline', '--multiline-dotall');
  if (request.collectLines) {
    argumentsList.push(
      '--before-context',
      String(request.contextBefore),
      '--after-context',
      String(request.contextAfter),
    );
  }
  if (request.fileType !== undefined) {
    const globs = GREP_FILE_TYPES.get(request.fileType) ?? [];
    argumentsList.push('--type-clear', request.fileType);
    for (const glob of globs) argumentsList.push('--type-add', `${request.fileType}:${glob}`);
    argumentsList.push('--type', request.fileType);
  }
  for (const glob of [...request.globs, ...SEARCH_SKIPPED_NAME_GLOBS])
    argumentsList.push('--glob', glob);
  argumentsList.push('--regexp', request.pattern, '--', request.root);
  return argumentsList;
}

interface RipgrepText {
  text?: string;
  bytes?: string;
}

function textOf(value: RipgrepText | undefined): string {
  if (value === undefined) return '';
  if (typeof value.text === 'string') return value.text;
  return new TextDecoder('utf-8').decode(Buffer.from(value.bytes ?? '', 'base64'));
}

/** Runs a search with ripgrep. */
export async function searchWithRipgrep(
  request: SearchRequest,
  options: RipgrepRunOptions,
): Promise<SearchOutcome> {
  request.signal.throwIfAborted();
  const child = spawn(options.executable, ripgrepArguments(request, options.countLines), {
    cwd: request.rootIsFile ? path.dirname(request.root) : request.root,
    env: { ...options.environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const files = new Map<string, FileMatches>();
  let collectedLines = 0;
  let stopped: unknown;
  const stop = (reason: unknown): void => {
    stopped ??= reason;
    child.kill('SIGKILL');
  };
  const onAbort = (): void => stop(request.signal.reason);
  request.signal.addEventListener('abort', onAbort, { once: true });
  let errorOutput = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    if (errorOutput.length < 10_000) errorOutput += chunk;
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  // Awaited below; this keeps a spawn failure from counting as unhandled meanwhile.
  exited.catch(() => undefined);
  try {
    if (!request.collectLines && !options.countLines) {
      const chunks: Buffer[] = [];
      for await (const chunk of child.stdout) chunks.push(chunk as Buffer);
      for (const name of Buffer.concat(chunks).toString('utf8').split('\0')) {
        if (name !== '') files.set(name, { path: name, matchingLines: 0, lines: [] });
      }
    } else {
      const reader = createInterface({ input: child.stdout, crlfDelay: Infinity });
      for await (const line of reader) {
        const event = JSON.parse(line) as { type: string; data: Record<string, unknown> };
        if (event.type !== 'match' && event.type !== 'context') continue;
        const filePath = textOf(event.data.path as RipgrepText);
        const file = files.get(filePath) ?? { path: filePath, matchingLines: 0, lines: [] };
        files.set(filePath, file);
        const texts = textOf(event.data.lines as RipgrepText).split('\n');
        if (texts.length > 1 && texts[texts.length - 1] === '') texts.pop();
        const first = event.data.line_number as number;
        const isMatch = event.type === 'match';
        if (isMatch) file.matchingLines += texts.length;
        if (!request.collectLines) continue;
        texts.forEach((text, index) => file.lines.push(clipLine(text, first + index, isMatch)));
        collectedLines += texts.length;
        if (collectedLines > MAX_COLLECTED_LINES) {
          stop(
            new ToolError(
              `The search found more than ${MAX_COLLECTED_LINES} lines to show. Narrow it (a more specific pattern, path, glob or type), or use output_mode "files_with_matches" or "count" first.`,
              'TOO_MANY_RESULTS',
            ),
          );
          break;
        }
      }
    }
    const code = await exited;
    if (stopped !== undefined) throw stopped;
    if (code !== 0 && code !== 1) {
      throw new ToolError(
        `ripgrep failed (exit code ${code}): ${errorOutput.trim() || 'no message'}. Check the pattern, glob and type.`,
        'SEARCH_FAILED',
        { exitCode: code },
      );
    }
  } catch (error) {
    if (stopped !== undefined) throw stopped;
    const failure = error as NodeJS.ErrnoException;
    if (typeof failure.syscall === 'string' && failure.syscall.startsWith('spawn')) {
      throw new ToolError(
        `ripgrep could not be started from ${options.executable} (${failure.code ?? failure.message}). Check that it is an executable \`rg\`, or create the Grep tool with engine 'auto' or 'builtin'.`,
        'RIPGREP_MISSING',
        { executable: options.executable },
      );
    }
    throw error;
  } finally {
    request.signal.removeEventListener('abort', onAbort);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  const kept: FileMatches[] = [];
  await Promise.all(
    [...files.values()].map(async (file) => {
      if (file.matchingLines === 0 && (request.collectLines || options.countLines)) return;
      if (!(await isBinaryFile(file.path).catch(() => true))) kept.push(file);
    }),
  );
  return { engine: 'ripgrep', files: kept };
}
