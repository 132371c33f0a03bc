/**
 * The write and execute vectors of programs that allow rules commonly name. An allow rule
 * such as `Bash(git:*)` or `Bash(sed:*)` means "this program, used as itself"; it never
 * admits the options and scripts that make the program run other commands or write files
 * anywhere (`git -c core.pager=…`, `sed -i`, `awk 'BEGIN{system(…)}'`, …). A command with
 * one of them is asked about. The table is per program, matched on the program's basename.
 */

import {
  awkProgramCommands,
  dangerousAwkProgram,
  dangerousSedScript,
  sedScriptCommands,
} from './script-scanners.js';
import { checkGit } from './git-options.js';

export { subcommandWords } from './git-options.js';

/** One argument as the classifier sees it. */
export interface CommandWord {
  /** The value after quote removal (expansions kept as written). */
  value: string;
  /** True when the value is fully known. */
  literal: boolean;
}

type Checker = (args: readonly CommandWord[]) => string[];

function optionValues(args: readonly CommandWord[], short: string, long: string): string[] {
  const values: string[] = [];
  args.forEach((argument, index) => {
    if (argument.value === short || argument.value === long)
      values.push(args[index + 1]?.value ?? '');
    else if (argument.value.startsWith(`${long}=`))
      values.push(argument.value.slice(long.length + 1));
  });
  return values;
}

function checkSed(args: readonly CommandWord[]): string[] {
  const found: string[] = [];
  const scripts: string[] = [];
  let programGiven = false;
  for (let index = 0; index < args.length; index += 1) {
    const value = args[index]!.value;
    if (value === '--') break;
    if (value === '-e' || value === '--expression') {
      scripts.push(args[index + 1]?.value ?? '');
      programGiven = true;
      index += 1;
    } else if (value.startsWith('--expression=')) {
      scripts.push(value.slice('--expression='.length));
      programGiven = true;
    } else if (/^-[a-zA-Z]*f/.test(value) || value.startsWith('--file')) {
      found.push('sed -f runs a script file the parser does not read');
      programGiven = true;
      if (/^-[a-zA-Z]*f$/.test(value)) index += 1;
    } else if (
      value === '--in-place' ||
      value.startsWith('--in-place=') ||
      /^-[a-zA-Z]*i/.test(value)
    ) {
      found.push('sed -i rewrites files in place');
    } else if (/^-[a-zA-Z]*e$/.test(value)) {
      scripts.push(args[index + 1]?.value ?? '');
      programGiven = true;
      index += 1;
    } else if (!value.startsWith('-') && !programGiven) {
      scripts.push(value);
      programGiven = true;
    }
  }
  for (const script of scripts) found.push(...dangerousSedScript(script));
  return found;
}

function checkAwk(args: readonly CommandWord[]): string[] {
  const found: string[] = [];
  let programGiven = false;
  for (let index = 0; index < args.length; index += 1) {
    const value = args[index]!.value;
    if (value === '--') continue;
    if (['-f', '--file', '-i', '--include', '-l', '--load', '-E', '--exec'].includes(value)) {
      found.push(`awk ${value} loads a program file the parser does not read`);
      programGiven = true;
      index += 1;
    } else if (/^(-[fileE].|--(file|include|load|exec)=)/.test(value)) {
      // Attached forms: -fprog.awk, -iinplace (edits files in place), --file=prog.awk.
      found.push(`awk ${value} loads a program file or extension the parser does not read`);
      programGiven = true;
    } else if (['-F', '-v', '--assign', '--field-separator'].includes(value)) index += 1;
    else if (value === '-e' || value === '--source') {
      found.push(...dangerousAwkProgram(args[index + 1]?.value ?? ''));
      programGiven = true;
      index += 1;
    } else if (value.startsWith('--source=')) {
      found.push(...dangerousAwkProgram(value.slice('--source='.length)));
      programGiven = true;
    } else if (!value.startsWith('-') && !programGiven) {
      found.push(...dangerousAwkProgram(value));
      programGiven = true;
    }
  }
  return found;
}

function checkFind(args: readonly CommandWord[]): string[] {
  const found: string[] = [];
  for (const argument of args) {
    const value = argument.value;
    if (['-exec', '-execdir', '-ok', '-okdir'].includes(value))
      found.push(`find ${value} runs a command`);
    if (value === '-delete') found.push('find -delete deletes files');
    if (['-fprint', '-fprint0', '-fprintf', '-fls'].includes(value))
      found.push(`find ${value} writes a file`);
  }
  return found;
}

