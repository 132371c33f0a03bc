/**
 * The per-request context a script receives: run-wide state, the requests seen so far, bounded
 * waits that never hang (they time out with an error naming what was awaited and for how long,
 * and stop at once when the client goes away or the server stops), and `waitForFile`.
 */
import { readFile } from 'node:fs/promises';
import type { ScriptContext, ScriptRequest, WaitOptions } from './types.js';

/** What the server hands `createScriptContext` for one request. */
export interface ScriptContextOptions {
  /** The run's shared state (one Map per server run). Default: a new Map. */
  state?: Map<string, unknown>;
  /** The requests received so far, this one included: a live array or a function returning it. */
  requests?: readonly ScriptRequest[] | (() => readonly ScriptRequest[]);
  /** Aborted when the client disconnects or the server stops. Default: never aborted. */
  signal?: AbortSignal;
  /** Clock for elapsed times (default `Date.now`). */
  now?: () => number;
  /**
   * Lets `waitForRequest` wake as soon as a request arrives instead of at its next poll: called
   * with a listener, returns the function that removes it. Without it, waits poll every `pollMs`.
   */
  subscribe?: (listener: (request: ScriptRequest) => void) => () => void;
}

/** The default poll interval of waits, in milliseconds. */
export const DEFAULT_POLL_MS = 25;

/** Thrown when a bounded wait runs out of time or is stopped; names what was awaited. */
export class ScriptWaitError extends Error {
  /** `timeout` when the bound was reached, `aborted` when the signal fired. */
  readonly reason: 'timeout' | 'aborted';
  /** Milliseconds waited before giving up. */
  readonly elapsedMs: number;
  /** The wait's description. */
  readonly description: string;

  /** Creates the error; the message says what was awaited and for how long. */
  constructor(
    reason: 'timeout' | 'aborted',
    description: string,
    elapsedMs: number,
    timeoutMs: number,
  ) {
    super(
      reason === 'timeout'
        ? `Timed out waiting for ${description}: still not true after ${elapsedMs} ms (bound ${timeoutMs} ms)`
        : `Stopped waiting for ${description} after ${elapsedMs} ms: the client disconnected or the server stopped`,
    );
    this.name = 'ScriptWaitError';
    this.reason = reason;
    this.elapsedMs = elapsedMs;
    this.description = description;
  }
}

function checkWaitOptions(options: WaitOptions, caller: string): Required<WaitOptions> {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(
      `${caller}: options { timeoutMs, description } are required (every wait is bounded)`,
    );
  }
  const { timeoutMs, pollMs = DEFAULT_POLL_MS, description } = options;
  if (typeof description !== 'string' || description.trim() === '') {
    throw new TypeError(
      `${caller}: options.description must say what is awaited (it names the wait in errors)`,
    );
  }
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError(
      `${caller} (${description}): options.timeoutMs must be a finite number > 0, got ${String(timeoutMs)}`,
    );
  }
  if (typeof pollMs !== 'number' || !Number.isFinite(pollMs) || pollMs <= 0) {
    throw new TypeError(
      `${caller} (${description}): options.pollMs must be a finite number > 0, got ${String(pollMs)}`,
    );
  }
  return { timeoutMs, pollMs, description };
}

/**
 * Polls `condition` every `pollMs` until it is true; rejects with a ScriptWaitError after
 * `timeoutMs` or when `signal` aborts, and with the condition's own error if it throws.
 */
