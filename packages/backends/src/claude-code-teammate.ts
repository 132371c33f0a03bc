// The command that starts a real Claude Code CLI as a teammate of a team muster leads: the team
// identity on its command line (Claude Code's own flag names, as its lead passes them to a pane
// teammate), executed by a process backend (tmux pane, pty) with `readiness: 'external'`.
import { BackendError } from './backend-error.js';

/** Options of {@link claudeCodeTeammateCommand}. */
export interface ClaudeCodeTeammateCommandOptions {
  /**
   * The CLI: a JavaScript bundle (`cli.js` of `@anthropic-ai/claude-code` 2.1.45, run with
   * `node`), or a native executable (2.1.330's `claude`).
   */
  cli: string;
  /** The Node binary for a `.js`/`.mjs` CLI (default: this process's `process.execPath`). */
  node?: string;
  agentName: string;
  teamName: string;
  /** Its color in the team config (`blue`, `green`, …). */
  color: string;
  /** The lead's session id (`leadSessionId` of the team config). */
  parentSessionId: string;
  /** Start in plan mode; the teammate asks the lead to approve its plan. */
  planModeRequired?: boolean;
  /** The agent type (`general-purpose`, a custom agent's name). */
  agentType?: string;
  /** `default`, `acceptEdits`, `plan`, `bypassPermissions`, … */
  permissionMode?: string;
  /** The model id the teammate asks for. */
  model?: string;
  /** 2.1.330: `<epochMs>.<base64url SPKI>` of the key the lead signs its entries with. */
  leadVerifyKey?: string;
  /** Anything else, appended as given. */
  extraArguments?: readonly string[];
}

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function invalid(message: string): never {
  throw new BackendError({
    code: 'INVALID_SPEC',
    message: `claudeCodeTeammateCommand: ${message}`,
  });
}

/**
 * The argv that starts Claude Code as `<agentName>@<teamName>`: `--agent-id --agent-name
 * --team-name --agent-color --parent-session-id [--plan-mode-required] [--agent-type]
 * [--permission-mode] [--model] [--lead-verify-key]`, for `MemberSpec.command`. The
 * teammate also needs `CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1` and `CLAUDE_CONFIG_DIR` = the
 * folder whose `teams/` is the team root, in `MemberSpec.environment`. It does not connect
 * back: spawn it with `readiness: 'external'` and {@link markReadyOnIdleNotification}.
 * Throws `BackendError('INVALID_SPEC')` for a name Claude Code would refuse or rewrite.
 */
export function claudeCodeTeammateCommand(options: ClaudeCodeTeammateCommandOptions): {
  file: string;
  args: string[];
} {
  if (typeof options.cli !== 'string' || options.cli.length === 0)
    invalid('cli is empty; pass the path of cli.js (2.1.45) or of the claude executable.');
  for (const [label, value] of [
    ['agentName', options.agentName],
    ['teamName', options.teamName],
  ] as const) {
    if (typeof value !== 'string' || !NAME_PATTERN.test(value))
      invalid(
        `${label} ${JSON.stringify(value)} is not a plain name (letters, digits, ".", "_", "-"); Claude Code builds "<name>@<team>" and file names from it.`,
      );
  }
  if (typeof options.color !== 'string' || !/^[a-z]+$/.test(options.color))
    invalid(`color ${JSON.stringify(options.color)} is not a color name such as "blue".`);
  if (typeof options.parentSessionId !== 'string' || !UUID_PATTERN.test(options.parentSessionId))
    invalid(
      `parentSessionId ${JSON.stringify(options.parentSessionId)} is not a UUID; pass the team config's leadSessionId.`,
    );
  const args = [
    '--agent-id',
    `${options.agentName}@${options.teamName}`,
    '--agent-name',
    options.agentName,
    '--team-name',
    options.teamName,
    '--agent-color',
    options.color,
    '--parent-session-id',
    options.parentSessionId,
  ];
  if (options.planModeRequired === true) args.push('--plan-mode-required');
  for (const [flag, value] of [
    ['--agent-type', options.agentType],
    ['--permission-mode', options.permissionMode],
    ['--model', options.model],
    ['--lead-verify-key', options.leadVerifyKey],
  ] as const) {
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.length === 0 || value.startsWith('-'))
      invalid(
        `${flag} needs a non-empty value that does not start with "-", got ${JSON.stringify(value)}.`,
      );
    args.push(flag, value);
  }
  args.push(...(options.extraArguments ?? []));
  if (/\.[cm]?js$/.test(options.cli))
    return { file: options.node ?? process.execPath, args: [options.cli, ...args] };
  return { file: options.cli, args };
}
