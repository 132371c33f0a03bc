/**
 * Laying text out in terminal cells, in linear time, so that nothing the dashboard shows
 * (a 200,000-character message included) can keep it from reading keys or redrawing: the
 * dashboard wraps text itself, once per text and width, and hands ink only the lines that
 * fit on the screen.
 */

/** Longest single-line value (a name, subject, sentence) the dashboard passes to ink. */
export const DISPLAY_LINE_LIMIT = 500;

/** True for code points a terminal draws in no cell (combining marks, joiners, selectors). */
function isZeroWidth(code: number): boolean {
  return (
    (code >= 0x0300 && code <= 0x036f) ||
    (code >= 0x1ab0 && code <= 0x1aff) ||
    (code >= 0x1dc0 && code <= 0x1dff) ||
    (code >= 0x20d0 && code <= 0x20ff) ||
    code === 0x200c ||
    code === 0x200d ||
    (code >= 0xfe00 && code <= 0xfe0f) ||
    (code >= 0xfe20 && code <= 0xfe2f) ||
    (code >= 0xe0100 && code <= 0xe01ef)
  );
}

/** True for code points a terminal draws in two cells (East Asian wide, most emoji). */
function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0x303e) ||
    (code >= 0x3041 && code <= 0x33ff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xa000 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}

/** Cells a code point takes on a terminal: 0, 1 or 2. */
export function characterWidth(code: number): number {
  if (isZeroWidth(code)) return 0;
  return isWide(code) ? 2 : 1;
}

/** Cells a line of text takes on a terminal. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const character of text) width += characterWidth(character.codePointAt(0) ?? 0);
  return width;
}

/**
 * Cuts text to at most `limit` characters, ending in `…` when something was cut: ink
 * truncates rows itself, but only after measuring the whole string on every redraw.
 */
export function capLine(text: string, limit = DISPLAY_LINE_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/**
 * Splits one paragraph (no line feeds) into rows of at most `width` cells, breaking after
 * the last space that fits, or inside a word longer than a row. Linear in the paragraph.
 */
function wrapParagraph(paragraph: string, width: number, rows: string[]): void {
  if (paragraph === '') {
    rows.push('');
    return;
  }
  let row = '';
  let rowWidth = 0;
  let lastSpace = -1;
  for (const character of paragraph) {
    const cells = characterWidth(character.codePointAt(0) ?? 0);
    if (rowWidth + cells > width && row !== '') {
      if (character === ' ') {
        rows.push(row);
        row = '';
        rowWidth = 0;
        lastSpace = -1;
        continue;
      }
      if (lastSpace > 0) {
        rows.push(row.slice(0, lastSpace));
        row = row.slice(lastSpace + 1);
        rowWidth = displayWidth(row);
      } else {
        rows.push(row);
        row = '';
        rowWidth = 0;
      }
      lastSpace = -1;
    }
    if (character === ' ') lastSpace = row.length;
    row += character;
    rowWidth += cells;
  }
  rows.push(row);
}

/**
 * Wraps text (already made terminal-safe, line feeds kept) into rows of at most `width`
 * cells: every character kept, in order, each line feed starting a new row.
 */
export function wrapText(text: string, width: number): string[] {
  const cells = Math.max(1, Math.floor(width));
  const rows: string[] = [];
  for (const paragraph of text.split('\n')) wrapParagraph(paragraph, cells, rows);
  return rows;
}
