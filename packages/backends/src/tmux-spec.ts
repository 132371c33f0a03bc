// Checks a member spec before anything is created in tmux, and turns it into the argv,
// `-e` environment and `-c` folder of `respawn-pane` (R18: executed, never typed).
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { isModelCredentialVariable } from '@muster/protocol';
import { BackendError } from './backend-error.js';
import type { MemberSpec } from './backend-types.js';

/** What `respawn-pane` needs, checked. */
export interface TmuxLaunch {
  /** The program and its arguments (the program resolved to an absolute path). */
  argv: string[];
  /** `-e NAME=value` pairs, in order. */
  environment: [string, string][];
  cwd: string;
}

function invalid(spec: Partial<MemberSpec>, problem: string, fix: string): BackendError {
  const who = typeof spec.agentId === 'string' ? ` for ${spec.agentId}` : '';
  return new BackendError({
    code: 'INVALID_SPEC',
    message: `tmux backend: invalid member spec${who}: ${problem}. ${fix}`,
    details: { agentId: spec.agentId },
  });
}

/**
 * Checks the spec for the tmux backend and builds the launch: names present, `agentId` =
 * `<agentName>@<teamName>`, `cwd` an existing absolute folder, `command.file` executable
 * (absolute, or found on the lead's PATH), environment names valid.
 */
export function prepareTmuxLaunch(
  spec: MemberSpec,
  linkEnvironment: Record<string, string>,
  path: string | undefined = process.env.PATH,
): TmuxLaunch {
  for (const field of ['root', 'teamName', 'agentName', 'agentId', 'cwd'] as const) {
    if (typeof spec[field] !== 'string' || spec[field] === '') {
      throw invalid(spec, `\`${field}\` is missing`, `Pass a non-empty string as \`${field}\`.`);
    }
  }
  if (spec.agentId !== `${spec.agentName}@${spec.teamName}`) {
    throw invalid(
      spec,
      `agentId "${spec.agentId}" is not "${spec.agentName}@${spec.teamName}"`,
      'Use `<agentName>@<teamName>`.',
    );
  }
  if (!isAbsolute(spec.cwd) || !isFolder(spec.cwd)) {
    throw invalid(
      spec,
      `cwd "${spec.cwd}" is not an existing absolute folder`,
      'Create it or pass another.',
    );
  }
  if (
    spec.command === undefined ||
    typeof spec.command.file !== 'string' ||
    spec.command.file === ''
  ) {
    throw invalid(
      spec,
      'it has no `command`',
      'A tmux member runs a program: pass `command: { file, args }` (`run` is for the in-process backend).',
    );
  }
  if (
    !Array.isArray(spec.command.args) ||
    spec.command.args.some((arg) => typeof arg !== 'string')
  ) {
    throw invalid(
      spec,
      '`command.args` is not an array of strings',
      'Pass each argument as a string.',
    );
  }
  if ([spec.command.file, ...spec.command.args].some((word) => word.includes('\0'))) {
    throw invalid(spec, 'the command holds a NUL character', 'Remove it.');
  }
  const file = resolveProgram(spec.command.file, path);
  if (file === undefined) {
    throw invalid(
      spec,
      `program "${spec.command.file}" is not an executable file${spec.command.file.includes('/') ? '' : ' on PATH'}`,
      'Install it, or pass its absolute path as `command.file`.',
    );
  }
  const environment: [string, string][] = [];
  for (const [name, value] of Object.entries({ ...spec.environment, ...linkEnvironment })) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw invalid(
        spec,
        `environment variable name "${name}" is not valid`,
        'Use letters, digits and _.',
      );
    }
    if (typeof value !== 'string' || value.includes('\0')) {
      throw invalid(
        spec,
        `environment variable ${name} is not a string without NUL`,
        'Pass a plain string.',
      );
    }
    environment.push([name, value]);
  }
  return { argv: [file, ...spec.command.args], environment, cwd: spec.cwd };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The absolute path of a program (as given when it holds a `/`, else searched on `path`). */
export function resolveProgram(file: string, path: string | undefined): string | undefined {
  if (file.includes('/')) return isAbsolute(file) && isExecutableFile(file) ? file : undefined;
  for (const folder of (path ?? '').split(delimiter)) {
    if (folder === '') continue;
    const candidate = join(folder, file);
    if (isAbsolute(candidate) && isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The argv prefix that removes model credentials the pane would otherwise inherit from the
 * tmux server's environment (`env -u NAME … --`; `env` execs the program, so the pane's pid
 * is the member's). Credentials the spec passes itself are kept.
 */
export function credentialRemovalPrefix(
  spec: MemberSpec,
  serverEnvironment: readonly string[],
): string[] {
  const given = new Set(Object.keys(spec.environment ?? {}));
  const present = new Set(serverEnvironment.map((line) => line.split('=')[0] ?? ''));
  const remove = [...present].filter((name) => isModelCredentialVariable(name) && !given.has(name));
  if (remove.length === 0) return [];
  const envPath = resolveProgram('env', process.env.PATH) ?? '/usr/bin/env';
  return [envPath, ...remove.flatMap((name) => ['-u', name]), '--'];
}

const TMUX_COLORS: Record<string, string> = {
  red: 'red',
  blue: 'blue',
  green: 'green',
  yellow: 'yellow',
  purple: 'magenta',
  magenta: 'magenta',
  orange: 'colour208',
  pink: 'colour205',
  cyan: 'cyan',
  white: 'white',
  gray: 'colour245',
  grey: 'colour245',
};

/** The tmux colour for a member colour name, or undefined when there is none. */
export function tmuxColor(color: string | undefined): string | undefined {
  if (color === undefined) return undefined;
  if (/^#[0-9a-fA-F]{6}$/.test(color)) return color;
  return TMUX_COLORS[color.toLowerCase()];
}
