// Checks of command-line values that need nothing from disk. They run while commander parses
// the command line, so a wrong value ends like any other wrong command line: the message on
// stderr and exit code 2. This file must stay free of package imports (start-up time).
import { InvalidArgumentError } from 'commander';

/** Task ids as `@muster/protocol` accepts them: positive whole numbers without leading zeros. */
const TASK_ID = /^[1-9][0-9]{0,14}$/;

/**
 * Parses one task id argument (`7` or `#7`) and returns it without the `#`; anything else
 * is refused as a wrong command line.
 */
export function parseTaskIdArgument(value: string): string {
  const id = value.startsWith('#') ? value.slice(1) : value;
  if (!TASK_ID.test(id)) {
    throw new InvalidArgumentError(
      `The task id ${JSON.stringify(value)} is not valid: task ids are positive whole numbers such as "7" (see muster tasks list).`,
    );
  }
  return id;
}

/** The parser for a variadic task id option (`--blocked-by 1 2`): collects checked ids. */
export function collectTaskIdArguments(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), parseTaskIdArgument(value)];
}

/** Refuses an empty (or blank) value, such as `--root ""`, which would mean "here" silently. */
export function parseNonEmptyArgument(value: string): string {
  if (value.trim() === '') {
    throw new InvalidArgumentError('The value is empty. Give a value, or leave the option out.');
  }
  return value;
}
