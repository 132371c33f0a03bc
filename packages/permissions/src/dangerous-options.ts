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

/** One argument as the classifier sees it. */
export interface CommandWord {
  /** The value after quote removal (expansions kept as written). */
  value: string;
  /** True when the value is fully known. */
  literal: boolean;
}

type Checker = (args: readonly CommandWord[]) => string[];

const GIT_GLOBAL_WITH_VALUE = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--super-prefix',
  '--exec-path',
  '--list-cmds',
  '--attr-source',
]);
// prettier-ignore
const GIT_EXECUTING_OPTIONS = ['--upload-pack', '--receive-pack', '--exec', '--extcmd', '--sendmail-cmd', '--smtp-server', '--open-files-in-pager', '--template', '--config', '--run', '--tool', '--gpg-program'];
// prettier-ignore
const GIT_CONFIG_READ_ACTIONS = new Set(['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l', 'get', 'list']);
const GIT_CONFIG_OPTIONS_WITH_VALUE = new Set([
  '--file',
  '-f',
  '--blob',
  '--type',
  '--default',
  '--comment',
]);

/** `git config` reads with a read action or a single key (`git config user.name`). */
function gitConfigOnlyReads(words: readonly string[]): boolean {
  if (words.some((word) => GIT_CONFIG_READ_ACTIONS.has(word))) return true;
  const positional: string[] = [];
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index]!;
    if (GIT_CONFIG_OPTIONS_WITH_VALUE.has(word)) index += 1;
    else if (!word.startsWith('-')) positional.push(word);
    else if (
      !/^--(global|system|local|worktree|show-origin|show-scope|null|name-only|includes|no-includes|bool|int|path)$|^-z$|^--(type|file|blob|default)=/.test(
        word,
      )
    )
      return false;
  }
  return positional.length === 1;
}

function checkGit(args: readonly CommandWord[]): string[] {
  const found: string[] = [];
  let index = 0;
  // Global options come before the subcommand.
  while (index < args.length && args[index]!.value.startsWith('-')) {
    const option = args[index]!.value;
    const name = option.split('=')[0]!;
    if (['-c', '--config-env'].includes(name) || /^-c./.test(option)) {
      found.push(
        `git ${name} sets configuration, which can run any command (core.pager, alias.x=!…, core.sshCommand)`,
      );
    } else if (name === '-C' || name === '--git-dir' || name === '--work-tree') {
      found.push(
        `git ${name} points git at another repository, whose configuration can run commands`,
      );
    } else if (name === '--exec-path' && option.includes('=')) {
      found.push('git --exec-path=… runs git commands from another folder');
    }
    index += GIT_GLOBAL_WITH_VALUE.has(option) ? 2 : 1;
  }
  const subcommand = args[index]?.value;
  const rest = args.slice(index + 1);
  for (const argument of rest) {
    const value = argument.value;
    const name = value.split('=')[0]!;
    if (
      name === '--output' ||
      (name === '-o' && ['format-patch', 'archive'].includes(subcommand ?? ''))
    ) {
      found.push(`git ${subcommand} ${name} writes a file anywhere`);
    }
    if (GIT_EXECUTING_OPTIONS.includes(name))
      found.push(`git ${subcommand} ${name} can run a command`);
    if (subcommand === 'grep' && /^-O/.test(value))
      found.push('git grep -O runs a command on the matches');
    if (subcommand === 'rebase' && (value === '-x' || value.startsWith('--exec')))
      found.push('git rebase --exec runs a command');
    if (
      ['fetch', 'pull', 'clone', 'ls-remote', 'archive'].includes(subcommand ?? '') &&
      /^-u/.test(value)
    ) {
      found.push(`git ${subcommand} -u runs an upload program`);
    }
    if (['clone', 'submodule'].includes(subcommand ?? '') && name === '-c') {
      found.push(`git ${subcommand} -c sets configuration that can run commands`);
    }
    if (subcommand === 'difftool' && value === '-x') found.push('git difftool -x runs a command');
  }
  if (subcommand === 'config' && !gitConfigOnlyReads(rest.map((argument) => argument.value))) {
    found.push('git config changes configuration (an alias or core.* setting can run any command)');
  }
  if (
    subcommand === 'config' &&
    rest.some((argument) =>
      [
        'set',
        'unset',
        '--add',
        '--unset',
        '--unset-all',
        '--replace-all',
        '--rename-section',
        '--remove-section',
        '-e',
        '--edit',
        'edit',
      ].includes(argument.value),
    )
  ) {
    found.push('git config changes configuration');
  }
  if (subcommand === 'bisect' && rest[0]?.value === 'run')
    found.push('git bisect run runs a command');
  if (subcommand === 'submodule' && rest.some((argument) => argument.value === 'foreach'))
    found.push('git submodule foreach runs a command');
  if (subcommand === 'filter-branch' || subcommand === 'filter-repo')
    found.push(`git ${subcommand} runs filter commands`);
  return [...new Set(found)];
}

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
    } else if (['-F', '-v', '--assign', '--field-separator'].includes(value)) index += 1;
    else if (value === '-e' || value === '--source') {
      found.push(...dangerousAwkProgram(args[index + 1]?.value ?? ''));
      programGiven = true;
      index += 1;
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
};

/**
 * The command's words with the options between the program and its subcommand left out
 * (`git -C . --no-pager push` → `git push`, `npm --silent publish` → `npm publish`), so a
 * deny rule on a subcommand cannot be stepped around; undefined when there are none.
 */
export function subcommandWords(program: string, args: readonly string[]): string[] | undefined {
  let index = 0;
  while (index < args.length && args[index]!.startsWith('-') && args[index] !== '--') {
    index += program === 'git' && GIT_GLOBAL_WITH_VALUE.has(args[index]!) ? 2 : 1;
  }
  if (args[index] === '--') index += 1;
  return index === 0 || index >= args.length ? undefined : [program, ...args.slice(index)];
}

/**
 * The write/execute vectors found in one command's arguments (empty when none): `program`
 * is the basename of the command word, `args` the words after it.
 */
export function dangerousOptions(program: string, args: readonly CommandWord[]): string[] {
  const checker = Object.hasOwn(TABLE, program) ? TABLE[program] : undefined;
  if (checker === undefined) return [];
  const found = checker(args);
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
    else if (GIT_COMMAND_KEYS.test(key)) commands.push(command);
  });
  return commands;
}
