// The command line of a process teammate (`muster teammate`, `dist/teammate-main.js`): Claude
// Code's flag names, parsed strictly. An unknown flag, a missing or bad value, or a flag given
// twice is a `ProcessTeammateUsageError` whose one-line message names it (exit code 2).
import { isAbsolute } from 'node:path';
import { MusterError, PermissionModeSchema, type PermissionMode } from '@muster/protocol';

/** What the command line of a process teammate says. */
export interface ProcessTeammateFlags {
  /** `--agent-id`: `<agentName>@<teamName>`. */
  agentId: string;
  /** `--agent-name`. */
  agentName: string;
  /** `--team-name`. */
  teamName: string;
  /** `--agent-color`. */
  color: string;
  /** `--parent-session-id`: the lead's session id. */
  parentSessionId: string;
  /** `--plan-mode-required`. */
  planModeRequired: boolean;
  /** `--agent-type` (default `general-purpose`). */
  agentType: string;
  /** `--permission-mode`. */
  permissionMode?: PermissionMode;
  /** `--model` (an id or an alias). */
  model?: string;
  /** `--lead-verify-key`: the key the lead signs this member's control messages with. */
  leadVerifyKey?: string;
  /** `--root`: the folder holding `teams/` and `tasks/` (muster's own flag). */
  root?: string;
  /** `--cwd`: the working directory (muster's own flag; default the process's). */
  cwd?: string;
  /** `--help` / `-h`. */
  help: boolean;
}

/** Codes of {@link ProcessTeammateUsageError}. */
export type ProcessTeammateUsageErrorCode = 'USAGE';

/** A bad command line of a process teammate; its message is one line naming the flag. */
export class ProcessTeammateUsageError extends MusterError<ProcessTeammateUsageErrorCode> {}

/** The usage text `--help` prints. */
export const PROCESS_TEAMMATE_USAGE = `Usage: muster teammate --agent-id <name>@<team> --agent-name <name> --team-name <team>
         --agent-color <color> --parent-session-id <id> --lead-verify-key <key>
         [--plan-mode-required] [--agent-type <type>] [--permission-mode <mode>]
         [--model <model>] [--root <dir>] [--cwd <dir>]

Runs one teammate of a muster team in this terminal (a pane or a PTY the lead's backend
opened): it connects back to its lead (MUSTER_LEAD_SOCKET, MUSTER_AGENT_ID,
MUSTER_MEMBER_SECRET), reads its inbox, works until the lead's signed shutdown request is
approved, and prints its conversation here. The lead starts it; people rarely do.
Exit codes: 0 after an approved shutdown, 1 on failure, 2 for a bad command line,
130/143 on SIGINT/SIGTERM.`;

type ValueFlag =
  | 'agentId'
  | 'agentName'
  | 'teamName'
  | 'color'
  | 'parentSessionId'
  | 'agentType'
  | 'permissionMode'
  | 'model'
  | 'leadVerifyKey'
  | 'root'
  | 'cwd';

const VALUE_FLAGS: Readonly<Record<string, ValueFlag>> = {
  '--agent-id': 'agentId',
  '--agent-name': 'agentName',
  '--team-name': 'teamName',
  '--agent-color': 'color',
  '--parent-session-id': 'parentSessionId',
  '--agent-type': 'agentType',
  '--permission-mode': 'permissionMode',
  '--model': 'model',
  '--lead-verify-key': 'leadVerifyKey',
  '--root': 'root',
  '--cwd': 'cwd',
};

const REQUIRED: ReadonlyArray<[string, ValueFlag]> = [
  ['--agent-id', 'agentId'],
  ['--agent-name', 'agentName'],
  ['--team-name', 'teamName'],
  ['--agent-color', 'color'],
  ['--parent-session-id', 'parentSessionId'],
];

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

function usage(message: string, flag?: string): ProcessTeammateUsageError {
  return new ProcessTeammateUsageError({
    code: 'USAGE',
    message: `muster teammate: ${message}`,
    ...(flag === undefined ? {} : { details: { flag } }),
  });
}

/** Shows a command-line word safely on one line (control characters escaped, long ones cut). */
function shown(word: string): string {
  const cut = word.length > 80 ? `${word.slice(0, 80)}…` : word;
  return JSON.stringify(cut);
}

