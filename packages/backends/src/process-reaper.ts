// The lead's side of the process reaper (R31 for what members' tools start). A lead marks
// every process started on its behalf with `MUSTER_LEAD_RUN=<run id>` and starts, once, a
// helper (`dist/process-reaper-helper.js`) that holds a pipe from the lead. When that pipe
// closes — `close()`, a normal exit, a crash, or a SIGKILL that runs no cleanup at all — the
// helper ends every process carrying the marker and exits. Linux only: it reads /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LEAD_RUN_VARIABLE } from '@muster/protocol';
import { BackendError } from './backend-error.js';
import type { BackendAvailability } from './backend-types.js';
import { readProcessIdentity } from './process-control.js';

/** Options of {@link startProcessReaper}. */
export interface ProcessReaperOptions {
  /** The lead run id (letters, digits and dashes, ≥ 8). Default: a random UUID. */
  runId?: string;
  /** How long marked processes get between SIGTERM and SIGKILL (default 1 000 ms). */
  graceMs?: number;
  /** How long the helper keeps killing what is still marked after SIGKILL (default 2 000 ms). */
  settleMs?: number;
  /** How long the helper may take to start (default 15 000 ms). */
  startTimeoutMs?: number;
}

/** The helper's one-line report of its sweep. */
export interface ProcessReaperReport {
  /** Why it swept ("the lead closed the pipe", "the lead process is gone", …). */
  why: string;
  /** Marked processes it found. */
  found: number[];
  /** Those that needed SIGKILL. */
  forced: number[];
  /** Marked processes still running when it gave up (normally empty). */
  survivors: number[];
}

/** How the helper ended. */
export interface ProcessReaperEnd {
  code: number | null;
  signal: string | null;
  /** Its sweep report, when it printed one. */
  report?: ProcessReaperReport;
}

/** A running process reaper. */
export interface ProcessReaper {
  /** The lead run id: the marker's value. */
  readonly runId: string;
  /** The helper's pid. */
  readonly pid: number;
  /** `{ MUSTER_LEAD_RUN: runId }`: merge it into the environment of every process to sweep. */
  readonly environment: Readonly<Record<string, string>>;
  /** Resolves once, when the helper has ended (never rejects). */
  readonly ended: Promise<ProcessReaperEnd>;
  /** Whether the helper still runs. */
  isRunning(): boolean;
  /**
   * Closes the pipe: the helper sweeps what is still marked (normally nothing: a normal
   * shutdown has ended it already) and exits. Resolves with its report. Idempotent.
   */
  close(): Promise<ProcessReaperReport | undefined>;
}

const DEFAULT_GRACE_MS = 1_000;
const DEFAULT_SETTLE_MS = 2_000;
const DEFAULT_START_TIMEOUT_MS = 15_000;
/** Extra time `close()` gives the helper beyond its grace and settle times before SIGKILL. */
const CLOSE_MARGIN_MS = 5_000;
const KEPT_STDERR_CHARACTERS = 2_000;
const RUN_ID_PATTERN = /^[A-Za-z0-9-]{8,}$/;

/**
 * Whether a process reaper can work here: it needs /proc with readable `/proc/<pid>/environ`
 * (Linux). On macOS and Windows it is unavailable, and tool processes of a SIGKILLed lead are
 * not swept there (a documented limitation). `platform` defaults to `process.platform` (tests
 * inject the others).
 */
export function processReaperAvailability(
  platform: NodeJS.Platform = process.platform,
): BackendAvailability {
  if (platform === 'linux' && readProcessIdentity(process.pid) !== undefined) {
    return { available: true };
  }
  return {
    available: false,
    reason: `there is no /proc/<pid>/environ on ${platform}, so processes cannot be found by their ${LEAD_RUN_VARIABLE} marker`,
    fix: 'none here: on this platform a member tool process that a SIGKILLed lead leaves behind must be ended by hand (its environment holds the marker)',
  };
}

function resolveHelperScript(): string {
  const beside = fileURLToPath(new URL('./process-reaper-helper.js', import.meta.url));
  if (existsSync(beside)) return beside;
  // This module runs from src/ in the package's own tests: use the built helper.
  const built = fileURLToPath(new URL('../dist/process-reaper-helper.js', import.meta.url));
  if (existsSync(built)) return built;
  throw new BackendError({
    code: 'UNAVAILABLE',
    message: `process reaper: its helper program is missing (looked for ${beside} and ${built}); build @muster/backends (pnpm --filter @muster/backends build)`,
  });
}

function checkMilliseconds(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new BackendError({
      code: 'INVALID_SPEC',
      message: `startProcessReaper: ${name} must be a finite number of milliseconds ≥ 0, got ${String(value)}.`,
    });
  }
  return value;
}

/**
 * Starts a process reaper helper for one lead run and resolves once it listens. It runs detached
 * in its own session (a group kill of the lead's group or terminal does not reach it), with an
 * empty environment (no credentials, no marker: it never sweeps itself), and never keeps the
 * lead's event loop alive. Throws `BackendError('UNAVAILABLE')` where there is no /proc or the
 * helper cannot start, saying why and what to do.
 */
