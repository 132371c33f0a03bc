// Screen rows of the interactive app: every row is one terminal line (never wrapped by ink),
// made of segments with an optional color. Text from the model, the team or disk passes through
// `escapeTerminalText` before it becomes a row.
import { symbol, type SymbolName, type TerminalStyle } from '../terminal-style.js';
import { escapeTerminalText } from '../terminal-text.js';
import { capLine, characterWidth, displayWidth, wrapText } from '../watch/text-layout.js';
import type { Conversation, ConversationEntry } from './conversation-model.js';

/** A piece of a row. */
export interface Segment {
  text: string;
  /** An ink color, only set when the style allows colors. */
  color?: string;
  bold?: boolean;
  dim?: boolean;
  inverse?: boolean;
}

/** One terminal line. */
export type Row = readonly Segment[];

/** Text from outside (the model, a teammate, disk) as one safe line. */
export function safeText(text: string): string {
  return escapeTerminalText(capLine(text));
}

/** Cuts text to `width` terminal cells, ending in `…` (or `~` without Unicode) when cut. */
export function fitWidth(text: string, width: number, style?: TerminalStyle): string {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  const mark = style === undefined || style.unicode ? '…' : '~';
  let result = '';
  let used = 0;
  for (const character of text) {
    const cells = characterWidth(character.codePointAt(0) ?? 0);
    if (used + cells > width - 1) break;
    result += character;
    used += cells;
  }
  return result + mark;
}

/** Cuts a row's segments so that together they take at most `width` cells. */
export function fitRow(row: Row, width: number, style?: TerminalStyle): Row {
  const fitted: Segment[] = [];
  let left = width;
  for (const segment of row) {
    if (left <= 0) break;
    const cells = displayWidth(segment.text);
    if (cells <= left) {
      fitted.push(segment);
      left -= cells;
    } else {
      fitted.push({ ...segment, text: fitWidth(segment.text, left, style) });
      left = 0;
    }
  }
  return fitted;
}

/** A color only when the style allows colors. */
export function tint(style: TerminalStyle, color: string): { color?: string } {
  return style.color ? { color } : {};
}

/** A symbol of the style (Unicode on a terminal that shows it, ASCII otherwise). */
export function mark(style: TerminalStyle, name: SymbolName): string {
  return symbol(style, name);
}

/** The rows of a multi-line text (escaped, line feeds kept), wrapped to `width`. */
export function wrappedRows(
  text: string,
  width: number,
  segment: Omit<Segment, 'text'> = {},
): Row[] {
  return wrapText(escapeTerminalText(text, { keepLineBreaks: true }), Math.max(1, width)).map(
    (line) => [{ ...segment, text: line }],
  );
}

const RESULT_ROWS_SHOWN = 6;

function toolStatusMark(style: TerminalStyle, status: string): Segment {
  switch (status) {
    case 'done':
      return { text: mark(style, 'ok'), ...tint(style, 'green') };
    case 'error':
      return { text: mark(style, 'problem'), ...tint(style, 'red') };
    case 'denied':
      return { text: style.unicode ? '⊘ denied' : '[denied]', ...tint(style, 'yellow') };
    default:
      return { text: style.unicode ? '…' : '...', ...tint(style, 'gray') };
  }
}

/** One line of a message: its summary, else its first line. */
function messageLine(entry: Extract<ConversationEntry, { kind: 'message' }>): string {
  if (entry.summary !== undefined && entry.summary.trim() !== '') return entry.summary;
  const trimmed = entry.text.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      const parsed = JSON.parse(trimmed) as { type?: unknown };
      if (typeof parsed.type === 'string') return `(${parsed.type})`;
    } catch {
      // Plain text that starts with a brace.
    }
  }
  return entry.text.split('\n')[0] ?? '';
}

/** The rows of one conversation entry at `width` cells. */
export function entryRows(
  entry: ConversationEntry,
  width: number,
  style: TerminalStyle,
  showResults: boolean,
): Row[] {
  switch (entry.kind) {
    case 'person':
      return wrappedRows(entry.text, width - 2).map((row, index) => [
        { text: index === 0 ? '> ' : '  ', bold: true, ...tint(style, 'cyan') },
        ...row,
      ]);
    case 'assistant':
      return wrappedRows(entry.text, width);
    case 'tool': {
      const head: Row = [
        { text: `${mark(style, 'bullet')} `, ...tint(style, 'gray') },
        { text: safeText(entry.name), bold: true },
        { text: entry.input === '' ? ' ' : `(${safeText(entry.input)}) ` },
        toolStatusMark(style, entry.status),
      ];
      if (!showResults || entry.result === undefined) return [head];
      const result = wrappedRows(entry.result === '' ? '(no output)' : entry.result, width - 4, {
        dim: true,
      });
      const shown = result.slice(0, RESULT_ROWS_SHOWN).map((row, index) => [
        {
          text: index === 0 ? (style.unicode ? '  ⎿ ' : '  | ') : '    ',
          ...tint(style, 'gray'),
        },
        ...row,
      ]);
      if (result.length > RESULT_ROWS_SHOWN) {
        shown.push([{ text: `    … ${result.length - RESULT_ROWS_SHOWN} more lines`, dim: true }]);
      }
      return [head, ...shown];
    }
    case 'message':
      return [
        [
          { text: style.unicode ? '✉ ' : '@ ', ...tint(style, 'magenta') },
          {
            text: `${safeText(entry.from)} ${mark(style, 'arrow')} ${safeText(entry.to)}: `,
            bold: true,
          },
          { text: safeText(messageLine(entry)) },
        ],
      ];
    case 'notice': {
      const color = entry.level === 'error' ? 'red' : entry.level === 'warning' ? 'yellow' : 'gray';
      const symbolName =
        entry.level === 'error' ? 'problem' : entry.level === 'warning' ? 'warning' : 'note';
      return [
        [{ text: `${mark(style, symbolName)} ${safeText(entry.text)}`, ...tint(style, color) }],
      ];
    }
  }
}

/**
 * The last `count` rows of a conversation, `scroll` rows up from its end, wrapped to `width`.
 * Only the entries that reach the screen are laid out, newest first, so a long conversation
 * costs what the screen shows.
 */
export function conversationRows(
  conversation: Conversation,
  options: {
    width: number;
    count: number;
    scroll: number;
    style: TerminalStyle;
    showResults: boolean;
  },
): { rows: Row[]; scroll: number } {
  const needed = options.count + options.scroll;
  const collected: Row[] = [];
  let index = conversation.entries.length - 1;
  for (; index >= 0 && collected.length < needed; index -= 1) {
    const entry = conversation.entries[index] as ConversationEntry;
    collected.unshift(...entryRows(entry, options.width, options.style, options.showResults));
  }
  if (index < 0 && conversation.dropped > 0 && collected.length < needed) {
    collected.unshift([{ text: `(${conversation.dropped} earlier entries not kept)`, dim: true }]);
  }
  // Scrolled past the beginning: show the beginning.
  const scroll = Math.max(0, Math.min(options.scroll, collected.length - options.count));
  const end = collected.length - scroll;
  return { rows: collected.slice(Math.max(0, end - options.count), end), scroll };
}