/**
 * Parses a process teammate's arguments (without `node` and the script). Throws
 * {@link ProcessTeammateUsageError} naming the first bad flag.
 */
export function parseProcessTeammateFlags(argv: readonly string[]): ProcessTeammateFlags {
  const values: Partial<Record<ValueFlag, string>> = {};
  let planModeRequired = false;
  let help = false;
  for (let index = 0; index < argv.length; index += 1) {
    const word = argv[index]!;
    if (word === '--help' || word === '-h') {
      help = true;
      continue;
    }
    const equals = word.startsWith('--') ? word.indexOf('=') : -1;
    const flag = equals > 0 ? word.slice(0, equals) : word;
    if (flag === '--plan-mode-required') {
      if (equals > 0) throw usage('--plan-mode-required takes no value.', flag);
      if (planModeRequired) throw usage('--plan-mode-required is given twice.', flag);
      planModeRequired = true;
      continue;
    }
    const field = VALUE_FLAGS[flag];
    if (field === undefined) {
      throw word.startsWith('-')
        ? usage(`unknown flag ${shown(flag)} (muster teammate --help lists the flags).`, flag)
        : usage(
            `unexpected argument ${shown(word)}: every value follows its flag (muster teammate --help).`,
          );
    }
    if (values[field] !== undefined) throw usage(`${flag} is given twice.`, flag);
    const value = equals > 0 ? word.slice(equals + 1) : argv[(index += 1)];
    if (value === undefined || value === '' || (equals < 0 && value.startsWith('-'))) {
      throw usage(`${flag} needs a value.`, flag);
    }
    values[field] = value;
  }
  if (help) {
    return {
      agentId: '',
      agentName: '',
      teamName: '',
      color: '',
      parentSessionId: '',
      planModeRequired,
      agentType: 'general-purpose',
      help: true,
    };
  }
  for (const [flag, field] of REQUIRED) {
    if (values[field] === undefined) throw usage(`${flag} is required.`, flag);
  }
  const { agentName, teamName, agentId } = values as Record<ValueFlag, string>;
  if (!NAME.test(agentName)) {
    throw usage(
      `--agent-name ${shown(agentName)} is not a member name (letters, digits, ".", "_", "-").`,
      '--agent-name',
    );
  }
  if (!NAME.test(teamName)) {
    throw usage(
      `--team-name ${shown(teamName)} is not a team name (letters, digits, ".", "_", "-").`,
      '--team-name',
    );
  }
  if (agentId !== `${agentName}@${teamName}`) {
    throw usage(
      `--agent-id ${shown(agentId)} must be "${agentName}@${teamName}" (<agent-name>@<team-name>).`,
      '--agent-id',
    );
  }
  if (!/^[a-z]+$/.test(values.color!)) {
    throw usage(
      `--agent-color ${shown(values.color!)} is not a color name such as "blue".`,
      '--agent-color',
    );
  }
  if (values.agentType !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(values.agentType)) {
    throw usage(`--agent-type ${shown(values.agentType)} is not an agent type.`, '--agent-type');
  }
  let permissionMode: PermissionMode | undefined;
  if (values.permissionMode !== undefined) {
    const parsed = PermissionModeSchema.safeParse(values.permissionMode);
    if (!parsed.success) {
      throw usage(
        `--permission-mode ${shown(values.permissionMode)} is not a permission mode (${PermissionModeSchema.options.join(', ')}).`,
        '--permission-mode',
      );
    }
    permissionMode = parsed.data;
  }
  for (const [flag, field] of [
    ['--root', 'root'],
    ['--cwd', 'cwd'],
  ] as const) {
    const value = values[field];
    if (value !== undefined && !isAbsolute(value)) {
      throw usage(`${flag} ${shown(value)} must be an absolute path.`, flag);
    }
  }
  return {
    agentId,
    agentName,
    teamName,
    color: values.color!,
    parentSessionId: values.parentSessionId!,
    planModeRequired,
    agentType: values.agentType ?? 'general-purpose',
    help: false,
    ...(permissionMode === undefined ? {} : { permissionMode }),
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values.leadVerifyKey === undefined ? {} : { leadVerifyKey: values.leadVerifyKey }),
    ...(values.root === undefined ? {} : { root: values.root }),
    ...(values.cwd === undefined ? {} : { cwd: values.cwd }),
  };
}
