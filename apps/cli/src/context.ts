import { homedir } from 'node:os';
import path from 'node:path';
import { defaultRoot } from '@muster/protocol';
import type { OutputStreams } from './output-streams.js';
import { detectTerminalStyle, type TerminalStyle } from './terminal-style.js';
import { escapeJsonForTerminal } from './terminal-text.js';

/** The options every command accepts, as commander parsed them. */
export interface GlobalOptions {
  root?: string;
  team?: string;
  json?: boolean;
}

/** What every command runs with: the root, the team asked for, output mode and streams. */
export interface CommandContext {
  /** Absolute path of the muster root (`--root`, `$MUSTER_HOME`, or `~/.muster`). */
  root: string;
  /** Where the root came from. */
  rootSource: 'option' | 'environment' | 'default';
  /** The team from `--team`, else `$MUSTER_TEAM`; undefined when neither is set. */
  requestedTeam: string | undefined;
  /** Where `requestedTeam` came from, for error messages. */
  requestedTeamSource: '--team' | 'MUSTER_TEAM' | undefined;
  /** Print machine-readable JSON on stdout instead of text. */
  json: boolean;
  /** Colors and symbols allowed on stdout. */
  style: TerminalStyle;
  /** Colors allowed on stderr. */
  errorStyle: TerminalStyle;
  streams: OutputStreams;
  environment: Record<string, string | undefined>;
}

/** Expands a leading `~` (the shell does not when the value comes from `--root=~/x`). */
export function expandHome(value: string, home = homedir()): string {
  if (value === '~') return home;
  if (value.startsWith('~/')) return path.join(home, value.slice(2));
  return value;
}

/** Builds the context from parsed options, the environment and the streams. */
export function createContext(
  options: GlobalOptions,
  environment: Record<string, string | undefined>,
  streams: OutputStreams,
): CommandContext {
  const explicitRoot = options.root ?? undefined;
  const root =
    explicitRoot !== undefined
      ? path.resolve(expandHome(explicitRoot))
      : path.resolve(defaultRoot(environment, homedir()));
  const fromEnvironment = environment.MUSTER_TEAM?.trim() || undefined;
  return {
    root,
    rootSource:
      explicitRoot !== undefined
        ? 'option'
        : environment.MUSTER_HOME?.trim()
          ? 'environment'
          : 'default',
    requestedTeam: options.team ?? fromEnvironment,
    requestedTeamSource:
      options.team !== undefined ? '--team' : fromEnvironment ? 'MUSTER_TEAM' : undefined,
    json: options.json === true,
    style: detectTerminalStyle(streams.stdout, environment),
    errorStyle: detectTerminalStyle(streams.stderr, environment),
    streams,
    environment,
  };
}

/** Writes a line (or several) to stdout. */
export function printLine(context: CommandContext, text = ''): void {
  context.streams.stdout.write(`${text}\n`);
}

/** Writes a value as pretty JSON to stdout (the `--json` output of every command). */
export function printJson(context: CommandContext, value: unknown): void {
  // Valid JSON that gives back the same value, with no raw bidi, DEL or C1 character in it.
  context.streams.stdout.write(`${escapeJsonForTerminal(JSON.stringify(value, null, 2))}\n`);
}
