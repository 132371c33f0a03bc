/**
 * Classifies a shell line for permission rules: every command it can run (looked up
 * through wrappers, `sh -c`, `eval`, `find -exec`, substitutions, compound commands), the
 * word lists a deny or ask rule is matched against, why an allow rule may not vouch for a
 * command, what it writes, and whether the whole line only reads.
 */

import {
  dangerousOptions,
  embeddedCommands,
  subcommandWords,
  type CommandWord,
} from './dangerous-options.js';
import { isReadOnlyInvocation, pathArguments } from './read-only-commands.js';
import {
  parseShell,
  parseShellTokens,
  type ShellRedirection,
  type SimpleCommand,
} from './shell-parser.js';
import { tokenizeShell, type ShellWord } from './shell-tokenizer.js';
import { INTERPRETERS, programName, unwrapCommand } from './shell-wrappers.js';

/** One command a shell line can run, classified. */
export interface ClassifiedCommand {
  /** The words as written (quotes removed), without assignments and redirections. */
  words: string[];
  /** Word lists deny and ask rules are matched against (as written; by program basename). */
  views: string[][];
  /** True when the command needs no allow rule of its own (a transparent wrapper, `sh -c`). */
  selfCovered: boolean;
  /** Why an allow rule may not vouch for this command; empty when it may. */
  concerns: string[];
  /** What it writes or runs beyond reading (file redirections, write options). */
  writes: string[];
  /** True when it only reads. */
  readOnly: boolean;
  /** Arguments that may name files it reads (for read-only commands), unresolved. */
  readPaths: string[];
  /** Where it was found: `line`, `command substitution`, `bash -c`, `find -exec`, … */
  origin: string;
  /** True when the parser cannot tell every command this one runs (a computed name, `watch`). */
  hidesCommands: boolean;
  /** A glob in command position (`/bin/r?`): deny rules naming a program it matches apply. */
  commandPattern?: string;
}

/** A shell line, classified. */
export interface ShellClassification {
  commands: ClassifiedCommand[];
  /** Why parts of the line could not be read; allow rules never vouch for such a line. */
  problems: string[];
  /** True when every command only reads, nothing is written and the line was fully read. */
  readOnly: boolean;
  /**
   * Why the parser cannot see every command the line runs (a computed command name, a
   * runner it does not look through, a shell reading standard input). A rule allowing the
   * whole tool does not cover such a line while deny or ask rules name shell commands.
   */
  hidden: string[];
}

const SAFE_ASSIGNMENTS =
  /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|TERM|COLUMNS|LINES|CI|DEBUG|NODE_ENV|RUST_LOG|RUST_BACKTRACE|TMPDIR)$/;
const HARMLESS_TARGETS = /^\/dev\/(null|stdout|stderr|tty|fd\/[0-2])$/;
const MAXIMUM_DEPTH = 8;
const TRUSTED_PROGRAM_FOLDERS = /^\/(usr\/)?(local\/)?s?bin\/[^/]+$/;

function toCommandWords(words: readonly ShellWord[], concerns: string[]): CommandWord[] {
  const result: CommandWord[] = [];
  for (const word of words) {
    if (word.fields !== undefined) {
      concerns.push(`the word ${word.text} is split by ${word.expansions.join(', ')}`);
      for (const field of word.fields) result.push({ value: field, literal: true });
    } else if (
      !word.literal &&
      word.quoted &&
      !word.glob &&
      word.substitutions.length === 0 &&
      word.expansions.length > 0 &&
      word.expansions.every((name) => /^\$\{?IFS\}?$/.test(name))
    ) {
      // "rm${IFS}x" (quoted): IFS is not changed (that is a problem), so it is a blank.
      concerns.push(`the word ${word.text} uses ${word.expansions.join(', ')}`);
      result.push({ value: word.text.replace(/\$\{IFS\}|\$IFS/g, ' '), literal: true });
    } else result.push({ value: word.text, literal: word.literal });
  }
  return result;
}

function redirectionEffects(redirections: readonly ShellRedirection[], command: ClassifiedCommand) {
  for (const redirection of redirections) {
    const { operator, target } = redirection;
    const text = target?.text ?? '';
    if (operator === '<<' || operator === '<<-' || operator === '<<<') continue;
    if ((operator === '>&' || operator === '<&') && /^(\d+|-)$/.test(text)) continue;
    if (operator === '<') {
      if (target?.literal === true) command.readPaths.push(text);
      else command.concerns.push(`it reads from a computed file name ${text}`);
      continue;
    }
    if (target?.literal === true && HARMLESS_TARGETS.test(text)) continue;
    command.writes.push(`it redirects output to ${JSON.stringify(text)}`);
    command.concerns.push(`it redirects to ${JSON.stringify(text)}`);
  }
}

class Classifier {
  readonly commands: ClassifiedCommand[] = [];
  readonly problems: string[] = [];
  /** Why the line hides commands beyond the concerns of its commands (an interpreter). */
  readonly hiddenReasons: string[] = [];

