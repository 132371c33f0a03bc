/**
 * Programs that run another command: known wrappers the classifier looks through (`env`,
 * `command`, `builtin`, `exec`, `nice`, `nohup`, `time`, `timeout`, `sudo`, `doas`, `xargs`,
 * `stdbuf`, `setsid`, `ionice`, `taskset`, `flock`, `unbuffer`), shells run with `-c` and
 * `eval` (their script is parsed again), `find -exec`, and runners it cannot look through
 * (`watch`, `parallel`, `su`, `source`, …), which make a line unfit for allow rules.
 */

import type { CommandWord } from './dangerous-options.js';

/** What a wrapper runs. */
export interface Unwrapped {
  /** Inner commands (word lists) the wrapper runs. */
  inner: CommandWord[][];
  /** Shell text the wrapper runs (`sh -c '…'`, `eval …`), parsed again by the caller. */
  scripts: Array<{ text: string; via: string }>;
  /** True when the wrapper itself needs no allow rule: only what it runs does. */
  transparent: boolean;
  /** Why allow rules cannot vouch for the wrapper call. */
  concerns: string[];
  /** True when the shell reads its commands from standard input (no `-c`, no file). */
  readsStandardInput?: boolean;
  /**
   * Set for runners the parser does not look through (`watch`, `strace`, `chroot`, …):
   * every word list the command may start at. Deny rules are matched against each, so
   * `chroot / rm x` is denied by `Bash(rm:*)`; the line still hides what runs.
   */
  candidates?: CommandWord[][];
}

interface OptionSpec {
  /** Short option letters that take a value (`-n 5`, `-n5`). */
  short?: string;
  /** Long options that take a value (`--signal X`, `--signal=X`). */
  long?: string[];
  /** Option letters after which no command follows (`command -v`, `ionice -p`). */
  noCommand?: string;
  /** Positional words before the command (`timeout DURATION`, `taskset MASK`). */
  positional?: number;
  /** Skip `NAME=value` words before the command (`env`, `sudo`). */
  assignments?: boolean;
  transparent: boolean;
  concern?: string;
}

// prettier-ignore
const WRAPPERS: Record<string, OptionSpec> = {
  env: { short: 'uCSP', long: ['--unset', '--chdir', '--split-string'], assignments: true, transparent: false },
  command: { short: '', noCommand: 'vV', transparent: true },
  builtin: { transparent: true },
  exec: { short: 'a', transparent: true },
  nice: { short: 'n', long: ['--adjustment'], transparent: true },
  nohup: { transparent: true },
  time: { short: 'fo', long: ['--format', '--output'], transparent: true },
  timeout: { short: 'sk', long: ['--signal', '--kill-after'], positional: 1, transparent: true },
  stdbuf: { short: 'ioe', long: ['--input', '--output', '--error'], transparent: true },
  setsid: { transparent: true },
  ionice: { short: 'cnp', noCommand: 'p', transparent: true },
  taskset: { short: '', noCommand: 'p', positional: 1, transparent: true },
  unbuffer: { transparent: true },
  busybox: { transparent: false },
  flock: { short: 'wEc', long: ['--timeout', '--conflict-exit-code', '--command'], positional: 1, transparent: true },
  sudo: { short: 'ugCDhprtUT', long: ['--user', '--group', '--chdir', '--prompt', '--role', '--type', '--other-user', '--host', '--close-from'], noCommand: 'lKkve', assignments: true, transparent: false },
  doas: { short: 'uC', noCommand: 'L', transparent: false },
  xargs: { short: 'adEILnPs', long: ['--arg-file', '--delimiter', '--eof', '--replace', '--max-lines', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'], transparent: false, concern: 'xargs runs a command with arguments the parser cannot see' },
};

/** Shells whose `-c` script is parsed again. */
// prettier-ignore
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'yash', 'posh', 'rbash', 'fish', 'csh', 'tcsh', 'busybox-sh']);

/**
 * Interpreters and tools that run code in another language (`perl -e`, `python3 -c`,
 * `make`, `vim -c '!…'`): the parser sees the program but not the commands it runs.
 */
