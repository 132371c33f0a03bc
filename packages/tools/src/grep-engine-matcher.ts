// The built-in engine runs the model's regular expression in a worker thread. JavaScript
// regular expressions backtrack: a pattern such as `^(a+)+$` can take minutes on one line
// (ripgrep's engine cannot), and on the main thread it would freeze every agent of the
// process. In a worker it is stopped: a file that takes longer than the budget ends the search
// with `PATTERN_TOO_SLOW`, and an abort ends the worker at once.
import { Worker } from 'node:worker_threads';
import { ToolError } from '@muster/query';
import type { CompiledPattern } from './grep-engine-regex.js';

/** How long one file may take to match before the search is stopped. */
export const DEFAULT_MATCH_BUDGET_MS = 10_000;

/**
 * The worker's code (plain JavaScript, so no build step can change it). It receives
 * `{ id, text }` messages and answers `{ id, lines }`: the 0-based indexes of the lines a
 * match touches (line by line, or over the whole text in multiline mode, as ripgrep does).
 */
const MATCHER_WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const regex = new RegExp(workerData.source, workerData.flags);
function splitLines(text) {
  if (text.length === 0) return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}
function matchLines(text) {
  const matched = [];
  const lines = splitLines(text);
  for (let index = 0; index < lines.length; index += 1) {
    if (regex.test(lines[index])) matched.push(index);
  }
  return matched;
}
function matchWholeText(text) {
  const starts = [0];
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) starts.push(index + 1);
  const lineCount = text.endsWith('\n') ? starts.length - 1 : starts.length;
  const lineOf = (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  const matched = new Set();
  regex.lastIndex = 0;
  for (const match of text.matchAll(regex)) {
    const start = match.index;
    const end = start + match[0].length;
    const first = lineOf(start);
    if (first >= lineCount) continue;
    const last = end > start ? lineOf(end - 1) : first;
    for (let line = first; line <= last && line < lineCount; line += 1) matched.add(line);
  }
  return [...matched].sort((left, right) => left - right);
}
parentPort.on('message', ({ id, text }) => {
  try {
    parentPort.postMessage({ id, lines: workerData.multiline ? matchWholeText(text) : matchLines(text) });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message ? error.message : error) });
  }
});
`;

/** Matches file texts against one pattern in a worker thread. */
export interface PatternMatcher {
  /** The 0-based indexes of the lines of `text` a match touches, in order. */
  matchingLines(text: string, filePath: string): Promise<number[]>;
  /** Ends the worker (pending calls fail). */
  close(): Promise<void>;
}

interface Pending {
  resolve: (lines: number[]) => void;
  reject: (error: unknown) => void;
  filePath: string;
}

/** Starts a worker for `compiled`; one at a time per search. */
export function createPatternMatcher(
  compiled: CompiledPattern,
  options: { signal: AbortSignal; budgetMs?: number },
): PatternMatcher {
  const budgetMs = options.budgetMs ?? DEFAULT_MATCH_BUDGET_MS;
  const worker = new Worker(MATCHER_WORKER_SOURCE, {
    eval: true,
    workerData: { source: compiled.source, flags: compiled.flags, multiline: compiled.multiline },
  });
  const pending = new Map<number, Pending>();
  const queue: number[] = [];
  let nextId = 0;
  let failure: unknown;
  let timer: NodeJS.Timeout | undefined;

  const fail = (error: unknown): void => {
    failure ??= error;
    if (timer !== undefined) clearTimeout(timer);
    void worker.terminate();
    for (const entry of pending.values()) entry.reject(failure);
    pending.clear();
  };
  // The budget runs for the file at the head of the queue (the one the worker is matching).
  const armTimer = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const head = queue[0];
    if (head === undefined) return;
    timer = setTimeout(() => {
      const filePath = pending.get(head)?.filePath ?? 'a file';
      fail(
        new ToolError(
          `The pattern took more than ${budgetMs} ms on ${filePath} and was stopped: it backtracks too much (nested repetition such as "(a+)+" or "(.*)*"). Simplify it, or install ripgrep, whose engine has no such limit.`,
          'PATTERN_TOO_SLOW',
          { filePath, budgetMs },
        ),
      );
    }, budgetMs);
  };
  const onAbort = (): void => fail(options.signal.reason);
  options.signal.addEventListener('abort', onAbort, { once: true });

  worker.on('message', (message: { id: number; lines?: number[]; error?: string }) => {
    const entry = pending.get(message.id);
    pending.delete(message.id);
    if (queue[0] === message.id) queue.shift();
    armTimer();
    if (entry === undefined) return;
    if (message.error !== undefined)
      entry.reject(
        new ToolError(`Matching ${entry.filePath} failed: ${message.error}`, 'SEARCH_FAILED'),
      );
    else entry.resolve(message.lines ?? []);
  });
  worker.on('error', (error) => fail(error));

  return {
    matchingLines(text, filePath) {
      if (failure !== undefined) return Promise.reject(failure);
      const id = nextId;
      nextId += 1;
      return new Promise<number[]>((resolve, reject) => {
        pending.set(id, { resolve, reject, filePath });
        queue.push(id);
        if (queue.length === 1) armTimer();
        worker.postMessage({ id, text });
      });
    },
    async close() {
      options.signal.removeEventListener('abort', onAbort);
      if (timer !== undefined) clearTimeout(timer);
      await worker.terminate();
    },
  };
}