  addScript(text: string, origin: string, depth: number) {
    if (depth > MAXIMUM_DEPTH) {
      this.problems.push(`shells nest more than ${MAXIMUM_DEPTH} deep`);
      return;
    }
    const parsed = parseShell(text, origin);
    this.problems.push(...parsed.problems);
    for (const command of parsed.commands) this.addSimple(command, depth);
  }

  private addSimple(simple: SimpleCommand, depth: number) {
    const concerns: string[] = [];
    for (const assignment of simple.assignments) {
      if (assignment.assignmentName === 'IFS') this.problems.push('the line changes IFS');
      if (!SAFE_ASSIGNMENTS.test(assignment.assignmentName ?? '')) {
        concerns.push(`it sets ${assignment.assignmentName}, which can change what a command runs`);
      }
    }
    const words = toCommandWords(simple.words, concerns);
    const firstEntry = this.commands.length;
    const entry = this.addWords(words, simple.origin, depth, concerns);
    redirectionEffects(simple.redirections, entry);
    for (const redirection of simple.redirections) {
      const document = redirection.hereDocument;
      if (document === undefined) continue;
      if (document.readable) continue;
      // An unquoted here-document expands like a double-quoted string: read its substitutions.
      const inner = tokenizeShell(`"${document.body.replace(/"/g, '\\"')}"`);
      this.problems.push(...inner.problems);
      for (const token of inner.tokens) {
        if (token.kind !== 'word') continue;
        if (token.word.expansions.length > 0)
          entry.concerns.push('a here-document expands variables or commands');
        for (const tokens of token.word.substitutions) {
          const parsed = parseShellTokens(tokens, 'here-document');
          this.problems.push(...parsed.problems);
          for (const command of parsed.commands) this.addSimple(command, depth + 1);
        }
      }
    }
    // A shell run by this command (directly or through wrappers) that reads its commands
    // from standard input reads this command's here-document or here-string: parse it.
    const readers = this.commands
      .slice(firstEntry)
      .filter((command) => command.concerns.includes(STANDARD_INPUT_CONCERN));
    if (readers.length > 0) {
      const document = simple.redirections.find(
        (redirection) =>
          redirection.hereDocument !== undefined && (redirection.descriptor ?? '0') === '0',
      )?.hereDocument;
      const hereString = simple.redirections.find(
        (redirection) => redirection.operator === '<<<' && (redirection.descriptor ?? '0') === '0',
      )?.target;
      const script =
        document?.readable === true
          ? document.body
          : hereString?.literal === true
            ? hereString.text
            : undefined;
      if (script !== undefined) {
        for (const reader of readers) {
          reader.concerns = reader.concerns.filter((concern) => concern !== STANDARD_INPUT_CONCERN);
        }
        this.addScript(script, 'shell standard input', depth + 1);
      }
    }
    entry.readOnly = entry.readOnly && entry.writes.length === 0 && entry.concerns.length === 0;
  }

