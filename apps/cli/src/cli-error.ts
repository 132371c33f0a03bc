import { MusterError } from '@muster/protocol';
import { EXIT_FAILURE, EXIT_USAGE } from './exit-codes.js';

/** Reasons the CLI itself refuses a command (the packages raise their own codes). */
export type CliErrorCode =
  | 'USAGE'
  | 'NO_TEAM'
  | 'TEAM_NOT_FOUND'
  | 'AMBIGUOUS_TEAM'
  | 'NOT_FOUND'
  | 'REFUSED'
  | 'PROBLEMS_FOUND'
  | 'NOT_A_TERMINAL';

/** An error raised by the `muster` command line before or around a package call. */
export class CliError extends MusterError<CliErrorCode> {}

/** The exit code an error should end the process with. */
export function exitCodeFor(error: unknown): number {
  return MusterError.hasCode(error, 'USAGE') ? EXIT_USAGE : EXIT_FAILURE;
}
