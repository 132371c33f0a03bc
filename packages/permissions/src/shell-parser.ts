/**
 * The grammatical half of muster's reading of a shell line: lists (`;`, `&`, newlines),
 * `&&` / `||`, pipelines (`|`, `|&`, `!`, `time`), subshells `( … )`, groups `{ …; }`,
 * `if`/`elif`/`else`, `for`/`select`, `while`/`until`, `case`, `[[ … ]]`, `(( … ))`,
 * function definitions, assignments before a command, and redirections after any command.
 * The result is flat: every simple command the line can run, wherever it sits (inside a
 * group, a loop body, a function body, a command or process substitution), because every
 * one of them may run. Anything that does not fit the grammar is reported as a problem.
 */

import { TokenCursor } from './shell-token-cursor.js';
import { tokenizeShell } from './shell-tokenizer.js';
import type {
  ParsedShell,
  ShellRedirection,
  ShellToken,
  ShellWord,
  SimpleCommand,
} from './shell-tokens.js';

export type { ParsedShell, ShellRedirection, SimpleCommand } from './shell-tokens.js';

const CASE_ITEM_ENDS = new Set([';;', ';&', ';;&']);

class ShellParser extends TokenCursor {
  readonly commands: SimpleCommand[] = [];

  constructor(
    tokens: ShellToken[],
    private readonly origin: string,
  ) {
    super(tokens);
  }

  parse(): ParsedShell {
    this.parseList(new Set(), new Set());
    if (this.position < this.tokens.length) {
      this.problems.push(`unexpected ${this.describe(this.peek())}`);
    }
    return { commands: this.commands, problems: this.problems };
  }

  private parseList(endWords: ReadonlySet<string>, endOperators: ReadonlySet<string>) {
    for (;;) {
      this.skipSeparators();
      const token = this.peek();
      if (token === undefined) return;
      const word = this.reserved(token);
      if (word !== undefined && endWords.has(word)) return;
      if (this.isOperator(token, endOperators)) return;
      const before = this.position;
      this.parseAndOr();
      if (this.position === before) {
        this.problems.push(`unexpected ${this.describe(token)}`);
        this.position += 1;
      }
    }
  }

  private parseAndOr() {
    this.parsePipeline();
    while (this.isOperator(this.peek(), new Set(['&&', '||']))) {
      this.position += 1;
      this.skipNewlines();
      this.parsePipeline();
    }
  }

  private parsePipeline() {
    for (;;) {
      const word = this.reserved(this.peek());
      if (word === '!') this.position += 1;
      else if (word === 'time') {
        this.position += 1;
        if (this.reserved(this.peek()) === '-p') this.position += 1;
        if (this.reserved(this.peek()) === '--') this.position += 1;
      } else if (word === 'coproc') {
        // coproc [NAME] command: the name only comes before a compound command.
        this.position += 1;
        const next = this.peek(1);
        if (
          this.peek()?.kind === 'word' &&
          (this.isOperator(next, new Set(['('])) || this.reserved(next) === '{')
        ) {
          this.position += 1;
        }
      } else break;
    }
    this.parseCommand();
    while (this.isOperator(this.peek(), new Set(['|', '|&']))) {
      this.position += 1;
      this.skipNewlines();
      this.parseCommand();
    }
  }

  private parseCommand() {
    const token = this.peek();
    if (token === undefined) return;
    const start = this.commands.length;
    if (token.kind === 'operator' && token.value === '(') {
      this.position += 1;
      this.parseList(new Set(), new Set([')']));
      this.expectOperator(')', 'to close a subshell');
      this.attachTrailingRedirections();
      return;
    }
    const word = this.reserved(token);
    if (word !== undefined && this.parseCompound(word)) {
      this.attachTrailingRedirections();
      return;
    }
    if (
      token.kind === 'word' &&
      this.isOperator(this.peek(1), new Set(['('])) &&
      this.isOperator(this.peek(2), new Set([')']))
    ) {
      this.position += 3;
      this.skipNewlines();
      this.parseFunctionBody(start);
      return;
    }
    this.parseSimpleCommand();
  }

