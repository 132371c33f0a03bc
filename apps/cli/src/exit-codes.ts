/** Exit code for a wrong command line (unknown option, missing argument, bad value). */
export const EXIT_USAGE = 2;
/** Exit code for a command that ran and failed, or a doctor run that found problems. */
export const EXIT_FAILURE = 1;
