/**
 * git's write and execute vectors: global options that load configuration or point at
 * another repository (`-c`, `--config-env`, `-C`, `--git-dir`, `--exec-path=`), options
 * that write files anywhere (`--output`) or run programs (`--upload-pack`, `rebase -x`,
 * `grep -O`, …), and `git config` writes (an alias or `core.*` setting runs any command).
 */

import type { CommandWord } from './dangerous-options.js';

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

/** The write/execute vectors of one git command (`args` after `git`). */
export function checkGit(args: readonly CommandWord[]): string[] {
  const found: string[] = [];
  let index = 0;
  // Global options come before the subcommand.
  while (index < args.length && args[index]!.value.startsWith('-')) {
    const option = args[index]!.value;
    const name = option.split('=')[0]!;
    if (name === '--config-env') {
      found.push(
        'git --config-env sets configuration from an environment variable the parser cannot see',
      );
    } else if (name === '-c' || /^-c./.test(option)) {
      found.push(
        `git ${name} sets configuration, which can run any command (core.pager, alias.x=!…, core.sshCommand)`,
      );
    } else if (
      /^-C./.test(option) ||
      name === '-C' ||
      name === '--git-dir' ||
      name === '--work-tree'
    ) {
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
  if (['instaweb', 'daemon'].includes(subcommand ?? ''))
    found.push(`git ${subcommand} starts a server that runs programs`);
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
    if (value === '--unsafe-paths')
      found.push(`git ${subcommand} --unsafe-paths writes outside the tree`);
    if (subcommand === 'rebase' && (/^-[a-zA-Z]*x/.test(value) || value.startsWith('--exec')))
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
