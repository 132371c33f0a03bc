/** Token-level helpers of the shell parser: looking ahead, reserved words, expectations. */

import type { ShellToken } from './shell-tokens.js';

const LIST_SEPARATORS = new Set([';', '&', '\n']);

/** A position in a token list, with the checks the grammar needs. */
export class TokenCursor {
  protected position = 0;
  /** What did not fit the grammar. */
  readonly problems: string[] = [];

  constructor(protected readonly tokens: ShellToken[]) {}

  protected peek(offset = 0): ShellToken | undefined {
    return this.tokens[this.position + offset];
  }

  protected describe(token: ShellToken | undefined): string {
    if (token === undefined) return 'end of line';
    if (token.kind === 'word') return `"${token.word.text}"`;
    if (token.kind === 'operator') return token.value === '\n' ? 'newline' : `"${token.value}"`;
    return `"${token.operator}"`;
  }

  /** The unquoted literal text of a word token, for reserved words. */
  protected reserved(token: ShellToken | undefined): string | undefined {
    if (token?.kind !== 'word' || token.word.quoted || !token.word.literal) return undefined;
    return token.word.text;
  }

  protected isOperator(token: ShellToken | undefined, values: ReadonlySet<string>): boolean {
    return token?.kind === 'operator' && values.has(token.value);
  }

  protected skipNewlines() {
    while (this.isOperator(this.peek(), new Set(['\n']))) this.position += 1;
  }

  protected expectWord(value: string, context: string): boolean {
    this.skipSeparators();
    if (this.reserved(this.peek()) === value) {
      this.position += 1;
      return true;
    }
    this.problems.push(`expected "${value}" ${context}, found ${this.describe(this.peek())}`);
    return false;
  }

  protected skipSeparators() {
    while (this.isOperator(this.peek(), LIST_SEPARATORS)) this.position += 1;
  }

  /** Parses commands until a reserved word in `endWords` or an operator in `endOperators`. */

  protected expectOperator(value: string, context: string) {
    this.skipNewlines();
    if (this.isOperator(this.peek(), new Set([value]))) this.position += 1;
    else this.problems.push(`expected "${value}" ${context}, found ${this.describe(this.peek())}`);
  }

  /** Parses a compound command starting with a reserved word; false when it is not one. */
}
