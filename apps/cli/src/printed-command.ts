// Commands muster prints for the user to run next ("Next: muster tasks add …"). They must work
// when pasted into a POSIX shell: every argument is quoted when needed, and the root and team
// the user chose are carried over when the command would not find them by itself.
import type { CommandContext } from './context.js';

/** Characters a POSIX shell never treats specially inside a word (no quoting needed). */
const PLAIN_WORD = /^[A-Za-z0-9_./:=@%+,-]+$/;

/**
 * Quotes one argument for a POSIX shell (sh, bash, zsh): unchanged when it is a plain word,
 * else in single quotes, with a single quote written as `'\''`. An empty string becomes `''`.
 */
export function quoteShellArgument(value: string): string {
  if (PLAIN_WORD.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The `--root` and `--team` options a printed command needs to reach the same root and team:
 * `--root` when the root did not come from the default (`--root` or `$MUSTER_HOME` was used),
 * `--team` unless the team is the one `$MUSTER_TEAM` already names.
 */
export function locationOptions(context: CommandContext, team: string | undefined): string[] {
  const options: string[] = [];
  if (context.rootSource !== 'default') options.push('--root', context.root);
  const teamFromEnvironment =
    context.requestedTeamSource === 'MUSTER_TEAM' && context.requestedTeam === team;
  if (team !== undefined && !teamFromEnvironment) options.push('--team', team);
  return options;
}

/**
 * A `muster …` command line to print: the words, then `--root` / `--team` as
 * {@link locationOptions} decides (pass `team: undefined` for commands without a team, and
 * `teamAsArgument: true` when the team is already one of the words, as in `muster watch x`),
 * every argument quoted for the shell.
 */
export function formatMusterCommand(
  context: CommandContext,
  words: readonly string[],
  options: { team?: string; teamAsArgument?: boolean } = {},
): string {
  const location = locationOptions(context, options.teamAsArgument ? undefined : options.team);
  return ['muster', ...words, ...location].map(quoteShellArgument).join(' ');
}