// prettier-ignore
export const INTERPRETERS: ReadonlySet<string> = new Set(['perl', 'python', 'python2', 'python3', 'node', 'nodejs', 'deno', 'bun', 'ruby', 'php', 'lua', 'luajit', 'tclsh', 'wish', 'expect', 'Rscript', 'osascript', 'make', 'gmake', 'vim', 'vi', 'nvim', 'ex', 'view', 'emacs', 'ed', 'man', 'less', 'more', 'jshell', 'groovy', 'scala', 'julia', 'pwsh', 'powershell']);

/** Programs that run a command (or code) the parser does not look through. */
// prettier-ignore
const OPAQUE_RUNNERS: Record<string, string> = {
  source: 'source runs a file of commands the parser does not read',
  '.': '. runs a file of commands the parser does not read',
  watch: 'watch runs its command through a shell', parallel: 'parallel runs commands',
  su: 'su runs a command as another user', runuser: 'runuser runs a command', sg: 'sg runs a command',
  script: 'script runs a command', strace: 'strace runs a command', ltrace: 'ltrace runs a command',
  let: 'let evaluates arithmetic, which can run commands hidden in variable values', chroot: 'chroot runs a command', nsenter: 'nsenter runs a command',
  unshare: 'unshare runs a command', chrt: 'chrt runs a command', trap: 'trap runs text as a command later',
  coproc: 'coproc runs a command', fc: 'fc runs commands from history', 'systemd-run': 'systemd-run runs a command',
  'xvfb-run': 'xvfb-run runs a command', firejail: 'firejail runs a command', bwrap: 'bwrap runs a command',
  valgrind: 'valgrind runs a command', caffeinate: 'caffeinate runs a command', alias: 'alias defines a command',
  enable: 'enable changes builtins', hash: 'hash changes which program a name runs',
  pkexec: 'pkexec runs a command as another user', numactl: 'numactl runs a command', prlimit: 'prlimit runs a command',
  cgexec: 'cgexec runs a command', fakeroot: 'fakeroot runs a command', rlwrap: 'rlwrap runs a command',
  faketime: 'faketime runs a command', torsocks: 'torsocks runs a command', proxychains: 'proxychains runs a command',
  proxychains4: 'proxychains runs a command', gdb: 'gdb runs a program', setpriv: 'setpriv runs a command',
  'dbus-run-session': 'dbus-run-session runs a command', catchsegv: 'catchsegv runs a command', chpst: 'chpst runs a command',
  entr: 'entr runs a command', 'sandbox-exec': 'sandbox-exec runs a command',
};

/** The basename of a command word (`/bin/rm` → `rm`). */
export function programName(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash === -1 ? word : word.slice(slash + 1);
}

function skipOptions(args: readonly CommandWord[], spec: OptionSpec): number | undefined {
  let index = 0;
  while (index < args.length) {
    const value = args[index]!.value;
    if (value === '--') return index + 1;
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) {
      index += 1;
      continue;
    }
    if (!value.startsWith('-') || value === '-') break;
    if (value.startsWith('--')) {
      const name = value.split('=')[0]!;
      index += spec.long?.includes(name) && !value.includes('=') ? 2 : 1;
      continue;
    }
    if (/^-\d+$/.test(value)) {
      index += 1; // nice -10
      continue;
    }
    const letters = value.slice(1);
    for (let position = 0; position < letters.length; position += 1) {
      const letter = letters[position]!;
      if (spec.noCommand?.includes(letter)) return undefined;
      if (spec.short?.includes(letter)) {
        if (position === letters.length - 1) index += 1;
        break;
      }
    }
    index += 1;
  }
  return index + (spec.positional ?? 0);
}

