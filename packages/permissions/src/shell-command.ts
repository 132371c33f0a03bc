/**
 * A conservative reading of a shell command line, enough to match `Bash(...)` rules safely.
 * It is not a shell: it splits a line into simple commands at `;`, `&&`, `||`, `|`, `&`,
 * newlines and parentheses (outside quotes), splits each into words (quotes removed), and
 * lifts commands inside `$(…)`, backquotes and `<(…)` / `>(…)` out as commands of their own.
 * Anything it cannot vouch for (a substitution, a redirection to a file, a here-document,
 * unbalanced quotes) makes the affected command unmatchable by allow rules, so such a call
 * is asked about rather than allowed; deny rules still see every command it found.
 */

/** One simple command found in a line. */
export interface ShellSegment {
  /** The command's words, quotes removed (`git "log"` → `['git', 'log']`). */
  words: string[];
  /** Why an allow rule may not vouch for this command; empty when it may. */
  concerns: string[];
}

/** Every simple command in a line, plus a problem that spoils the whole line. */
export interface ShellCommandAnalysis {
  segments: ShellSegment[];
  /** Set when the line could not be read (e.g. an unterminated quote). */
  problem?: string;
}

interface ParseState {
  text: string;
  index: number;
  segments: ShellSegment[];
  problem?: string;
}

const SEPARATORS = new Set([';', '\n', '&', '|']);
const WORD_ENDS = new Set([' ', '\t', ';', '\n', '&', '|', '(', ')', '<', '>']);

/** Splits a command line into simple commands; see the module comment for what it covers. */
export function analyzeShellCommand(command: string): ShellCommandAnalysis {
  const state: ParseState = { text: command, index: 0, segments: [] };
  parseSequence(state, undefined);
  return state.problem === undefined
    ? { segments: state.segments }
    : { segments: state.segments, problem: state.problem };
}

/**
 * Parses commands until `terminator` (`)` or a backquote) or the end of the text. Commands of
 * nested substitutions are pushed before the command that contains them.
 */
function parseSequence(state: ParseState, terminator: ')' | '`' | undefined): void {
  const { text } = state;
  let words: string[] = [];
  let concerns: string[] = [];
  let word = '';
  let inWord = false;
  const finishWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const finishSegment = () => {
    finishWord();
    if (words.length > 0 || concerns.length > 0) state.segments.push({ words, concerns });
    words = [];
    concerns = [];
  };
  const substitute = (closing: ')' | '`', label: string) => {
    parseSequence(state, closing);
    concerns.push(label);
    word += '…';
    inWord = true;
  };

  while (state.index < text.length) {
    const character = text[state.index]!;
    const next = text[state.index + 1];
    if (character === terminator) {
      state.index += 1;
      finishSegment();
      return;
    }
    if (character === ' ' || character === '\t') {
      finishWord();
      state.index += 1;
    } else if (character === '\\') {
      if (next === '\n') state.index += 2;
      else {
        word += next ?? '';
        inWord = true;
        state.index += 2;
      }
    } else if (character === "'") {
      const close = text.indexOf("'", state.index + 1);
      if (close === -1) {
        state.problem ??= 'a single quote is never closed';
        state.index = text.length;
      } else {
        word += text.slice(state.index + 1, close);
        inWord = true;
        state.index = close + 1;
      }
    } else if (character === '"') {
      state.index += 1;
      inWord = true;
      let closed = false;
      while (state.index < text.length) {
        const inner = text[state.index]!;
        if (inner === '"') {
          closed = true;
          state.index += 1;
          break;
        }
        if (inner === '\\' && ['"', '\\', '$', '`', '\n'].includes(text[state.index + 1] ?? '')) {
          if (text[state.index + 1] !== '\n') word += text[state.index + 1];
          state.index += 2;
        } else if (inner === '$' && text[state.index + 1] === '(') {
          state.index += 2;
          substitute(')', 'it uses command substitution $(…)');
        } else if (inner === '`') {
          state.index += 1;
          substitute('`', 'it uses command substitution `…`');
        } else {
          word += inner;
          state.index += 1;
        }
      }
      if (!closed) state.problem ??= 'a double quote is never closed';
    } else if (character === '$' && next === '(') {
      state.index += 2;
      substitute(')', 'it uses command substitution $(…)');
    } else if (character === '`') {
      state.index += 1;
      substitute('`', 'it uses command substitution `…`');
    } else if ((character === '<' || character === '>') && next === '(') {
      state.index += 2;
      substitute(')', 'it uses process substitution');
    } else if (character === '(') {
      finishSegment();
      state.index += 1;
      parseSequence(state, ')');
    } else if (character === ')') {
      state.problem ??= 'a ")" has no matching "("';
      state.index += 1;
    } else if (character === '<' || character === '>' || (character === '&' && next === '>')) {
      if (inWord && /^\d+$/.test(word)) {
        word = '';
        inWord = false;
      } else finishWord();
      const concern = readRedirection(state);
      if (concern !== undefined) concerns.push(concern);
    } else if (SEPARATORS.has(character)) {
      finishSegment();
      state.index += 1;
      if ((character === '&' || character === '|' || character === ';') && next === character) {
        state.index += 1;
      } else if (character === '|' && next === '&') state.index += 1;
    } else {
      word += character;
      inWord = true;
      state.index += 1;
    }
  }
  if (terminator !== undefined) {
    state.problem ??=
      terminator === ')' ? 'a "(" or "$(" is never closed' : 'a backquote is never closed';
  }
  finishSegment();
}

