// How an interactive session ends: the first Ctrl-C (or SIGINT/SIGTERM) asks every teammate to
// shut down and waits up to a deadline, then ends the rest and closes the runtime; a second
// one closes everything at once. Either way `done` resolves once nothing of the team runs.
import type { ShutdownReport, TeamRuntime } from '@muster/agents';

/** What the ending did. */
export interface EndingOutcome {
  /** The second stop ended everything at once (or the graceful shutdown failed). */
  forced: boolean;
  /** The graceful shutdown's report, when it finished. */
  report?: ShutdownReport;
  /** Why the session ended (`Ctrl-C`, `SIGTERM`, …). */
  trigger: string;
}

/** The ending of one session. */
export interface SessionEnding {
  /** First call: graceful shutdown up to the deadline; second: everything ends now. */
  stop(trigger: string): void;
  /** When the graceful shutdown gives up on the teammates (ms since the epoch), once stopping. */
  deadline(): number | undefined;
  /** A second stop came: everything is being ended. */
  forced(): boolean;
  /** Resolves once the runtime is closed. */
  readonly done: Promise<EndingOutcome>;
}

/** Creates the ending of a session over `runtime`. `onChange` hears each step (to redraw). */
export function createSessionEnding(options: {
  runtime: Pick<TeamRuntime, 'shutdown' | 'close'>;
  deadlineMs: number;
  onChange?: () => void;
  now?: () => number;
}): SessionEnding {
  const now = options.now ?? Date.now;
  let stops = 0;
  let deadline: number | undefined;
  let trigger = '';
  let report: ShutdownReport | undefined;
  let resolveDone: (outcome: EndingOutcome) => void = () => undefined;
  const done = new Promise<EndingOutcome>((resolve) => {
    resolveDone = resolve;
  });
  const finish = async (forced: boolean) => {
    await options.runtime.close().catch(() => undefined);
    // A forced end leaves no graceful report: what the shutdown saw was cut short.
    resolveDone({ forced, trigger, ...(report === undefined || forced ? {} : { report }) });
  };
  return {
    stop(why) {
      stops += 1;
      if (stops === 1) {
        trigger = why;
        deadline = now() + options.deadlineMs;
        options.onChange?.();
        options.runtime
          .shutdown({
            deadlineMs: options.deadlineMs,
            reason: 'The person ended the session (Ctrl-C): finish up and stop.',
          })
          .then(
            (shutdownReport) => {
              report = shutdownReport;
              if (stops === 1) void finish(false);
            },
            () => {
              if (stops === 1) void finish(true);
            },
          );
      } else if (stops === 2) {
        options.onChange?.();
        void finish(true);
      }
    },
    deadline: () => deadline,
    forced: () => stops >= 2,
    done,
  };
}
