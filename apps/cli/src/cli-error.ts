import { MusterError } from '@muster/protocol';
import { EXIT_FAILURE, EXIT_USAGE } from './exit-codes.js';

/**
 * Reasons the CLI itself refuses a command (the packages raise their own codes):
 * - `USAGE`: the command line is wrong (exit code 2).
 * - `NO_TEAM` / `AMBIGUOUS_TEAM`: no team was named and there is not exactly one.
 * - `NOT_FOUND`: a member named in an argument is not in the team.
 * - `REFUSED`: the packages declined the change (a claim on a blocked task, …).
 * - `NO_MODEL_KEY`: `muster run` found no model key in the environment (exit code 1).
 * - `DEMO_SETUP`: `muster demo --run` could not make its throwaway repository (git missing, …).
 */
export type CliErrorCode =
  'USAGE' | 'NO_TEAM' | 'AMBIGUOUS_TEAM' | 'NOT_FOUND' | 'REFUSED' | 'NO_MODEL_KEY' | 'DEMO_SETUP';

/** An error raised by the `muster` command line before or around a package call. */
export class CliError extends MusterError<CliErrorCode> {}

/** The exit code an error should end the process with. */
export function exitCodeFor(error: unknown): number {
  return MusterError.hasCode(error, 'USAGE') ? EXIT_USAGE : EXIT_FAILURE;
}