  private parseFunctionBody(start: number) {
    const before = this.position;
    this.parseCommand();
    if (this.position === before) this.problems.push('a function definition has no body');
    for (const command of this.commands.slice(start)) command.origin = 'function body';
  }

  private parseCompound(word: string): boolean {
    switch (word) {
      case '{':
        this.position += 1;
        this.parseList(new Set(['}']), new Set());
        this.expectWord('}', 'to close a "{" group');
        return true;
      case 'if':
        this.position += 1;
        this.parseList(new Set(['then']), new Set());
        this.expectWord('then', 'after "if"');
        for (;;) {
          this.parseList(new Set(['elif', 'else', 'fi']), new Set());
          const next = this.reserved(this.peek());
          if (next === 'elif') {
            this.position += 1;
            this.parseList(new Set(['then']), new Set());
            this.expectWord('then', 'after "elif"');
          } else if (next === 'else') this.position += 1;
          else break;
        }
        this.expectWord('fi', 'to close "if"');
        return true;
      case 'while':
      case 'until':
        this.position += 1;
        this.parseList(new Set(['do']), new Set());
        this.parseDoGroup(word);
        return true;
      case 'for':
      case 'select':
        this.position += 1;
        this.parseForHeader(word);
        this.parseDoGroup(word);
        return true;
      case 'case':
        this.position += 1;
        this.parseCase();
        return true;
      case 'function': {
        this.position += 1;
        const start = this.commands.length;
        if (this.peek()?.kind === 'word') this.position += 1;
        if (this.isOperator(this.peek(), new Set(['(']))) this.expectPair();
        this.skipNewlines();
        this.parseFunctionBody(start);
        return true;
      }
      case '[[':
        this.position += 1;
        this.parseConditional();
        return true;
      case 'then':
      case 'elif':
      case 'else':
      case 'fi':
      case 'do':
      case 'done':
      case 'esac':
      case '}':
      case ']]':
      case 'in':
        this.problems.push(`unexpected "${word}"`);
        this.position += 1;
        return true;
      default:
        return false;
    }
  }

  private expectPair() {
    this.position += 1;
    this.expectOperator(')', 'after "function name ("');
  }

  private parseDoGroup(keyword: string) {
    if (!this.expectWord('do', `after "${keyword}"`)) return;
    this.parseList(new Set(['done']), new Set());
    this.expectWord('done', `to close "${keyword} … do"`);
  }

  private parseForHeader(keyword: string) {
    const token = this.peek();
    if (token?.kind === 'word' && token.word.text.startsWith('((')) {
      // for (( … )) was read as an arithmetic word by the tokenizer.
      this.collectWords([token.word]);
      this.position += 1;
      return;
    }
    if (this.isOperator(token, new Set(['(']))) {
      this.problems.push(`"${keyword} ((" arithmetic loops are not read`);
      return;
    }
    if (token?.kind !== 'word') {
      this.problems.push(`"${keyword}" needs a variable name`);
      return;
    }
    this.position += 1;
    this.skipNewlines();
    if (this.reserved(this.peek()) !== 'in') return;
    this.position += 1;
    const words: ShellWord[] = [];
    while (this.peek()?.kind === 'word') {
      words.push((this.peek() as Extract<ShellToken, { kind: 'word' }>).word);
      this.position += 1;
    }
    this.collectWords(words);
  }

  private parseCase() {
    const subject = this.peek();
    if (subject?.kind !== 'word') {
      this.problems.push('"case" needs a word');
      return;
    }
    this.collectWords([subject.word]);
    this.position += 1;
    this.skipNewlines();
    if (!this.expectWord('in', 'after "case word"')) return;
    for (;;) {
      this.skipNewlines();
      const token = this.peek();
      if (token === undefined) break;
      if (this.reserved(token) === 'esac') {
        this.position += 1;
        return;
      }
      if (this.isOperator(token, new Set(['(']))) this.position += 1;
      const patterns: ShellWord[] = [];
      while (this.peek()?.kind === 'word' || this.isOperator(this.peek(), new Set(['|']))) {
        const current = this.peek()!;
        if (current.kind === 'word') patterns.push(current.word);
        this.position += 1;
      }
      this.collectWords(patterns);
      if (!this.isOperator(this.peek(), new Set([')']))) {
        this.problems.push(
          `expected ")" after a case pattern, found ${this.describe(this.peek())}`,
        );
        return;
      }
      this.position += 1;
      this.parseList(new Set(['esac']), CASE_ITEM_ENDS);
      if (this.isOperator(this.peek(), CASE_ITEM_ENDS)) this.position += 1;
    }
    this.problems.push('"case" is never closed with "esac"');
  }