export async function startProcessReaper(
  options: ProcessReaperOptions = {},
): Promise<ProcessReaper> {
  const runId = options.runId ?? randomUUID();
  if (typeof runId !== 'string' || !RUN_ID_PATTERN.test(runId)) {
    throw new BackendError({
      code: 'INVALID_SPEC',
      message: `startProcessReaper: runId must be at least 8 letters, digits or dashes, got ${JSON.stringify(runId)}.`,
    });
  }
  const graceMs = checkMilliseconds(options.graceMs ?? DEFAULT_GRACE_MS, 'graceMs');
  const settleMs = checkMilliseconds(options.settleMs ?? DEFAULT_SETTLE_MS, 'settleMs');
  const startTimeoutMs = checkMilliseconds(
    options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
    'startTimeoutMs',
  );
  const availability = processReaperAvailability();
  if (!availability.available) {
    throw new BackendError({
      code: 'UNAVAILABLE',
      message: `process reaper: ${availability.reason}; ${availability.fix}.`,
    });
  }
  const lead = readProcessIdentity(process.pid);
  const configuration = JSON.stringify({
    variable: LEAD_RUN_VARIABLE,
    value: runId,
    leadPid: process.pid,
    leadStartTime: lead?.startTime,
    graceMs,
    settleMs,
  });
  const child: ChildProcess = spawn(process.execPath, [resolveHelperScript(), configuration], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    env: {},
  });
  return await watchHelper(child, runId, startTimeoutMs, graceMs + settleMs + CLOSE_MARGIN_MS);
}

async function watchHelper(
  child: ChildProcess,
  runId: string,
  startTimeoutMs: number,
  closeTimeoutMs: number,
): Promise<ProcessReaper> {
  let stderr = '';
  let stdout = '';
  let report: ProcessReaperReport | undefined;
  let sawReady = false;
  let running = true;
  let signalReady: (() => void) | undefined;
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-KEPT_STDERR_CHARACTERS);
  });
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    stdout += chunk;
    let newline = stdout.indexOf('\n');
    while (newline >= 0) {
      const line = stdout.slice(0, newline).trim();
      stdout = stdout.slice(newline + 1);
      if (line === 'ready') {
        sawReady = true;
        signalReady?.();
      } else if (line.startsWith('{')) {
        try {
          report = JSON.parse(line) as ProcessReaperReport;
        } catch {
          stderr += `\nunreadable report: ${line}`;
        }
      }
      newline = stdout.indexOf('\n');
    }
  });
  // A write to a helper that already ended must not become an 'error' event on the lead.
  child.stdin?.on('error', () => undefined);
  const ended = new Promise<ProcessReaperEnd>((resolve) => {
    child.once('close', (code, signal) => {
      running = false;
      resolve({ code, signal, ...(report === undefined ? {} : { report }) });
    });
  });
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`it did not say ready within ${String(startTimeoutMs)} ms`)),
      startTimeoutMs,
    );
    signalReady = () => {
      clearTimeout(timer);
      resolve();
    };
    if (sawReady) signalReady();
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    void ended.then((end) => {
      clearTimeout(timer);
      const output = stderr.trim() === '' ? '' : `: ${stderr.trim()}`;
      reject(new Error(`it ended with ${end.signal ?? `code ${String(end.code)}`}${output}`));
    });
  });
  try {
    await started;
  } catch (error) {
    child.kill('SIGKILL');
    throw new BackendError({
      code: 'UNAVAILABLE',
      message: `process reaper: the helper could not start (${(error as Error).message}); check that node can run ${process.execPath} and that @muster/backends is built.`,
      cause: error,
    });
  }
  // From here on the helper must never keep the lead alive: it outlives the lead on purpose.
  const unreference = (handle: unknown): void =>
    (handle as { unref?: () => void } | null | undefined)?.unref?.();
  for (const handle of [child, child.stdin, child.stdout, child.stderr]) unreference(handle);

  let closing: Promise<ProcessReaperReport | undefined> | undefined;
  const environment = Object.freeze({ [LEAD_RUN_VARIABLE]: runId });
  return {
    runId,
    pid: child.pid as number,
    environment,
    ended,
    isRunning: () => running,
    close() {
      closing ??= (async () => {
        if (running) {
          child.stdin?.end();
          // The lead waits for the sweep it asked for; SIGKILL if the helper hangs.
          const timer = setTimeout(() => child.kill('SIGKILL'), closeTimeoutMs);
          const end = await ended;
          clearTimeout(timer);
          return end.report;
        }
        return (await ended).report;
      })();
      return closing;
    },
  };
}

let sharedRunId: string | undefined;
let sharedStart: Promise<ProcessReaper> | undefined;

/**
 * The lead process's one process reaper, started at the first call and started again (with the
 * same run id, so nothing marked earlier is lost) if it ended. It is never closed by the
 * backends: it sweeps when the lead process ends, however it ends.
 */
export function sharedProcessReaper(): Promise<ProcessReaper> {
  if (sharedStart === undefined) {
    sharedRunId ??= randomUUID();
    const starting = startProcessReaper({ runId: sharedRunId });
    sharedStart = starting;
    const forget = (): void => {
      if (sharedStart === starting) sharedStart = undefined;
    };
    starting.then((reaper) => void reaper.ended.then(forget), forget);
  }
  return sharedStart;
}
