/**
 * The data model of muster's shell reading: the tokens the tokenizer produces (words with
 * their expansions, operators, redirections, here-documents) and the simple commands the
 * parser finds in them.
 */

/** One word after quote removal, with what the shell would still expand in it. */
export interface ShellWord {
  /** The value after quote removal; expansions are kept as written (`$HOME`, `$(…)`). */
  text: string;
  /** True when the value is fully known: no expansion, no unquoted glob or brace pattern. */
  literal: boolean;
  /** True when any part of the word was quoted or escaped (reserved words never are). */
  quoted: boolean;
  /** Human-readable names of the expansions in the word (`$HOME`, `${IFS}`, `$(…)`). */
  expansions: string[];
  /** Token lists of the command and process substitutions inside the word. */
  substitutions: ShellToken[][];
  /**
   * Set when the only expansions are `$IFS` or a simple brace list: the words the shell
   * would produce (`rm${IFS}x` → `rm`, `x`; `{rm,x}` → `rm`, `x`).
   */
  fields?: string[];
  /** Unquoted glob characters (`*`, `?`, `[`) appear in the word. */
  glob: boolean;
  /** `name` when the word is an assignment `name=value` / `name+=value` (unquoted name). */
  assignmentName?: string;
}

/** A here-document attached to a `<<` redirection. */
export interface HereDocument {
  delimiter: string;
  /** `<<-`: leading tabs are stripped from the body and the closing line. */
  stripTabs: boolean;
  /** The body, when it was found. */
  body: string;
  /** True when the body is literal (quoted delimiter, or no `$` / backquote in it). */
  readable: boolean;
}

/** A token of a shell line. */
export type ShellToken =
  | { kind: 'word'; word: ShellWord }
  | { kind: 'operator'; value: string }
  | {
      kind: 'redirection';
      operator: string;
      /** The file descriptor number written before the operator, if any. */
      descriptor?: string;
      /** The target word (file name, descriptor for `>&`, here-string for `<<<`). */
      target?: ShellWord;
      hereDocument?: HereDocument;
    };

/** Tokens of one line (or of one substitution), and what could not be read. */
export interface TokenizedShell {
  tokens: ShellToken[];
  /** Why parts of the line could not be read (an unclosed quote, a here-document with no end). */
  problems: string[];
  /** Index just after the last character read (after the closing `)` of a substitution). */
  end: number;
}

/** A redirection token. */
export type ShellRedirection = Extract<ShellToken, { kind: 'redirection' }>;

/** One simple command: `NAME=value … word … > file`. */
export interface SimpleCommand {
  /** Assignments written before the command name (or alone). */
  assignments: ShellWord[];
  /** The command name and its arguments; empty for a line of assignments or redirections. */
  words: ShellWord[];
  /** Redirections of the command (and of the compound command around it). */
  redirections: ShellRedirection[];
  /** Where it was found: `line`, `command substitution`, `function body`, … */
  origin: string;
}

/** Every simple command of a line, and why parts of it could not be read. */
export interface ParsedShell {
  commands: SimpleCommand[];
  problems: string[];
}
