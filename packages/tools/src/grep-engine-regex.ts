// Grep patterns are ripgrep (Rust `regex` crate) syntax. The built-in engine runs them as
// JavaScript regular expressions, so this file translates the Rust syntax into an equivalent
// JavaScript source: Unicode-aware `\w`, `\d`, `\s`, `\b` as Rust defines them, line anchors as
// ripgrep applies them, `(?P<name>…)` groups, `\x{…}` escapes and POSIX classes. Features ripgrep
// refuses without PCRE2 (look-around, backreferences, `\n` outside multiline mode) are refused
// the same way, for both engines, before any search starts.
import { ToolError } from '@muster/query';

/** How a pattern is searched. */
export interface PatternOptions {
  /** `-i`: case-insensitive. */
  caseInsensitive: boolean;
  /** `multiline`: the pattern runs over the whole file, `.` matches newlines. */
  multiline: boolean;
}

/** A pattern ready for the built-in engine. */
export interface CompiledPattern {
  /** The JavaScript source the Rust pattern translated to. */
  source: string;
  /** The JavaScript flags (`s`, `u`, `i`, and `g` in multiline mode). */
  flags: string;
  /** Whether the whole file is searched at once (`multiline`) instead of line by line. */
  multiline: boolean;
}

/** Rust's `\w`: Alphabetic, marks, decimal digits, connector punctuation, join controls. */
const WORD_CLASS_ITEMS = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}';
const WORD = `[${WORD_CLASS_ITEMS}]`;
const NOT_WORD = `[^${WORD_CLASS_ITEMS}]`;
/** Rust's Unicode `\b` and `\B`, spelled with look-around over Rust's `\w`. */
const WORD_BOUNDARY = `(?:(?<=${WORD})(?!${WORD})|(?<!${WORD})(?=${WORD}))`;
const NOT_WORD_BOUNDARY = `(?:(?<=${WORD})(?=${WORD})|(?<!${WORD})(?!${WORD}))`;

/** POSIX classes Rust accepts inside brackets (`[[:alpha:]]`), as JavaScript class items. */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/** Longest pattern accepted (ripgrep gets it as one command-line argument). */
export const MAX_PATTERN_LENGTH = 10_000;

/** Characters Rust lets a pattern escape that JavaScript (`u` flag) refuses to see escaped. */
const RUST_ONLY_ESCAPES = new Set(['#', '&', '~', '-']);

function refuse(pattern: string, what: string, hint: string): never {
  throw new ToolError(
    `The pattern ${JSON.stringify(pattern)} cannot be searched: ${what}. ${hint}`,
    'INVALID_PATTERN',
    { pattern },
  );
}

/**
 * Checks a ripgrep-syntax pattern and translates it for the built-in engine. Throws a
 * `ToolError` with code `INVALID_PATTERN` saying what is wrong and how to write it instead.
 */
export function compileSearchPattern(pattern: string, options: PatternOptions): CompiledPattern {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    refuse(
      pattern.slice(0, 80) + '…',
      `it is ${pattern.length} characters long, more than ${MAX_PATTERN_LENGTH}`,
      'Search for a shorter, distinctive part of the text.',
    );
  }
  if (pattern.includes('\0')) {
    refuse(
      pattern,
      'it contains a NUL character, which never occurs in a searched file (files holding one are binary and skipped)',
      'Remove it.',
    );
  }
  let caseInsensitive = options.caseInsensitive;
  let rest = pattern;
  if (rest.startsWith('(?i)')) {
    caseInsensitive = true;
    rest = rest.slice(4);
  }
  const source = translate(pattern, rest, options.multiline);
  const flags = `s${caseInsensitive ? 'i' : ''}u${options.multiline ? 'g' : ''}`;
  try {
    new RegExp(source, flags);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    refuse(
      pattern,
      `it is not a valid regular expression (${reason})`,
      'Escape special characters with a backslash (for example `\\(` or `\\.`) and check brackets and braces.',
    );
  }
  return { source, flags, multiline: options.multiline };
}

function translate(pattern: string, body: string, multiline: boolean): string {
  let output = '';
  let inClass = false;
  let index = 0;
  while (index < body.length) {
    const character = body[index] as string;
    if (character === '\\') {
      const [translated, length] = translateEscape(pattern, body, index, inClass, multiline);
      output += translated;
      index += length;
      continue;
    }
    if (!multiline && (character === '\n' || character === '\r')) {
      if (character === '\n') {
        refuse(
          pattern,
          'it contains a line break, which never occurs inside a line',
          'Set `multiline: true` to match across lines.',
        );
      }
    }
    if (inClass) {
      if (character === ']') {
        inClass = false;
        output += ']';
      } else if (character === '[' && body[index + 1] === ':') {
        const end = body.indexOf(':]', index + 2);
        const name = end < 0 ? undefined : body.slice(index + 2, end);
        const items = name === undefined ? undefined : POSIX_CLASSES[name];
        if (items === undefined) {
          refuse(
            pattern,
            `\`${body.slice(index, end < 0 ? undefined : end + 2)}\` is not a POSIX class`,
            `Use one of ${Object.keys(POSIX_CLASSES)
              .map((key) => `[:${key}:]`)
              .join(', ')}.`,
          );
        }
        output += items;
        index = end + 2;
        continue;
      } else if (character === '[') {
        output += '\\[';
      } else {
        output += character;
      }
      index += 1;
      continue;
    }
    switch (character) {
      case '[': {
        inClass = true;
        output += '[';
        index += 1;
        if (body[index] === '^') {
          output += '^';
          index += 1;
        }
        if (body[index] === ']') {
          output += '\\]';
          index += 1;
        }
        continue;
      }
      case '(':
        output += translateGroupOpening(pattern, body, index);
        index += groupOpeningLength(body, index);
        continue;
      case '^':
        output += multiline ? '(?:^|(?<=\\n))' : '^';
        break;
      case '$':
        output += multiline ? '(?:$|(?=\\n))' : '$';
        break;
      case ']':
        output += '\\]';
        break;
      case '}':
        output += '\\}';
        break;
      case '{': {
        const quantifier = /^\{\d+(?:,\d*)?\}/u.exec(body.slice(index));
        if (quantifier === null) {
          refuse(
            pattern,
            `the \`{\` at position ${index + 1} does not start a repetition like \`{2}\` or \`{1,3}\``,
            'Write `\\{` for a literal brace.',
          );
        }
        output += quantifier[0];
        index += quantifier[0].length;
        continue;
      }
      default:
        output += character;
    }
    index += 1;
  }
  if (inClass)
    refuse(
      pattern,
      'a `[` class is never closed',
      'Close it with `]` or write `\\[` for a literal bracket.',
    );
  return output;
}

