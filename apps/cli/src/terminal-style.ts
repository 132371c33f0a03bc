/** How much a terminal can show: colors and non-ASCII symbols. */
export interface TerminalStyle {
  /** ANSI colors are allowed. Off with `NO_COLOR`, `TERM=dumb`, or when output is not a TTY. */
  color: boolean;
  /** Unicode symbols (✔, ●, box drawing, spinner) are allowed; off when output is not a TTY. */
  unicode: boolean;
}

/**
 * Decides the style for a stream from the environment: `NO_COLOR` (any value) turns colors
 * off, `FORCE_COLOR` (other than `0`) turns them on, and a stream that is not a TTY gets
 * neither colors nor symbols, so piped output and logs are plain ASCII text.
 */
export function detectTerminalStyle(
  stream: { isTTY?: boolean },
  environment: Record<string, string | undefined> = process.env,
): TerminalStyle {
  const isTerminal = stream.isTTY === true;
  const dumb = environment.TERM === 'dumb';
  const forced = environment.FORCE_COLOR !== undefined && environment.FORCE_COLOR !== '0';
  const noColor = environment.NO_COLOR !== undefined && environment.NO_COLOR !== '';
  return {
    color: !noColor && (forced || (isTerminal && !dumb)),
    unicode: isTerminal && !dumb,
  };
}

/** The symbols the CLI prints, with their ASCII stand-ins. */
const SYMBOLS = {
  ok: ['✔', '[ok]'],
  problem: ['✖', '[error]'],
  warning: ['⚠', '[warning]'],
  note: ['ℹ', '[note]'],
  bullet: ['●', '*'],
  arrow: ['→', '->'],
  pending: ['○', '[ ]'],
  inProgress: ['◐', '[~]'],
  completed: ['✔', '[x]'],
  blocked: ['⊘', '[!]'],
  ellipsis: ['…', '...'],
  separator: ['·', '-'],
  dash: ['—', '-'],
} as const;

/** Name of a symbol the CLI prints. */
export type SymbolName = keyof typeof SYMBOLS;

/** The symbol for the style: Unicode on a terminal, ASCII otherwise. */
export function symbol(style: TerminalStyle, name: SymbolName): string {
  const [unicode, ascii] = SYMBOLS[name];
  return style.unicode ? unicode : ascii;
}

const ANSI_CODES: Record<string, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
  gray: [90, 39],
};

/** Name of a text decoration {@link paint} knows. */
export type PaintName = keyof typeof ANSI_CODES;

/** Wraps text in an ANSI color or decoration when the style allows colors. */
export function paint(style: TerminalStyle, name: PaintName, text: string): string {
  const codes = ANSI_CODES[name];
  if (!style.color || codes === undefined) return text;
  return `\u001b[${codes[0]}m${text}\u001b[${codes[1]}m`;
}

/** A style with neither colors nor Unicode symbols (for tests and plain files). */
export const PLAIN_STYLE: TerminalStyle = { color: false, unicode: false };