function unwrapShell(program: string, args: readonly CommandWord[]): Unwrapped {
  const result: Unwrapped = { inner: [], scripts: [], transparent: true, concerns: [] };
  let index = 0;
  let commandMode = false;
  while (index < args.length) {
    const value = args[index]!.value;
    if (value === '--' || value === '-') {
      index += 1;
      break;
    }
    if (!/^[-+]/.test(value)) break;
    if (/^--(rcfile|init-file)(=|$)/.test(value))
      result.concerns.push(
        `${program} ${value.split('=')[0]} runs a startup file the parser does not read`,
      );
    if (['-o', '+o', '-O', '+O', '--rcfile', '--init-file'].includes(value)) index += 2;
    else if (/^[-+][a-zA-Z]*[oO]$/.test(value)) {
      // `-euxo pipefail`: the option name follows; `-co x` also sets command mode.
      if (/^-[a-zA-Z]*c/.test(value)) commandMode = true;
      index += 2;
    } else {
      if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(value)) commandMode = true;
      index += 1;
    }
  }
  const script = args[index];
  if (commandMode) {
    if (script === undefined) result.concerns.push(`${program} -c has no command`);
    else if (!script.literal) result.concerns.push(`the script of ${program} -c is computed`);
    else result.scripts.push({ text: script.value, via: `${program} -c` });
  } else if (script !== undefined) {
    result.concerns.push(
      `${program} runs the script file ${script.value}, which the parser does not read`,
    );
  } else result.readsStandardInput = true;
  return result;
}

function unwrapFind(args: readonly CommandWord[]): Unwrapped {
  const result: Unwrapped = { inner: [], scripts: [], transparent: false, concerns: [] };
  for (let index = 0; index < args.length; index += 1) {
    const value = args[index]!.value;
    if (['-exec', '-execdir', '-ok', '-okdir'].includes(value)) {
      const end = args.findIndex(
        (argument, position) =>
          position > index &&
          (argument.value === ';' ||
            (argument.value === '+' && args[position - 1]?.value === '{}')),
      );
      const stop = end === -1 ? args.length : end;
      result.inner.push(args.slice(index + 1, stop));
      index = stop;
    } else if (value === '-delete') {
      const starts = args.slice(
        0,
        args.findIndex((argument) => argument.value.startsWith('-')) >>> 0,
      );
      result.inner.push([{ value: 'rm', literal: true }, ...starts]);
    }
  }
  return result;
}

/**
 * What a command runs besides itself, when its program is a wrapper, a shell, `eval`,
 * `find` or an opaque runner; undefined for ordinary programs. `args` are the words after
 * the program.
 */
export function unwrapCommand(
  program: string,
  args: readonly CommandWord[],
): Unwrapped | undefined {
  if (SHELLS.has(program)) return unwrapShell(program, args);
  if (program === 'find' || program === 'gfind') return unwrapFind(args);
  if (program === 'trap') {
    const action = args[0]?.value.startsWith('-') === false ? args[0] : undefined;
    const result: Unwrapped = {
      inner: [],
      scripts: [],
      transparent: false,
      concerns: ['trap runs text as a command later'],
    };
    if (action?.literal === true) result.scripts.push({ text: action.value, via: 'trap' });
    return result;
  }
  if (program === 'eval') {
    const result: Unwrapped = {
      inner: [],
      scripts: [],
      transparent: false,
      concerns: ['eval runs text as a command'],
    };
    if (args.every((argument) => argument.literal))
      result.scripts.push({ text: args.map((argument) => argument.value).join(' '), via: 'eval' });
    else result.concerns.push('eval runs computed text');
    return result;
  }
  const opaque = Object.hasOwn(OPAQUE_RUNNERS, program) ? OPAQUE_RUNNERS[program] : undefined;
  if (opaque !== undefined) return unwrapOpaqueRunner(program, args, opaque);
  const spec = Object.hasOwn(WRAPPERS, program) ? WRAPPERS[program] : undefined;
  if (spec === undefined) return undefined;
  const result: Unwrapped = {
    inner: [],
    scripts: [],
    transparent: spec.transparent,
    concerns: spec.concern === undefined ? [] : [spec.concern],
  };
  if (program === 'env') {
    args.forEach((argument, index) => {
      // -S, -iS (the value is the next word), -S'…' and -iS'…' (attached), --split-string.
      const attached = /^-[a-zA-Z]*S(.+)$/.exec(argument.value)?.[1];
      const split =
        /^-[a-zA-Z]*S$/.test(argument.value) || argument.value === '--split-string'
          ? args[index + 1]
          : attached !== undefined
            ? { value: attached, literal: argument.literal }
            : argument.value.startsWith('--split-string=')
              ? { value: argument.value.slice(15), literal: argument.literal }
              : undefined;
      if (split?.literal === true) result.scripts.push({ text: split.value, via: 'env -S' });
      else if (split !== undefined) result.concerns.push('the string of env -S is computed');
    });
  }
  if (program === 'flock') {
    const commandOption = args.findIndex(
      (argument) => argument.value === '-c' || argument.value === '--command',
    );
    if (commandOption !== -1) {
      const script = args[commandOption + 1];
      if (script?.literal === true) result.scripts.push({ text: script.value, via: 'flock -c' });
      else result.concerns.push('the command of flock -c is computed');
      return result;
    }
  }
  if ((program === 'sudo' || program === 'doas') && shellOption(args)) {
    // `sudo -s 'curl x'` / `sudo -i …` runs the words through the user's shell.
    const start = skipOptions(args, { ...spec, noCommand: undefined });
    const words = start === undefined ? [] : args.slice(start);
    if (words.every((word) => word.literal)) {
      if (words.length > 0)
        result.scripts.push({ text: words.map((word) => word.value).join(' '), via: program });
    } else result.concerns.push(`the command of ${program} -s is computed`);
    return result;
  }
  const start = skipOptions(args, spec);
  if (start === undefined || start >= args.length) {
    if (program === 'xargs') result.inner.push([{ value: 'echo', literal: true }]);
    return result;
  }
  result.inner.push(args.slice(start));
  return result;
}