  private parseConditional() {
    const words: ShellWord[] = [];
    while (this.position < this.tokens.length) {
      const token = this.peek()!;
      this.position += 1;
      if (token.kind === 'word') {
        if (this.reserved(token) === ']]') {
          this.collectWords(words);
          // Recorded as a command `[[ … ]]` so the classifier can judge it.
          const literal = (text: string): ShellWord => ({
            text,
            literal: true,
            quoted: false,
            expansions: [],
            substitutions: [],
            glob: false,
          });
          this.commands.push({
            assignments: [],
            words: [literal('[['), ...words, literal(']]')],
            redirections: [],
            origin: this.origin,
          });
          return;
        }
        words.push(token.word);
      } else if (token.kind === 'redirection' && token.target !== undefined) {
        words.push({ ...token.target, text: `${token.operator}${token.target.text}` });
      } else if (token.kind === 'operator' && token.value === '\n') break;
    }
    this.problems.push('"[[" is never closed with "]]"');
  }

  /** Adds the commands of substitutions inside words that are not a command's own. */
  private collectWords(words: readonly ShellWord[]) {
    for (const word of words) this.collectSubstitutions(word);
  }

  private collectSubstitutions(word: ShellWord) {
    for (const tokens of word.substitutions) {
      const nested = new ShellParser(tokens, 'command substitution').parse();
      this.commands.push(...nested.commands);
      this.problems.push(...nested.problems);
    }
  }

  private attachTrailingRedirections() {
    const redirections: ShellRedirection[] = [];
    while (this.peek()?.kind === 'redirection') {
      const token = this.peek() as ShellRedirection;
      redirections.push(token);
      if (token.target !== undefined) this.collectSubstitutions(token.target);
      this.position += 1;
    }
    if (redirections.length === 0) return;
    // One command standing for the compound command's redirections (a write is a write).
    this.commands.push({ assignments: [], words: [], redirections, origin: this.origin });
  }

  private parseSimpleCommand() {
    const command: SimpleCommand = {
      assignments: [],
      words: [],
      redirections: [],
      origin: this.origin,
    };
    const nested: SimpleCommand[] = [];
    for (;;) {
      const token = this.peek();
      if (token === undefined || token.kind === 'operator') break;
      this.position += 1;
      if (token.kind === 'redirection') {
        command.redirections.push(token);
        if (token.target !== undefined) this.collectInto(token.target, nested);
        continue;
      }
      if (command.words.length === 0 && token.word.assignmentName !== undefined) {
        command.assignments.push(token.word);
      } else command.words.push(token.word);
      this.collectInto(token.word, nested);
    }
    const empty = command.words.length + command.assignments.length + command.redirections.length;
    this.commands.push(...nested, ...(empty === 0 ? [] : [command]));
  }

  private collectInto(word: ShellWord, into: SimpleCommand[]) {
    for (const tokens of word.substitutions) {
      const parsed = new ShellParser(tokens, 'command substitution').parse();
      into.push(...parsed.commands);
      this.problems.push(...parsed.problems);
    }
  }
}

/** Parses tokens (of a line or of a substitution) into its simple commands. */
export function parseShellTokens(tokens: ShellToken[], origin = 'line'): ParsedShell {
  return new ShellParser(tokens, origin).parse();
}

/** Tokenizes and parses a shell line; see the module comment for what is understood. */
export function parseShell(text: string, origin = 'line'): ParsedShell {
  const tokenized = tokenizeShell(text);
  const parsed = parseShellTokens(tokenized.tokens, origin);
  return {
    commands: parsed.commands,
    problems: [...new Set([...tokenized.problems, ...parsed.problems])],
  };
}
