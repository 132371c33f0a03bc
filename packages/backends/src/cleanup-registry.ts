// The process-wide cleanup registry (R32). Whatever a lead starts (member processes, private
// tmux servers, sockets) registers its cleanup here; it runs on SIGINT, SIGTERM, SIGHUP, an
// uncaught exception and an unhandled rejection (async, all settled, bounded by a deadline),
// and the synchronous parts run once more in 'exit'. A process that registered nothing keeps
// Node's own behaviour: the handlers exist only while something is registered.
import { currentMember } from './member-context.js';

/** Options of {@link registerCleanup}. */
export interface CleanupOptions {
  /**
   * A synchronous last pass, run in `'exit'` (and after the async part on a signal or crash):
   * only sync calls work there (`process.kill`, `execFileSync`, `fs.*Sync`).
   */
  sync?: () => void;
}

interface Entry {
  name: string;
  cleanup: () => Promise<void> | void;
  sync?: () => void;
  syncDone: boolean;
}

/** Why the cleanups run. */
export type CleanupReason =
  'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'uncaughtException' | 'unhandledRejection' | 'shutdown';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const SIGNAL_NUMBERS: Record<(typeof SIGNALS)[number], number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGTERM: 15,
};

const entries = new Set<Entry>();
let installed = false;
let deadlineMs = 10_000;
let running: Promise<void> | undefined;

function report(line: string): void {
  try {
    process.stderr.write(`muster cleanup: ${line}\n`);
  } catch {
    // stderr closed: nothing to say it on.
  }
}

