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

/** Parses `--timeout <seconds>`: a positive number of seconds (fractions allowed), in milliseconds. */
export function parseTimeoutSecondsArgument(value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds <= 0 || seconds > 604_800) {
    throw new InvalidArgumentError(
      `${JSON.stringify(value)} is not a number of seconds: give a positive number such as 600 (at most 604800, a week).`,
    );
  }
  return Math.round(seconds * 1000);
}

/** Parses `--max-turns <n>`: a whole number of at least 1. */
export function parseMaxTurnsArgument(value: string): number {
  if (!/^[1-9][0-9]{0,5}$/.test(value)) {
    throw new InvalidArgumentError(
      `${JSON.stringify(value)} is not a number of turns: give a whole number of at least 1, such as 20.`,
    );
  }
  return Number(value);
}

/**
 * Splits permission rules given as `--allowed-tools "Bash(npm test:*) Read,Edit"`: separated by
 * commas or spaces, except inside parentheses (`Bash(npm test:*)` stays one rule). The option
 * may be repeated; the rules add up. Their syntax is checked when the command runs.
 */
export function collectPermissionRuleArguments(
  value: string,
  previous: string[] | undefined,
): string[] {
  const rules: string[] = [];
  let depth = 0;
  let current = '';
  for (const character of value) {
    if (character === '(') depth += 1;
    if (character === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (character === ',' || /\s/.test(character))) {
      if (current !== '') rules.push(current);
      current = '';
    } else {
      current += character;
    }
  }
  if (current !== '') rules.push(current);
  if (rules.length === 0) {
    throw new InvalidArgumentError(
      'No rule given: write tool names or rules such as "Bash(npm test:*)", separated by commas or spaces.',
    );
  }
  return [...(previous ?? []), ...rules];
}