function groupOpeningLength(body: string, index: number): number {
  if (body[index + 1] !== '?') return 1;
  if (body.startsWith('(?P<', index)) return 4;
  if (body.startsWith('(?:', index)) return 3;
  if (body.startsWith('(?<', index)) return 3;
  return 1;
}

function translateGroupOpening(pattern: string, body: string, index: number): string {
  if (body[index + 1] !== '?') return '(';
  if (/^\(\?(?:=|!|<=|<!)/u.test(body.slice(index))) {
    refuse(
      pattern,
      'look-ahead and look-behind are not supported (ripgrep refuses them too without PCRE2)',
      'Match the surrounding text instead, or search twice.',
    );
  }
  if (body.startsWith('(?P<', index)) return '(?<';
  if (body.startsWith('(?:', index)) return '(?:';
  if (body.startsWith('(?<', index)) return '(?<';
  refuse(
    pattern,
    'inline flags such as `(?x)` or `(?i:…)` are not supported (only a leading `(?i)`)',
    'Use the `-i` input for case-insensitive search and `multiline` for multi-line patterns.',
  );
}

function translateEscape(
  pattern: string,
  body: string,
  index: number,
  inClass: boolean,
  multiline: boolean,
): [string, number] {
  const next = body[index + 1];
  if (next === undefined)
    refuse(pattern, 'it ends with a lone backslash', 'Write `\\\\` for a literal backslash.');
  if (/[0-9]/u.test(next)) {
    refuse(
      pattern,
      `\`\\${next}\` is a backreference, which is not supported (ripgrep refuses it too without PCRE2)`,
      'Repeat the text you mean instead.',
    );
  }
  if (next === 'n' && !multiline) {
    refuse(
      pattern,
      '`\\n` (a line break) never occurs inside a line',
      'Set `multiline: true` to match across lines.',
    );
  }
  switch (next) {
    case 'd':
      return ['\\p{Nd}', 2];
    case 'D':
      return ['\\P{Nd}', 2];
    case 's':
      return ['\\p{White_Space}', 2];
    case 'S':
      return ['\\P{White_Space}', 2];
    case 'w':
      return [inClass ? WORD_CLASS_ITEMS : WORD, 2];
    case 'W':
      if (inClass)
        refuse(
          pattern,
          '`\\W` inside a `[…]` class is not supported',
          'Write a negated class such as `[^\\w]` instead.',
        );
      return [NOT_WORD, 2];
    case 'b':
      if (inClass)
        refuse(pattern, '`\\b` inside a `[…]` class is not supported', 'Remove it from the class.');
      return [WORD_BOUNDARY, 2];
    case 'B':
      return [NOT_WORD_BOUNDARY, 2];
    case 'A':
      return ['(?<![^])', 2];
    case 'z':
      return ['(?![^])', 2];
    case 'a':
      return ['\\x07', 2];
    case 'k':
      return refuse(
        pattern,
        '`\\k<…>` backreferences are not supported',
        'Repeat the text you mean instead.',
      );
    case 'x': {
      const braced = /^\\x\{([0-9A-Fa-f]{1,6})\}/u.exec(body.slice(index));
      if (braced !== null) return [`\\u{${braced[1]}}`, braced[0].length];
      return ['\\x', 2];
    }
    case 'p':
    case 'P': {
      const braced = /^\\[pP]\{([^}]*)\}/u.exec(body.slice(index));
      const name = braced !== null ? (braced[1] as string) : body[index + 2];
      if (name === undefined || name === '')
        refuse(
          pattern,
          `\`\\${next}\` needs a Unicode class name`,
          'Write for example `\\p{L}` or `\\p{Greek}`.',
        );
      return [unicodeProperty(pattern, next, name), braced !== null ? braced[0].length : 3];
    }
    default:
      if (RUST_ONLY_ESCAPES.has(next)) return [next === '-' && inClass ? '\\-' : next, 2];
      return [`\\${next}`, 2];
  }
}

function unicodeProperty(pattern: string, letter: string, name: string): string {
  const cleaned = name.replace(/[\s_-]/gu, '');
  for (const candidate of [name, `Script=${name}`, cleaned, `Script=${cleaned}`]) {
    try {
      new RegExp(`\\p{${candidate}}`, 'u');
      return `\\${letter}{${candidate}}`;
    } catch {
      // try the next spelling
    }
  }
  return refuse(
    pattern,
    `\`\\${letter}{${name}}\` is not a Unicode class this engine knows`,
    'Use a general category (`\\p{L}`, `\\p{Nd}`) or a script (`\\p{Greek}`).',
  );
}