function checkTar(args: readonly CommandWord[]): string[] {
  const executing = [
    '--to-command',
    '--checkpoint-action',
    '--use-compress-program',
    '--info-script',
    '--new-volume-script',
    '--rsh-command',
    '--rmt-command',
    '-I',
    '-F',
  ];
  return args
    .map((argument) => argument.value.split('=')[0]!)
    .map((name) => (/^-[IF]./.test(name) ? name.slice(0, 2) : name))
    .filter((name) => executing.includes(name))
    .map((name) => `tar ${name} runs a command`);
}

const TABLE: Record<string, Checker> = {
  git: checkGit,
  sed: checkSed,
  gsed: checkSed,
  awk: checkAwk,
  gawk: checkAwk,
  mawk: checkAwk,
  nawk: checkAwk,
  find: checkFind,
  gfind: checkFind,
  tar: checkTar,
  gtar: checkTar,
  env: (args) => {
    const command = args.find(
      (argument, index) =>
        !argument.value.startsWith('-') &&
        !argument.value.includes('=') &&
        !['-u', '-C', '-S'].includes(args[index - 1]?.value ?? ''),
    );
    // prettier-ignore
    const split = args.some((argument) => /^(-S|--split-string)/.test(argument.value));
    return command !== undefined || split ? ['env runs a command'] : [];
  },
  xargs: () => ['xargs runs a command with arguments the parser cannot see'],
  '[[': (args) =>
    args.some((argument) => /^-(eq|ne|lt|le|gt|ge)$/.test(argument.value))
      ? ['an arithmetic comparison in [[ ]] evaluates its operands, which can run commands']
      : [],
  sort: (args) => [
    ...args
      .filter(
        (argument) => /^-[a-zA-Z]*o/.test(argument.value) || argument.value.startsWith('--output'),
      )
      .map(() => 'sort -o writes a file'),
    ...args
      .filter((argument) => argument.value.startsWith('--compress-program'))
      .map(() => 'sort --compress-program runs a command'),
  ],
  rsync: (args) =>
    args
      .filter((argument) => /^(-e|--rsh|--rsync-path)/.test(argument.value))
      .map((argument) => `rsync ${argument.value.split('=')[0]} runs a command`),
  man: (args) =>
    args
      .filter((argument) => /^(-P|--pager|-H|--html)/.test(argument.value))
      .map(() => 'man --pager/--html runs a command'),
  ssh: (args) =>
    args
      .filter(
        (argument, index) =>
          /ProxyCommand|LocalCommand|KnownHostsCommand/i.test(argument.value) &&
          (args[index - 1]?.value === '-o' || argument.value.startsWith('-o')),
      )
      .map(() => 'ssh -o …Command runs a local command'),
  less: (args) =>
    args
      .filter((argument) => /^(-o|-O|--log-file|--LOG-FILE)/.test(argument.value))
      .map(() => 'less -o writes a file'),
  time: (args) => optionValues(args, '-o', '--output').map(() => 'time -o writes a file'),
  curl: (args) =>
    matching(
      args,
      /^(-[a-zA-Z]*[oODc]|--output|--remote-name|--dump-header|--cookie-jar|--trace|--trace-ascii|--libcurl|--stderr|-K|--config|--output-dir)/,
      'curl writes a file (-o, -O, -D, -c, --trace, …) or reads a config that can',
    ),
  wget: checkWget,
  rg: (args) => matching(args, /^--pre(=|$)/, 'rg --pre runs a command on every file'),
  fd: (args) => matching(args, /^(-x|-X|--exec|--exec-batch)/, 'fd --exec runs a command'),
  fdfind: (args) => matching(args, /^(-x|-X|--exec|--exec-batch)/, 'fd --exec runs a command'),
  zip: (args) => matching(args, /^(-TT|--unzip-command)/, 'zip -TT runs a command'),
  scp: (args) =>
    matching(args, /^-S|ProxyCommand|LocalCommand/i, 'scp -S / -o …Command runs a command'),
  sftp: (args) =>
    matching(args, /^-S|ProxyCommand|LocalCommand/i, 'sftp -S / -o …Command runs a command'),
  uniq: (args) =>
    args.filter((argument) => !argument.value.startsWith('-')).length > 1
      ? ['uniq INPUT OUTPUT writes a file']
      : [],
  tee: (args) => {
    const files = args.filter(
      (argument) =>
        !argument.value.startsWith('-') && !/^\/dev\/(null|stdout|stderr)$/.test(argument.value),
    );
    return files.map((file) => `tee writes the file ${JSON.stringify(file.value)}`);
  },
  export: checkDeclaration('export'),
  printf: (args) => {
    const index = args.findIndex(
      (argument) => /^-v./.test(argument.value) || argument.value === '-v',
    );
    if (index === -1) return [];
    const name = args[index]!.value === '-v' ? args[index + 1]?.value : args[index]!.value.slice(2);
    return name === undefined || HARMLESS_VARIABLES.test(name)
      ? []
      : [`printf -v sets ${name}, which can change what later commands run`];
  },
  read: checkReadNames('read'),
  mapfile: checkReadNames('mapfile'),
  readarray: checkReadNames('readarray'),
  declare: checkDeclaration('declare'),
  typeset: checkDeclaration('typeset'),
  local: checkDeclaration('local'),
  readonly: checkDeclaration('readonly'),
  vim: (args) => matching(args, /^(-c|\+|--cmd|-S)/, 'vim -c / +cmd / -S runs commands'),
  vi: (args) => matching(args, /^(-c|\+|--cmd|-S)/, 'vi -c / +cmd runs commands'),
  nvim: (args) => matching(args, /^(-c|\+|--cmd|-S)/, 'nvim -c / +cmd runs commands'),
};