/** Reads a redirection at `state.index`; returns a concern unless it is harmless. */
function readRedirection(state: ParseState): string | undefined {
  const { text } = state;
  const operatorMatch = /^(&>>|&>|>>|>\||>&|<<<|<<-|<<|<>|<&|>|<)/.exec(text.slice(state.index));
  const operator = operatorMatch?.[1] ?? text[state.index]!;
  state.index += operator.length;
  if (operator === '>&' || operator === '<&') {
    const duplicate = /^(\d+|-)/.exec(text.slice(state.index));
    if (duplicate) {
      state.index += duplicate[1]!.length;
      return undefined;
    }
  }
  while (text[state.index] === ' ' || text[state.index] === '\t') state.index += 1;
  let target = '';
  while (state.index < text.length && !WORD_ENDS.has(text[state.index]!)) {
    const character = text[state.index]!;
    if (character === "'" || character === '"') {
      const close = text.indexOf(character, state.index + 1);
      if (close === -1) {
        state.problem ??= 'a quote in a redirection is never closed';
        state.index = text.length;
        break;
      }
      target += text.slice(state.index + 1, close);
      state.index = close + 1;
    } else {
      target += character;
      state.index += 1;
    }
  }
  if (operator.startsWith('<<') && operator !== '<<<') {
    return `it uses a here-document (${operator}${target})`;
  }
  if (target === '/dev/null') return undefined;
  return `it redirects ${operator.includes('<') ? 'from' : 'to'} ${target === '' ? 'a file' : JSON.stringify(target)}`;
}

/**
 * True when a `Bash(...)` specifier covers one simple command: `*` covers any; `prefix:*`
 * (or `prefix *`) covers commands whose first words are exactly the prefix's words
 * (`git:*` covers `git` and `git push`, not `gitk`); any other specifier must equal the
 * command word for word, where a `*` inside it stands for any text.
 */
export function shellSpecifierMatches(specifier: string, words: readonly string[]): boolean {
  const trimmed = specifier.trim();
  if (trimmed === '*') return true;
  let prefix: string | undefined;
  if (trimmed.endsWith(':*')) prefix = trimmed.slice(0, -2);
  else if (trimmed.endsWith(' *')) prefix = trimmed.slice(0, -2);
  if (prefix !== undefined) {
    const prefixWords = prefix.trim().split(/\s+/).filter(Boolean);
    if (prefixWords.length === 0) return true;
    return (
      words.length >= prefixWords.length &&
      prefixWords.every((prefixWord, index) => words[index] === prefixWord)
    );
  }
  const specifierWords = trimmed.split(/\s+/);
  if (!trimmed.includes('*')) {
    return (
      words.length === specifierWords.length &&
      specifierWords.every((specifierWord, index) => words[index] === specifierWord)
    );
  }
  const pattern = specifierWords
    .join(' ')
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 's').test(words.join(' '));
}
