// The flags `muster run -p` and `muster demo --run -p` share, declared once. This file must
// stay free of package imports: program.ts loads it for every command line (start-up time).
import { Option, type Command } from 'commander';
import {
  collectPermissionRuleArguments,
  parseMaxTurnsArgument,
  parseNonEmptyArgument,
  parseTimeoutSecondsArgument,
} from '../argument-parsers.js';

/** The permission modes `--permission-mode` takes (the same list as `@muster/protocol`'s). */
export const HEADLESS_PERMISSION_MODES = [
  'default',
  'acceptEdits',
  'bypassPermissions',
  'plan',
  'delegate',
  'dontAsk',
] as const;

/** What `--output-format` takes. */
export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;

/** What `--teammate-mode` takes. */
export const TEAMMATE_MODES = ['auto', 'in-process', 'pty', 'tmux'] as const;

/** The headless flags as commander parses them. */
export interface HeadlessFlags {
  print?: boolean;
  outputFormat: (typeof OUTPUT_FORMATS)[number];
  model: string;
  permissionMode: (typeof HEADLESS_PERMISSION_MODES)[number];
  allowedTools?: string[];
  disallowedTools?: string[];
  teammateMode: (typeof TEAMMATE_MODES)[number];
  maxTurns?: number;
  cwd?: string;
  /** `--timeout` in milliseconds. */
  timeout?: number;
}

/** Adds the headless flags to `command`. */
export function addHeadlessFlags(
  command: Command,
  defaults: { permissionMode?: string; teammateMode?: (typeof TEAMMATE_MODES)[number] } = {},
) {
  return command
    .option('-p, --print', 'run headless: no terminal UI, print the outcome and exit')
    .addOption(
      new Option('--output-format <format>', 'what -p prints on stdout')
        .choices(OUTPUT_FORMATS)
        .default('text'),
    )
    .option(
      '--model <model>',
      "the lead's model, an id or an alias",
      parseNonEmptyArgument,
      'sonnet',
    )
    .addOption(
      new Option(
        '--permission-mode <mode>',
        "the lead's permission mode; teammates never get a wider one",
      )
        .choices(HEADLESS_PERMISSION_MODES)
        .default(defaults.permissionMode ?? 'default'),
    )
    .option(
      '--allowed-tools <rules>',
      'permission rules that allow, comma or space separated, e.g. "Bash(npm test:*) Edit" (repeatable)',
      collectPermissionRuleArguments,
    )
    .option(
      '--disallowed-tools <rules>',
      'permission rules that deny, e.g. "Bash(git push:*)" (repeatable)',
      collectPermissionRuleArguments,
    )
    .addOption(
      new Option(
        '--teammate-mode <mode>',
        'where teammates run: in-process, a PTY, tmux panes, or auto (tmux when inside tmux, then a private tmux server, iTerm2, a PTY, in-process; each fallback announced)',
      )
        .choices(TEAMMATE_MODES)
        .default(defaults.teammateMode ?? 'in-process'),
    )
    .option(
      '--max-turns <n>',
      'the most model requests one lead turn may make',
      parseMaxTurnsArgument,
    )
    .option(
      '--cwd <dir>',
      "the lead's working directory (default: the current directory)",
      parseNonEmptyArgument,
    )
    .option(
      '--timeout <seconds>',
      'stop the team after this long (graceful shutdown, then kill); exit code 3',
      parseTimeoutSecondsArgument,
    );
}