/** Variables a declaration may set without changing what later commands run. */
const HARMLESS_VARIABLES =
  /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|TERM|COLUMNS|LINES|CI|DEBUG|NODE_ENV|RUST_LOG|RUST_BACKTRACE|TMPDIR)$/;

/** `export PATH=.` (or `declare -x GIT_PAGER=…`) changes what the rest of the line runs. */
function checkDeclaration(program: string): Checker {
  return (args) =>
    args
      .map((argument) => /^([A-Za-z_][A-Za-z0-9_]*)(\[.*\])?\+?=/s.exec(argument.value)?.[1])
      .filter((name): name is string => name !== undefined && !HARMLESS_VARIABLES.test(name))
      .map((name) => `${program} sets ${name}, which can change what later commands run`);
}

/** `read PATH <<< /tmp` sets the variables it names: only harmless ones pass. */
function checkReadNames(program: string): Checker {
  return (args) =>
    args
      .filter((argument, index) => {
        const previous = args[index - 1]?.value ?? '';
        // Options with a value (read -p PROMPT, -d DELIM, -t, -n, -N, -u; mapfile -d -n -O -s -u -C -c).
        return !argument.value.startsWith('-') && !/^-[a-zA-Z]*[pdtnNuOsCc]$/.test(previous);
      })
      .map((argument) => argument.value)
      .filter((name) => !HARMLESS_VARIABLES.test(name) && !/^[a-z_][a-z0-9_]*$/.test(name))
      .map((name) => `${program} sets ${name}, which can change what later commands run`);
}

/** Long options whose abbreviations (`sed --in`, `sort --outp=x`) getopt accepts. */
// prettier-ignore
const DANGEROUS_LONG_OPTIONS: Record<string, string[]> = {
  sed: ['--in-place', '--file', '--expression'], gsed: ['--in-place', '--file', '--expression'],
  sort: ['--output', '--compress-program'],
  awk: ['--file', '--include', '--load', '--exec', '--source'], gawk: ['--file', '--include', '--load', '--exec', '--source'],
  tar: ['--to-command', '--checkpoint-action', '--use-compress-program', '--info-script', '--new-volume-script', '--rsh-command', '--rmt-command'],
  env: ['--split-string'], time: ['--output'], man: ['--pager', '--html'], rsync: ['--rsh', '--rsync-path'],
  less: ['--log-file', '--LOG-FILE'],
  git: ['--upload-pack', '--receive-pack', '--exec', '--extcmd', '--sendmail-cmd', '--smtp-server', '--open-files-in-pager', '--template', '--config', '--config-env', '--tool', '--gpg-program', '--output', '--exec-path', '--git-dir', '--work-tree', '--unsafe-paths', '--httpd'],
};

