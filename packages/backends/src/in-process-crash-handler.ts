// Crash containment for in-process members (R30). One listener each for 'uncaughtException' and
// 'unhandledRejection', installed while something holds it. Node calls them in the context of
// the code that threw, so the AsyncLocalStorage store names the member that owns the error:
// that member alone is ended. An error outside every member is left to the process's other
// listeners (the cleanup registry) or, when there are none, thrown again so that the process
// ends exactly as Node would have ended it without us (message on stderr, exit code 1).
import { currentMemberStore } from './member-context.js';

/** Process-wide state shared by every copy of this package, so that one set of listeners serves all. */
interface ContainmentState {
  holders: number;
  installed: boolean;
  onUncaughtException: (error: unknown) => void;
  onUnhandledRejection: (reason: unknown) => void;
}

const STATE_KEY = Symbol.for('@muster/backends: in-process crash containment, v1');

function sharedState(): ContainmentState {
  const holder = globalThis as { [STATE_KEY]?: ContainmentState };
  holder[STATE_KEY] ??= {
    holders: 0,
    installed: false,
    onUncaughtException,
    onUnhandledRejection,
  };
  return holder[STATE_KEY];
}

const state = sharedState();

/**
 * Installs the crash listeners (once per process) and returns the function that releases this
 * hold; the listeners are removed when the last hold is released.
 */
export function holdCrashContainment(): () => void {
  state.holders += 1;
  if (!state.installed) install();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    state.holders -= 1;
    if (state.holders === 0) uninstall();
  };
}

/** Whether the crash listeners are installed now (for tests and `describe()`). */
export function isCrashContainmentInstalled(): boolean {
  return state.installed;
}

function install(): void {
  state.installed = true;
  process.prependListener('uncaughtException', state.onUncaughtException);
  process.prependListener('unhandledRejection', state.onUnhandledRejection);
}

function uninstall(): void {
  state.installed = false;
  process.removeListener('uncaughtException', state.onUncaughtException);
  process.removeListener('unhandledRejection', state.onUnhandledRejection);
}

function onUncaughtException(error: unknown): void {
  const store = currentMemberStore();
  if (store !== undefined) {
    store.crash(error, 'uncaughtException');
    return;
  }
  // Another listener (the cleanup registry, the application) decides what happens.
  if (process.listenerCount('uncaughtException') > 1) return;
  throwAsNodeWould(error);
}

function onUnhandledRejection(reason: unknown): void {
  const store = currentMemberStore();
  if (store !== undefined) {
    store.crash(reason, 'unhandledRejection');
    return;
  }
  if (process.listenerCount('unhandledRejection') > 1) return;
  const mode = unhandledRejectionMode();
  if (mode === 'none') return;
  if (mode === 'warn' || mode === 'warn-with-error-code') {
    process.emitWarning(`Unhandled promise rejection: ${String(reason)}`, {
      code: 'UNHANDLED_REJECTION',
    });
    if (mode === 'warn-with-error-code') process.exitCode = 1;
    return;
  }
  throwAsNodeWould(asRejectionError(reason));
}

/** Removes our listeners and throws `error` again on the next tick, where Node's default ends the process. */
function throwAsNodeWould(error: unknown): void {
  uninstall();
  process.nextTick(() => {
    throw error;
  });
}

/** The error Node itself raises for a rejection whose reason is not an Error. */
function asRejectionError(reason: unknown): unknown {
  if (reason instanceof Error) return reason;
  const error = new Error(
    'This error originated either by throwing inside of an async function without a catch block, ' +
      `or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason "${String(reason)}".`,
  );
  error.name = 'UnhandledPromiseRejection';
  Object.assign(error, { code: 'ERR_UNHANDLED_REJECTION' });
  return error;
}

/** The `--unhandled-rejections` mode this process runs with (`throw` by default). */
function unhandledRejectionMode(): string {
  const options = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)];
  let mode = 'throw';
  for (const option of options) {
    const match = /^--unhandled-rejections=(.+)$/.exec(option);
    if (match?.[1] !== undefined) mode = match[1];
  }
  return mode;
}
