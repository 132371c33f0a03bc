/** Exit code for a wrong command line (unknown option, missing argument, bad value). */
export const EXIT_USAGE = 2;
/** Exit code for a command that ran and failed, or a doctor run that found problems. */
export const EXIT_FAILURE = 1;
/**
 * Exit code for a headless team run (`muster run -p`, `muster demo --run -p`) that was stopped
 * before it finished: its `--timeout` passed, or SIGINT/SIGTERM arrived. The team was shut down
 * (asked to stop, then ended) before the command exited.
 */
export const EXIT_STOPPED = 3;