/**
 * `--outp=x` as getopt reads it: an abbreviation of a dangerous long option is written
 * out (`--output=x`) so the checkers see it. Fails closed: an abbreviation of several
 * options becomes the first.
 */
function expandAbbreviation(program: string, argument: CommandWord): CommandWord {
  const options = Object.hasOwn(DANGEROUS_LONG_OPTIONS, program)
    ? DANGEROUS_LONG_OPTIONS[program]!
    : [];
  const value = argument.value;
  if (!value.startsWith('--') || value.length < 4) return argument;
  const equals = value.indexOf('=');
  const name = equals === -1 ? value : value.slice(0, equals);
  if (name.length < 4 || options.includes(name)) return argument;
  const full = options.find((option) => option.startsWith(name));
  return full === undefined ? argument : { ...argument, value: full + value.slice(name.length) };
}

/** wget saves what it downloads unless told `-O -`; some options write or run more. */
function checkWget(args: readonly CommandWord[]): string[] {
  const toStandardOutput = args.some(
    (argument, index) =>
      (argument.value === '-O' && args[index + 1]?.value === '-') ||
      argument.value === '--output-document=-' ||
      /^-[a-zA-Z]*O-$/.test(argument.value),
  );
  const writes = args.some((argument) =>
    /^(-[a-zA-Z]*[oaPx]|-[ei]$|--output-file|--append-output|--directory-prefix|--force-directories|--execute|--input-file)/.test(
      argument.value,
    ),
  );
  return !toStandardOutput || writes ? ['wget writes files (it saves downloads unless -O -)'] : [];
}

/** One finding when any argument matches `pattern`. */
function matching(args: readonly CommandWord[], pattern: RegExp, finding: string): string[] {
  return args.some((argument) => pattern.test(argument.value)) ? [finding] : [];
}

/**
 * The write/execute vectors found in one command's arguments (empty when none): `program`
 * is the basename of the command word, `args` the words after it.
 */
export function dangerousOptions(program: string, args: readonly CommandWord[]): string[] {
  const checker = Object.hasOwn(TABLE, program) ? TABLE[program] : undefined;
  if (checker === undefined) return [];
  const found = checker(args.map((argument) => expandAbbreviation(program, argument)));
  const computed = args.filter((argument) => !argument.literal);
  if (computed.length > 0) {
    found.push(
      `${program} has computed arguments (${computed.map((argument) => argument.value).join(' ')}) that the parser cannot check for dangerous options`,
    );
  }
  return found;
}

/** Configuration keys whose value git runs as a shell command. */
const GIT_COMMAND_KEYS =
  /^(core\.(pager|editor|sshcommand|fsmonitor|askpass)|sequence\.editor|diff\.external|gpg\.program|pager\..+|interactive\.difffilter)$/i;

/**
 * Shell text a command runs from inside its own arguments, for deny rules to see: `sed`
 * `e` commands, awk `system("…")` and pipes with literal strings, git `-c alias.x=!…` and
 * `-c core.pager=…` (and the other command-valued keys). Allow rules never rely on this:
 * the same arguments are write/execute vectors, so such a command is asked about anyway.
 */
export function embeddedCommands(program: string, args: readonly CommandWord[]): string[] {
  const literal = args.filter((argument) => argument.literal).map((argument) => argument.value);
  if (program === 'sed' || program === 'gsed') return literal.flatMap(sedScriptCommands);
  if (['awk', 'gawk', 'mawk', 'nawk'].includes(program)) return literal.flatMap(awkProgramCommands);
  if (program !== 'git') return [];
  const commands: string[] = [];
  literal.forEach((value, index) => {
    const setting =
      value === '-c' ? literal[index + 1] : value.startsWith('-c') ? value.slice(2) : undefined;
    const match = setting === undefined ? null : /^([^=]+)=(.*)$/s.exec(setting);
    if (match === null) return;
    const [, key, command] = match as unknown as [string, string, string];
    if (/^alias\./i.test(key) && command.startsWith('!')) commands.push(command.slice(1));
    // `git -c alias.p=push p` runs `git push`: deny rules see that git command.
    else if (/^alias\./i.test(key)) commands.push(`git ${command}`);
    else if (GIT_COMMAND_KEYS.test(key)) commands.push(command);
  });
  return commands;
}
