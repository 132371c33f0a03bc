/**
 * Which commands only read. A shell line is read-only when every command in it is one of
 * these (used as itself, with none of its write or execute options) and nothing redirects
 * output to a file. Anything not listed is not read-only: the list is short on purpose.
 */

import type { CommandWord } from './dangerous-options.js';

type Predicate = (args: readonly CommandWord[]) => boolean;

const always: Predicate = () => true;
const values = (args: readonly CommandWord[]) => args.map((argument) => argument.value);

// prettier-ignore
const GIT_READ_ONLY_SUBCOMMANDS = new Set(['status', 'log', 'diff', 'show', 'rev-parse', 'ls-files', 'ls-tree', 'blame', 'annotate', 'describe', 'shortlog', 'grep', 'cat-file', 'show-ref', 'for-each-ref', 'rev-list', 'name-rev', 'merge-base', 'diff-tree', 'diff-files', 'diff-index', 'var', 'version', 'help', 'count-objects', 'whatchanged', 'cherry', 'range-diff', 'show-branch', 'check-ignore', 'check-attr', 'ls-remote']);

function gitIsReadOnly(args: readonly CommandWord[]): boolean {
  const words = values(args);
  let index = 0;
  while (index < words.length && words[index]!.startsWith('-')) {
    index += ['--namespace'].includes(words[index]!) ? 2 : 1;
  }
  const subcommand = words[index];
  const rest = words.slice(index + 1);
  if (subcommand === undefined) return true;
  if (GIT_READ_ONLY_SUBCOMMANDS.has(subcommand)) return true;
  // Listing forms only: `git branch`, `git branch -a -v`, `git tag -l`, `git remote -v`, …
  const onlyFlags = rest.every((word) =>
    /^-(a|r|v|vv|l|-list|-all|-remotes|-verbose|n\d*|-show-current|-merged|-no-merged|-contains)$/.test(
      word,
    ),
  );
  if (['branch', 'tag', 'remote', 'stash', 'worktree'].includes(subcommand)) {
    if (subcommand === 'stash' || subcommand === 'worktree') return rest[0] === 'list';
    return onlyFlags;
  }
  if (subcommand === 'config') {
    return rest.some(
      (word) =>
        ['--get', '--get-all', '--get-regexp', '--list', '-l'].includes(word) ||
        word === 'get' ||
        word === 'list',
    );
  }
  if (subcommand === 'reflog') return rest.length === 0 || rest[0] === 'show';
  return false;
}

// prettier-ignore
const TABLE: Record<string, Predicate> = {
  ls: always, cat: always, head: always, tail: always, grep: always, egrep: always, fgrep: always,
  rg: always, ag: always, wc: always, cut: always, tr: always, nl: always, od: always,
  hexdump: always, stat: always, du: always, df: always, '[[': always, pwd: always,
  echo: always, printf: always, true: always, false: always, test: always, '[': always,
  which: always, whereis: always, type: always, basename: always, dirname: always,
  realpath: always, readlink: always, id: always, whoami: always, uname: always, printenv: always,
  ps: always, cmp: always, comm: always, jq: always, md5sum: always, sha1sum: always,
  sha256sum: always, sha512sum: always, cksum: always, column: always, fold: always, fmt: always,
  expand: always, unexpand: always, strings: always, rev: always, tac: always, paste: always,
  join: always, seq: always, sleep: always, nproc: always, uptime: always, free: always,
  cd: always, pushd: always, popd: always, diff: always, sed: always, awk: always, gawk: always,
  find: always, env: always, command: always, sort: always, git: gitIsReadOnly,
  uniq: (args) => args.filter((argument) => !argument.value.startsWith('-')).length <= 1,
  date: (args) => !values(args).some((word) => /^(-s|--set)/.test(word)),
  file: (args) => !values(args).some((word) => /^(-[a-zA-Z]*C|--compile)/.test(word)),
  tree: (args) => !values(args).some((word) => /^(-o|--output)/.test(word)),
  hostname: (args) => args.every((argument) => argument.value.startsWith('-')),
};

/**
 * True when a command of `program` with these arguments only reads. The caller has already
 * checked the program's dangerous options (`sed -i`, `find -delete`, `sort -o`, …), so
 * `sed`, `find`, `sort` and `env` are listed here for their plain uses.
 */
export function isReadOnlyInvocation(program: string, args: readonly CommandWord[]): boolean {
  const predicate = Object.hasOwn(TABLE, program) ? TABLE[program] : undefined;
  return predicate !== undefined && predicate(args);
}

/**
 * The arguments of a read-only command that may name files, for the working-directory
 * check: every word that is not an option, and the value of `--option=value`. `cd` with no
 * argument goes home. Returns undefined when one cannot be known (a computed word, `cd -`,
 * a `.`-glob that could match `..`).
 */
export function pathArguments(program: string, args: readonly CommandWord[]): string[] | undefined {
  if ((program === 'cd' || program === 'pushd') && args.length === 0) return ['~'];
  if (program === 'popd') return undefined;
  const paths: string[] = [];
  for (const argument of args) {
    // `~root/x`, `~+/x`, `~-/x` name another user's home, $PWD or $OLDPWD: not checkable.
    if (/(^|=)~[^/]/.test(argument.value)) return undefined;
    if (!argument.literal) {
      if (/^[^$`]*[*?[]/.test(argument.value) && !/(^|\/)\.[*?[]/.test(argument.value)) {
        paths.push(argument.value); // a plain glob: judged by its literal text
        continue;
      }
      return undefined;
    }
    const value = argument.value;
    if (value === '-' && (program === 'cd' || program === 'pushd')) return undefined;
    if (value.startsWith('--') && value.includes('='))
      paths.push(value.slice(value.indexOf('=') + 1));
    else if (!value.startsWith('-')) paths.push(value);
  }
  return paths.filter((path) => path !== '');
}