export async function waitUntil<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  options: WaitOptions & {
    signal?: AbortSignal;
    now?: () => number;
    subscribe?: ScriptContextOptions['subscribe'];
  },
  caller = 'waitFor',
): Promise<T> {
  const { timeoutMs, pollMs, description } = checkWaitOptions(options, caller);
  const now = options.now ?? Date.now;
  const signal = options.signal;
  const started = now();
  const elapsed = (): number => Math.max(0, Math.round(now() - started));
  for (;;) {
    if (signal?.aborted) throw new ScriptWaitError('aborted', description, elapsed(), timeoutMs);
    let value: T | undefined;
    try {
      value = await probe();
    } catch (error) {
      throw new Error(
        `${caller} (${description}): the condition threw: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
        },
      );
    }
    if (value !== undefined) return value;
    const left = timeoutMs - (now() - started);
    if (left <= 0) throw new ScriptWaitError('timeout', description, elapsed(), timeoutMs);
    await pause(Math.min(pollMs, left), signal, options.subscribe);
  }
}

function pause(
  milliseconds: number,
  signal: AbortSignal | undefined,
  subscribe: ScriptContextOptions['subscribe'],
): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const cleanup: { unsubscribe?: () => void; finished?: boolean } = {};
    const done = (): void => {
      if (cleanup.finished) return;
      cleanup.finished = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      cleanup.unsubscribe?.();
      resolve();
    };
    const timer = setTimeout(done, milliseconds);
    signal?.addEventListener('abort', done, { once: true });
    const unsubscribe = subscribe?.(done);
    if (cleanup.finished) unsubscribe?.();
    else if (unsubscribe !== undefined) cleanup.unsubscribe = unsubscribe;
  });
}

function requireOptions(options: unknown, caller: string): void {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(
      `${caller}: options { timeoutMs, description } are required (every wait is bounded)`,
    );
  }
}

/** Builds the ScriptContext of one request. The server keeps one `state` Map per run. */
export function createScriptContext(options: ScriptContextOptions = {}): ScriptContext {
  const state = options.state ?? new Map<string, unknown>();
  const source = options.requests ?? [];
  const read = (): readonly ScriptRequest[] => (typeof source === 'function' ? source() : source);
  const signal = options.signal ?? new AbortController().signal;
  const now = options.now;
  return {
    state,
    get requests() {
      return read();
    },
    signal,
    async waitFor(condition, waitOptions) {
      requireOptions(waitOptions, 'waitFor');
      await waitUntil(async () => ((await condition()) ? true : undefined), {
        ...waitOptions,
        signal,
        ...(now ? { now } : {}),
      });
    },
    async waitForRequest(predicate, waitOptions) {
      requireOptions(waitOptions, 'waitForRequest');
      return waitUntil(
        () => read().find((request) => predicate(request)),
        {
          ...waitOptions,
          signal,
          ...(now ? { now } : {}),
          ...(options.subscribe ? { subscribe: options.subscribe } : {}),
        },
        'waitForRequest',
      );
    },
  };
}

/** Options of `waitForFile`. */
export interface WaitForFileOptions {
  /** Bound in milliseconds (required: every wait is bounded). */
  timeoutMs: number;
  /** Poll interval (default 25 ms). */
  pollMs?: number;
  /** What is awaited, for the error (default: `file <path>`). */
  description?: string;
  /** Stop waiting when aborted (pass `context.signal`). */
  signal?: AbortSignal;
  /** Wait until the file's text also passes this test (default: the file exists). */
  until?: (content: string) => boolean;
}

/**
 * Resolves with a file's UTF-8 content once it exists (and passes `until`); rejects with a
 * ScriptWaitError naming the file after `timeoutMs`, or when `signal` aborts.
 */
export async function waitForFile(path: string, options: WaitForFileOptions): Promise<string> {
  if (typeof path !== 'string' || path === '')
    throw new TypeError('waitForFile: path must be a non-empty string');
  const until = options?.until;
  return waitUntil(
    async () => {
      let content: string;
      try {
        content = await readFile(path, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
        throw error;
      }
      return until === undefined || until(content) ? content : undefined;
    },
    {
      timeoutMs: options?.timeoutMs,
      description:
        options?.description ?? `file ${path}${until ? ' (with the expected content)' : ''}`,
      ...(options?.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
      ...(options?.signal !== undefined ? { signal: options.signal } : {}),
    },
    'waitForFile',
  );
}
