// The process around a process teammate: `muster teammate` and `dist/teammate-main.js` call
// {@link runProcessTeammateCommand}, which turns SIGINT, SIGTERM and SIGHUP into the teammate's
// stop (exit 130, 143, 129 once it ended), lets the teammate finish writing its state before
// the lead link's cleanup ends the process, and ends the process within a second once the lead
// is gone.
import { fileURLToPath } from 'node:url';
import { registerCleanup } from '@muster/backends';
import type { DisplayOutput } from './process-teammate-display.js';
import { PROCESS_TEAMMATE_EXIT_CODES, runProcessTeammate } from './process-teammate.js';

/**
 * The built executable of a process teammate (`<package>/dist/teammate-main.js`): a lead starts
 * it as `process.execPath [PROCESS_TEAMMATE_ENTRY, ...flags]`, so no `muster` needs to be on
 * the PATH. `spawnTeammate` uses it by default.
 */
export const PROCESS_TEAMMATE_ENTRY: string = fileURLToPath(
  new URL('../dist/teammate-main.js', import.meta.url),
);

/** Options of {@link runProcessTeammateCommand}. */
export interface ProcessTeammateCommandOptions {
  /** The arguments after the command name. */
  argv: readonly string[];
  /** Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Default `process.stdout`. */
  stdout?: DisplayOutput;
  /** Default `process.stderr`. */
  stderr?: DisplayOutput;
  /** The root when `--root` is not given (`muster --root`). */
  root?: string;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** How long a signal's cleanup waits for the teammate to write its last state. */
const STOP_WAIT_MS = 1_500;
/** How long after the lead is gone the process ends at the latest. */
const LEAD_GONE_EXIT_MS = 900;

/**
 * Runs a process teammate as the whole process (see the file comment) and returns its exit
 * code. After it returns the process ends by itself; should anything still hold the event loop
 * open, it exits with that code 1.5 s later.
 */
export async function runProcessTeammateCommand(
  options: ProcessTeammateCommandOptions,
): Promise<number> {
  const controller = new AbortController();
  const handlers = SIGNALS.map((signal) => {
    const handler = () => {
      if (controller.signal.aborted) process.exit(PROCESS_TEAMMATE_EXIT_CODES[signal]);
      controller.abort(signal);
    };
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  // Runs with the lead link's cleanup on a signal: the teammate first ends its turn and writes
  // that it is gone, then the process ends with the signal's code.
  const unregister = registerCleanup('muster teammate', () =>
    Promise.race([
      finished,
      new Promise<void>((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref()),
    ]),
  );
  let code: number = PROCESS_TEAMMATE_EXIT_CODES.failed;
  try {
    code = await runProcessTeammate({
      argv: options.argv,
      environment: options.environment ?? process.env,
      stdout: options.stdout ?? process.stdout,
      stderr: options.stderr ?? process.stderr,
      signal: controller.signal,
      ...(options.root === undefined ? {} : { root: options.root }),
      onLeadGone: () => {
        setTimeout(
          () => process.exit(PROCESS_TEAMMATE_EXIT_CODES.failed),
          LEAD_GONE_EXIT_MS,
        ).unref();
      },
    });
    return code;
  } finally {
    finish();
    unregister();
    // After a signal the handlers stay: the lead link's cleanup, still running, then ends the
    // process with the signal's exit code (143) instead of re-raising the signal.
    if (!controller.signal.aborted) for (const remove of handlers) remove();
    setTimeout(() => process.exit(code), STOP_WAIT_MS).unref();
  }
}