function runSyncParts(): void {
  for (const entry of entries) {
    if (entry.syncDone || entry.sync === undefined) continue;
    entry.syncDone = true;
    try {
      entry.sync();
    } catch (error) {
      report(
        `${entry.name} (sync part) failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

/**
 * Runs every registered async cleanup now (all settled, at most the deadline), then their sync
 * parts, and forgets them. For a normal shutdown; the signal and crash handlers call it too.
 */
export function runRegisteredCleanups(reason: CleanupReason = 'shutdown'): Promise<void> {
  running ??= (async () => {
    const list = [...entries];
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = setTimeout(() => resolve('deadline'), deadlineMs);
    });
    const settled = Promise.allSettled(list.map(async (entry) => entry.cleanup())).then(
      (results) => {
        results.forEach((result, index) => {
          if (result.status === 'rejected') {
            const why =
              result.reason instanceof Error ? result.reason.message : String(result.reason);
            report(`${list[index]?.name ?? 'a cleanup'} failed on ${reason}: ${why}`);
          }
        });
        return 'settled' as const;
      },
    );
    const outcome = await Promise.race([settled, deadline]);
    clearTimeout(timer);
    if (outcome === 'deadline')
      report(`cleanups still running after ${deadlineMs} ms on ${reason}; going on`);
    runSyncParts();
    for (const entry of list) entries.delete(entry);
    running = undefined;
    if (entries.size === 0) uninstall();
  })();
  return running;
}

let signalCount = 0;

function onSignal(signal: (typeof SIGNALS)[number]): void {
  signalCount += 1;
  if (signalCount > 1) {
    // A second signal while cleaning up: stop waiting.
    runSyncParts();
    process.exit(128 + SIGNAL_NUMBERS[signal]);
  }
  void runRegisteredCleanups(signal).then(() => endLikeNode(signal));
}

/** Ends the process as if the signal had not been handled (the parent sees the signal). */
function endLikeNode(signal: (typeof SIGNALS)[number]): void {
  uninstall();
  if (process.listenerCount(signal) > 0) {
    // Someone else also handles it: keep the conventional status code instead.
    process.exit(128 + SIGNAL_NUMBERS[signal]);
  }
  process.kill(process.pid, signal);
  setTimeout(() => process.exit(128 + SIGNAL_NUMBERS[signal]), 1_000).unref();
}

function onCrash(kind: 'uncaughtException' | 'unhandledRejection', error: unknown): void {
  // An error thrown inside an in-process member is that member's (R30): its backend ends it.
  if (currentMember() !== undefined) return;
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  report(`${kind === 'uncaughtException' ? 'uncaught exception' : 'unhandled rejection'}: ${text}`);
  if (running !== undefined) {
    runSyncParts();
    process.exit(1);
  }
  void runRegisteredCleanups(kind).then(() => {
    uninstall();
    process.exit(1);
  });
}

const signalHandlers = new Map(SIGNALS.map((signal) => [signal, () => onSignal(signal)] as const));
const onUncaughtException = (error: unknown): void => onCrash('uncaughtException', error);
const onUnhandledRejection = (reason: unknown): void => onCrash('unhandledRejection', reason);

/** Hosts that handle SIGINT, SIGTERM and SIGHUP themselves (see {@link handleSignalsInHost}). */
let signalHosts = 0;

function installSignals(): void {
  for (const [signal, handler] of signalHandlers) process.on(signal, handler);
}

function uninstallSignals(): void {
  for (const [signal, handler] of signalHandlers) process.off(signal, handler);
}

function install(): void {
  if (installed) return;
  installed = true;
  signalCount = 0;
  if (signalHosts === 0) installSignals();
  process.on('uncaughtException', onUncaughtException);
  process.on('unhandledRejection', onUnhandledRejection);
  process.on('exit', runSyncParts);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  if (signalHosts === 0) uninstallSignals();
  process.off('uncaughtException', onUncaughtException);
  process.off('unhandledRejection', onUnhandledRejection);
  process.off('exit', runSyncParts);
}

/**
 * The program that embeds a lead takes SIGINT, SIGTERM and SIGHUP over (e.g. `muster run`,
 * which first asks its team to shut down, then ends it): while the returned release function
 * has not been called, the registry installs no signal handlers, only its crash handlers and
 * the `'exit'` pass, so a signal no longer ends the process from under the host. The host must
 * end what it started itself (closing its backends, or `runRegisteredCleanups`). Calls nest.
 */
export function handleSignalsInHost(): () => void {
  signalHosts += 1;
  if (signalHosts === 1 && installed) uninstallSignals();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    signalHosts -= 1;
    if (signalHosts === 0 && installed) installSignals();
  };
}

/**
 * Registers a cleanup to run when this process ends by SIGINT, SIGTERM, SIGHUP, an uncaught
 * exception or an unhandled rejection (the process then ends with the conventional signal or
 * exit code 1), with an optional sync part that also runs in `'exit'`. Returns the function
 * that unregisters it (call it once the resource was released normally).
 */
export function registerCleanup(
  name: string,
  cleanup: () => Promise<void> | void,
  options: CleanupOptions = {},
): () => void {
  if (typeof name !== 'string' || name.length === 0 || typeof cleanup !== 'function') {
    throw new TypeError(
      'registerCleanup(name, cleanup, { sync? }) needs a non-empty name and a cleanup function.',
    );
  }
  const entry: Entry = { name, cleanup, syncDone: false };
  if (options.sync !== undefined) entry.sync = options.sync;
  entries.add(entry);
  install();
  return () => {
    entries.delete(entry);
    if (entries.size === 0 && running === undefined) uninstall();
  };
}

/** Sets how long the async cleanups may take before the process ends anyway (default 10 000 ms). */
export function setCleanupDeadline(milliseconds: number): void {
  if (!Number.isFinite(milliseconds) || milliseconds < 0) {
    throw new TypeError(
      `setCleanupDeadline needs a non-negative number of milliseconds, got ${String(milliseconds)}.`,
    );
  }
  deadlineMs = milliseconds;
}

/** Names of the cleanups registered now (for `muster doctor` and tests). */
export function registeredCleanups(): string[] {
  return [...entries].map((entry) => entry.name);
}