  /** Classifies one command's words (and what it runs); returns its own entry. */
  private addWords(
    words: CommandWord[],
    origin: string,
    depth: number,
    concerns: string[],
  ): ClassifiedCommand {
    const entry: ClassifiedCommand = {
      words: words.map((word) => word.value),
      views: [],
      selfCovered: false,
      concerns,
      writes: [],
      readOnly: false,
      readPaths: [],
      origin,
      hidesCommands: false,
    };
    this.commands.push(entry);
    const first = words[0];
    if (first === undefined) {
      entry.selfCovered = true;
      entry.readOnly = true;
      return entry;
    }
    if (!first.literal) {
      entry.hidesCommands = true;
      if (/[*?[]/.test(first.value) && !/[$`]/.test(first.value))
        entry.commandPattern = first.value;
      concerns.push(
        `the command name ${first.value} is computed; the parser cannot tell what runs`,
      );
      return entry;
    }
    const program = programName(first.value);
    const args = words.slice(1);
    if (INTERPRETERS.has(program)) {
      entry.hidesCommands = true;
      this.hiddenReasons.push(`${program} runs code the parser does not read`);
    }
    entry.views.push(entry.words);
    if (program !== first.value) entry.views.push([program, ...entry.words.slice(1)]);

    const dangers = dangerousOptions(program, args);
    concerns.push(...dangers);
    for (const text of embeddedCommands(program, args)) {
      this.addScript(text, `${program} (embedded command)`, depth + 1);
    }
    if (dangers.some((danger) => /writes|deletes|rewrites/.test(danger)))
      entry.writes.push(...dangers);
    if (args.some((argument) => /\$\(|`|[<>]\(/.test(argument.value) && !argument.literal)) {
      concerns.push('its arguments use command substitution, whose output the parser cannot see');
    }
    const unwrapped = unwrapCommand(program, args);
    // Wrappers are looked through below; other programs also show their subcommand.
    const subcommand =
      unwrapped === undefined ? subcommandWords(program, entry.words.slice(1)) : undefined;
    if (subcommand !== undefined) entry.views.push(subcommand);
    // Only the program found on the usual path is the known program: `./git` may be anything.
    const knownProgram = program === first.value || TRUSTED_PROGRAM_FOLDERS.test(first.value);
    if (unwrapped === undefined) {
      entry.readOnly = knownProgram && isReadOnlyInvocation(program, args);
    } else {
      concerns.push(...unwrapped.concerns);
      if (unwrapped.readsStandardInput) concerns.push(STANDARD_INPUT_CONCERN);
      if (depth >= MAXIMUM_DEPTH && (unwrapped.inner.length > 0 || unwrapped.scripts.length > 0)) {
        this.problems.push(`commands nest more than ${MAXIMUM_DEPTH} deep`);
        return entry;
      }
      entry.selfCovered = knownProgram && unwrapped.transparent;
      entry.readOnly =
        (knownProgram && unwrapped.transparent) ||
        (unwrapped.inner.length === 0 && isReadOnlyInvocation(program, args));
      const via = program === 'find' ? 'find -exec' : program;
      if (unwrapped.candidates !== undefined) {
        entry.hidesCommands = true;
        for (const candidate of unwrapped.candidates) {
          const values = candidate.map((word) => word.value);
          entry.views.push(values, [programName(values[0]!), ...values.slice(1)]);
        }
        // A runner inside a runner (`chroot / bash -c '…'`, `strace sudo rm x`): look through.
        const nested = unwrapped.candidates.find(
          (candidate) =>
            unwrapCommand(programName(candidate[0]!.value), candidate.slice(1)) !== undefined,
        );
        if (nested !== undefined && depth < MAXIMUM_DEPTH && unwrapped.scripts.length === 0)
          this.addWords(nested, via, depth + 1, []);
      }
      for (const inner of unwrapped.inner) this.addWords(inner, via, depth + 1, []);
      for (const script of unwrapped.scripts) this.addScript(script.text, script.via, depth + 1);
    }
    if (concerns.length > 0 || entry.writes.length > 0) entry.readOnly = false;
    if (entry.readOnly) {
      const paths = pathArguments(program, args);
      if (paths === undefined) entry.readOnly = false;
      else entry.readPaths.push(...paths);
    }
    return entry;
  }
}

/**
 * Concerns that say the parser cannot see everything that runs: a computed name, an opaque
 * runner, or an execute vector whose command may be built at run time (awk
 * `system("r" "m x")`, sed `1s/x/rm x/e`), or a variable a program runs (`BASH_ENV='$(…)'`,
 * `GIT_SSH_COMMAND=…`, `export PAGER=…`). Literal commands there are still denied first.
 */
const HIDING_CONCERN =
  /computed|the parser (cannot|does not)|runs text|runs commands|runs (a|the pattern space as a) command|can run a command|pipes to or from a command|loads code|calls a function by name|can change what (a command runs|later commands run)/;

const STANDARD_INPUT_CONCERN =
  'the shell reads commands from standard input, which the parser does not see';

/** Classifies a shell line; see the module comment. */
export function classifyShellLine(line: string): ShellClassification {
  const classifier = new Classifier();
  try {
    classifier.addScript(line, 'line', 0);
  } catch (error) {
    // `{ { { … } } }` thousands deep overflows the recursive parser: the line is unreadable,
    // which fails closed (deny and ask rules apply, allow rules do not).
    if (!(error instanceof RangeError)) throw error;
    return {
      commands: [],
      problems: ['the line nests too deeply to be read'],
      readOnly: false,
      hidden: [],
    };
  }
  const problems = [...new Set(classifier.problems)];
  const commands = classifier.commands;
  // `cd /tmp/evil && git status` is `git -C /tmp/evil status`: that repository's
  // configuration (core.fsmonitor, core.pager) can run commands.
  const leavesTree = commands.some(
    (command) =>
      ['cd', 'pushd', 'popd'].includes(command.words[0] ?? '') &&
      (command.words.length === 1 ||
        command.words
          .slice(1)
          .some((word) => !/^(?![-~/])(?!.*(^|\/)\.\.(\/|$))[^$`]+$/.test(word))),
  );
  if (leavesTree) {
    for (const command of commands) {
      if (command.views.some((view) => programName(view[0] ?? '') === 'git'))
        command.concerns.push(
          'git runs after cd into another folder, whose repository configuration can run commands',
        );
    }
  }
  for (const command of commands) command.concerns = [...new Set(command.concerns)];
  const readOnly =
    problems.length === 0 && commands.length > 0 && commands.every((command) => command.readOnly);
  const hidden = [
    ...new Set([
      ...classifier.hiddenReasons,
      ...commands.flatMap((command) =>
        command.hidesCommands
          ? command.concerns
          : command.concerns.filter((concern) => HIDING_CONCERN.test(concern)),
      ),
    ]),
  ];
  return { commands, problems, readOnly, hidden };
}
