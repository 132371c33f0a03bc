/**
 * The lexical half of muster's reading of a shell line (the POSIX subset plus the bash
 * forms models write): words with quote removal (`'…'`, `"…"`, `$'…'`, backslashes),
 * operators, redirections with their targets, here-documents, comments, and every kind of
 * expansion a word can hold (`$name`, `${…}`, `$(…)`, backquotes, `$((…))`, `<(…)`, globs,
 * braces). Command substitutions are tokenized recursively, so the parser sees the commands
 * inside them. Nothing is executed and nothing is read from disk.
 */

import { decodeAnsiC, expandBraceList } from './shell-word-expansion.js';
import type { HereDocument, ShellToken, ShellWord, TokenizedShell } from './shell-tokens.js';

export type { HereDocument, ShellToken, ShellWord, TokenizedShell } from './shell-tokens.js';

const OPERATORS = [';;&', ';;', ';&', '&&', '||', '|&', ';', '&', '|', '(', ')', '\n'];
const REDIRECTIONS = ['&>>', '<<<', '<<-', '&>', '>>', '>|', '<>', '>&', '<&', '<<', '>', '<'];
const WORD_BREAK = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
const PARAMETER_NAME = /^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/;

interface WordBuilder {
  text: string;
  literal: boolean;
  quoted: boolean;
  started: boolean;
  expansions: string[];
  substitutions: ShellToken[][];
  glob: boolean;
  /** Text pieces split at unquoted `$IFS`, for `fields`. */
  ifsPieces: string[] | undefined;
  /** The raw unquoted prefix, to recognise assignments and brace lists. */
  unquotedPrefix: string;
  onlyUnquoted: boolean;
}

function newWord(): WordBuilder {
  return {
    text: '',
    literal: true,
    quoted: false,
    started: false,
    expansions: [],
    substitutions: [],
    glob: false,
    ifsPieces: undefined,
    unquotedPrefix: '',
    onlyUnquoted: true,
  };
}

/**
 * Tokenizes `text` from `start`. With `terminator` `)` it stops at the `)` that closes a
 * `$(` / `<(` (parentheses opened inside are matched); the result's `end` is after it.
 */