const MAXIMUM_CANDIDATES = 16;
const MAXIMUM_JOINED_SCRIPTS = 3;

/** Runners whose `-c TEXT` is shell text (`su -c`, `script -c`, `sg grp -c`, `runuser -c`). */
const RUNNERS_WITH_SCRIPT = new Set(['su', 'script', 'sg', 'runuser']);
/** Runners that join their arguments into one shell line (`watch rm x` runs `sh -c 'rm x'`). */
const RUNNERS_JOINING = new Set(['watch', 'parallel']);

/**
 * A runner the parser does not look through: its concern stays (allow rules never vouch
 * for it), but its `-c` text is parsed and every word list it may run is a candidate that
 * deny rules are matched against.
 */
function unwrapOpaqueRunner(
  program: string,
  args: readonly CommandWord[],
  concern: string,
): Unwrapped {
  const result: Unwrapped = {
    inner: [],
    scripts: [],
    transparent: false,
    concerns: [concern],
    candidates: [],
  };
  args.forEach((argument, index) => {
    const value = argument.value;
    if (RUNNERS_WITH_SCRIPT.has(program)) {
      const attached = /^-[a-zA-Z]*c(.+)$/.exec(value)?.[1] ?? /^--command=(.*)$/s.exec(value)?.[1];
      const script =
        /^-[a-zA-Z]*c$/.test(value) || value === '--command'
          ? args[index + 1]
          : attached === undefined
            ? undefined
            : { value: attached, literal: argument.literal };
      if (script?.literal === true)
        result.scripts.push({ text: script.value, via: `${program} -c` });
    }
    if (!argument.literal || value.startsWith('-') || value === ':::') return;
    // Bounded: a long argument list must not make the classification quadratic.
    if (result.candidates!.length >= MAXIMUM_CANDIDATES) return;
    const candidate = args.slice(index);
    result.candidates!.push(candidate);
    // `watch -n 1 'rm x'`: parse the joined words from the first candidate and from
    // candidates that start with shell text; a few at most, so nesting stays linear.
    const first = result.candidates!.length === 1;
    if (
      RUNNERS_JOINING.has(program) &&
      result.scripts.length < MAXIMUM_JOINED_SCRIPTS &&
      (first || /[\s;&|<>()$`]/.test(value)) &&
      candidate.every((word) => word.literal)
    ) {
      const end = candidate.findIndex((word) => word.value === ':::');
      const words = end === -1 ? candidate : candidate.slice(0, end);
      result.scripts.push({ text: words.map((word) => word.value).join(' '), via: program });
    }
  });
  return result;
}

/** True when sudo's options include `-s`/`-i` (`--shell`, `--login`): a shell runs the words. */
function shellOption(args: readonly CommandWord[]): boolean {
  for (const argument of args) {
    const value = argument.value;
    if (value === '--') return false;
    if (value === '--shell' || value === '--login') return true;
    if (/^-[a-zA-Z]+$/.test(value) && /[si]/.test(value.slice(1))) return true;
    if (!value.startsWith('-')) return false;
  }
  return false;
}