export function tokenizeShell(text: string, start = 0, terminator?: ')'): TokenizedShell {
  const tokens: ShellToken[] = [];
  const problems: string[] = [];
  const pendingHereDocuments: HereDocument[] = [];
  let index = start;
  let depth = 0;
  /** Open `case … esac` inside a substitution: their pattern `)` does not close it. */
  let openCases = 0;
  let word = newWord();

  const finishWord = () => {
    if (!word.started) return;
    if (terminator !== undefined && word.literal && !word.quoted) {
      if (word.text === 'case') openCases += 1;
      if (word.text === 'esac' && openCases > 0) openCases -= 1;
    }
    const result: ShellWord = {
      text: word.text,
      literal: word.literal,
      quoted: word.quoted,
      expansions: word.expansions,
      substitutions: word.substitutions,
      glob: word.glob,
    };
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/.exec(word.unquotedPrefix);
    if (assignment) result.assignmentName = assignment[1]!;
    if (word.ifsPieces !== undefined && word.expansions.every((name) => /IFS/.test(name))) {
      result.fields = [...word.ifsPieces, word.text].filter((piece) => piece !== '');
    } else if (word.onlyUnquoted && word.literal && result.assignmentName === undefined) {
      const braces = expandBraceList(word.text);
      if (braces !== undefined) {
        result.fields = braces;
        result.literal = false;
        result.expansions.push('brace expansion');
      }
    }
    tokens.push({ kind: 'word', word: result });
    word = newWord();
  };
  const addText = (value: string, quoted: boolean) => {
    word.started = true;
    word.text += value;
    if (quoted) {
      word.quoted = true;
      word.onlyUnquoted = false;
    } else if (word.onlyUnquoted) word.unquotedPrefix += value;
  };
  const expansion = (name: string, written: string) => {
    word.started = true;
    word.literal = false;
    word.expansions.push(name);
    word.text += written;
    word.onlyUnquoted = false;
  };
  /** Reads `$…` at `index` (the `$`), inside double quotes or not. */
  const readDollar = (inDoubleQuotes: boolean) => {
    const next = text[index + 1];
    if (next === '(' && text[index + 2] === '(') {
      const end = readArithmetic(index + 3);
      expansion('$((…))', text.slice(index, end));
      index = end;
    } else if (next === '(') {
      const inner = tokenizeShell(text, index + 2, ')');
      problems.push(...inner.problems);
      word.substitutions.push(inner.tokens);
      expansion('$(…)', text.slice(index, inner.end));
      index = inner.end;
    } else if (next === '{') {
      const end = readBraced(index + 2);
      const written = text.slice(index, end);
      if (!inDoubleQuotes && /^\$\{IFS\}$/.test(written)) splitAtIfs();
      expansion(written, written);
      index = end;
    } else if (next !== undefined && PARAMETER_NAME.test(text.slice(index + 1))) {
      const name = PARAMETER_NAME.exec(text.slice(index + 1))![1]!;
      if (!inDoubleQuotes && name === 'IFS') splitAtIfs();
      expansion(`$${name}`, `$${name}`);
      index += 1 + name.length;
    } else {
      addText('$', inDoubleQuotes);
      index += 1;
    }
  };
  const splitAtIfs = () => {
    word.ifsPieces ??= [];
    word.ifsPieces.push(word.text);
    word.text = '';
  };
  /** Skips `${…}` from its body (index after `${`); reads substitutions inside. */
  const readBraced = (from: number): number => {
    let position = from;
    let braces = 1;
    while (position < text.length) {
      const character = text[position]!;
      if (character === '\\') position += 2;
      else if (character === "'") {
        const close = text.indexOf("'", position + 1);
        position = close === -1 ? text.length : close + 1;
      } else if (character === '$' && text[position + 1] === '(') {
        const inner = tokenizeShell(text, position + 2, ')');
        problems.push(...inner.problems);
        word.substitutions.push(inner.tokens);
        position = inner.end;
      } else if (character === '`') position = readBackquote(position);
      else if (character === '{') {
        braces += 1;
        position += 1;
      } else if (character === '}') {
        braces -= 1;
        position += 1;
        if (braces === 0) return position;
      } else position += 1;
    }
    problems.push('a "${" is never closed');
    return text.length;
  };
  /** Skips an arithmetic body up to its `))`; reads substitutions inside. */
  const readArithmetic = (from: number): number => {
    let position = from;
    let parentheses = 0;
    while (position < text.length) {
      const character = text[position]!;
      if (character === '$' && text[position + 1] === '(' && text[position + 2] !== '(') {
        const inner = tokenizeShell(text, position + 2, ')');
        problems.push(...inner.problems);
        word.substitutions.push(inner.tokens);
        position = inner.end;
      } else if (character === '`') position = readBackquote(position);
      else if (character === '(') {
        parentheses += 1;
        position += 1;
      } else if (character === ')') {
        if (parentheses === 0 && text[position + 1] === ')') return position + 2;
        parentheses -= 1;
        position += 1;
      } else position += 1;
    }
    problems.push('an arithmetic "((" is never closed');
    return text.length;
  };
  /** Reads a backquoted substitution starting at `from` (the backquote); returns its end. */
  const readBackquote = (from: number): number => {
    let position = from + 1;
    let body = '';
    while (position < text.length && text[position] !== '`') {
      if (text[position] === '\\' && ['`', '\\', '$'].includes(text[position + 1] ?? '')) {
        body += text[position + 1];
        position += 2;
      } else {
        body += text[position];
        position += 1;
      }
    }
    if (position >= text.length) {
      problems.push('a backquote is never closed');
      return text.length;
    }
    const inner = tokenizeShell(body);
    problems.push(...inner.problems);
    word.substitutions.push(inner.tokens);
    return position + 1;
  };
  const readHereDocumentBodies = () => {
    for (const document of pendingHereDocuments.splice(0)) {
      const lines: string[] = [];
      let found = false;
      while (index < text.length) {
        const newline = text.indexOf('\n', index);
        const lineEnd = newline === -1 ? text.length : newline;
        const line = text.slice(index, lineEnd);
        index = newline === -1 ? text.length : newline + 1;
        const compared = document.stripTabs ? line.replace(/^\t+/, '') : line;
        if (compared === document.delimiter) {
          found = true;
          break;
        }
        lines.push(line);
      }
      document.body = lines.join('\n');
      if (!found) {
        problems.push(`the here-document ${document.delimiter} never ends`);
        document.readable = false;
      } else if (!document.readable) document.readable = !/[$`\\]/.test(document.body);
    }
  };

  /** Reads one piece of a word at `index`: a quoted run, an escape, an expansion or a character. */
  const readWordPart = () => {
    const character = text[index]!;
    if (character === '\\') {
      if (text[index + 1] === '\n') index += 2;
      else {
        addText(text[index + 1] ?? '', true);
        index += 2;
      }
    } else if (character === "'") {
      const close = text.indexOf("'", index + 1);
      if (close === -1) {
        problems.push('a single quote is never closed');
        index = text.length;
      } else {
        addText(text.slice(index + 1, close), true);
        index = close + 1;
      }
    } else if (character === '$' && text[index + 1] === "'") {
      let close = index + 2;
      while (close < text.length && text[close] !== "'") close += text[close] === '\\' ? 2 : 1;
      if (close >= text.length) {
        problems.push("a $'…' string is never closed");
        index = text.length;
      } else {
        const decoded = decodeAnsiC(text.slice(index + 2, close));
        if (decoded === undefined) expansion("$'…'", text.slice(index, close + 1));
        else addText(decoded, true);
        index = close + 1;
      }
    } else if (character === '"' || (character === '$' && text[index + 1] === '"')) {
      readDoubleQuoted();
    } else if (character === '$') readDollar(false);
    else if (character === '`') {
      const end = readBackquote(index);
      expansion('`…`', text.slice(index, end));
      index = end;
    } else if ((character === '<' || character === '>') && text[index + 1] === '(') {
      const inner = tokenizeShell(text, index + 2, ')');
      problems.push(...inner.problems);
      word.substitutions.push(inner.tokens);
      expansion(`${character}(…)`, text.slice(index, inner.end));
      index = inner.end;
    } else {
      if ('*?['.includes(character)) {
        word.glob = true;
        word.literal = false;
      }
      addText(character, false);
      index += 1;
    }
  };
  const readDoubleQuoted = () => {
    index += text[index] === '$' ? 2 : 1;
    word.started = true;
    word.quoted = true;
    word.onlyUnquoted = false;
    while (index < text.length) {
      const inner = text[index]!;
      if (inner === '"') {
        index += 1;
        return;
      }
      if (inner === '\\' && ['"', '\\', '$', '`', '\n'].includes(text[index + 1] ?? '')) {
        if (text[index + 1] !== '\n') addText(text[index + 1]!, true);
        index += 2;
      } else if (inner === '$') readDollar(true);
      else if (inner === '`') {
        const end = readBackquote(index);
        expansion('`…`', text.slice(index, end));
        index = end;
      } else {
        addText(inner, true);
        index += 1;
      }
    }
    problems.push('a double quote is never closed');
  };
  const startsSubstitution = (position: number) =>
    (text[position] === '<' || text[position] === '>') && text[position + 1] === '(';
  const toShellWord = (built: WordBuilder): ShellWord => ({
    text: built.text,
    literal: built.literal,
    quoted: built.quoted,
    expansions: built.expansions,
    substitutions: built.substitutions,
    glob: built.glob,
  });
  const readRedirection = (rest: string) => {
    let descriptor: string | undefined;
    if (word.started && word.literal && !word.quoted && /^\d+$/.test(word.text)) {
      descriptor = word.text;
      word = newWord();
    } else finishWord();
    const operator = REDIRECTIONS.find((candidate) => rest.startsWith(candidate))!;
    index += operator.length;
    while (text[index] === ' ' || text[index] === '\t') index += 1;
    const token: ShellToken = { kind: 'redirection', operator };
    if (descriptor !== undefined) token.descriptor = descriptor;
    while (index < text.length && (!WORD_BREAK.has(text[index]!) || startsSubstitution(index))) {
      readWordPart();
    }
    if (word.started) token.target = toShellWord(word);
    else problems.push(`the redirection ${operator} has no target`);
    word = newWord();
    if (operator === '<<' || operator === '<<-') {
      const target = token.target;
      const document: HereDocument = {
        delimiter: target?.text ?? '',
        stripTabs: operator === '<<-',
        body: '',
        readable: target?.quoted === true,
      };
      token.hereDocument = document;
      pendingHereDocuments.push(document);
    }
    tokens.push(token);
  };

  while (index < text.length) {
    const character = text[index]!;
    const rest = text.slice(index);
    if (character === '#' && !word.started) {
      const newline = text.indexOf('\n', index);
      index = newline === -1 ? text.length : newline;
    } else if (character === ' ' || character === '\t') {
      finishWord();
      index += 1;
    } else if (startsSubstitution(index)) readWordPart();
    else if (character === '(' && text[index + 1] === '(' && !word.started) {
      // An arithmetic command `(( … ))` (or `for (( … ))`): one non-literal word.
      const end = readArithmetic(index + 2);
      expansion('((…))', text.slice(index, end));
      index = end;
    } else if (character === '<' || character === '>' || rest.startsWith('&>')) {
      readRedirection(rest);
    } else if (terminator === ')' && depth === 0 && openCases === 0 && character === ')') {
      finishWord();
      if (pendingHereDocuments.length > 0) problems.push('a here-document inside $(…) never ends');
      return { tokens, problems, end: index + 1 };
    } else if (WORD_BREAK.has(character)) {
      finishWord();
      const operator = OPERATORS.find((candidate) => rest.startsWith(candidate))!;
      if (operator === '(') depth += 1;
      if (operator === ')' && (depth > 0 || openCases === 0)) depth -= 1;
      tokens.push({ kind: 'operator', value: operator });
      index += operator.length;
      if (operator === '\n') readHereDocumentBodies();
    } else readWordPart();
  }
  finishWord();
  if (terminator === ')') problems.push('a "$(" or "<(" is never closed');
  if (pendingHereDocuments.length > 0) readHereDocumentBodies();
  return { tokens, problems, end: index };
}
