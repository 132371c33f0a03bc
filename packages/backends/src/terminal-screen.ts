// What a PTY member's terminal shows now: its output fed through a headless xterm.js, so a
// person (or `muster watch`) can read the member's screen as text without attaching to it.
import { createRequire } from 'node:module';
import type { Terminal as HeadlessTerminal } from '@xterm/headless';
import { BackendError } from './backend-error.js';

type XtermHeadless = typeof import('@xterm/headless');
let xtermHeadless: XtermHeadless | undefined;

/**
 * @xterm/headless (a CommonJS bundle of about 180 kB), loaded when the first screen needs its
 * terminal: a process that never shows a PTY member's screen (the lead of a team without PTY
 * members, `muster run --help`) does not pay for loading it at start-up.
 */
function loadXtermHeadless(): XtermHeadless {
  xtermHeadless ??= createRequire(import.meta.url)('@xterm/headless') as XtermHeadless;
  return xtermHeadless;
}

/** Default size of a member's terminal. */
export const DEFAULT_TERMINAL_SIZE = { columns: 120, rows: 40 } as const;

/** Largest accepted terminal side (cells): more is surely a mistake and would cost memory. */
const MAXIMUM_TERMINAL_SIDE = 10_000;

/** A snapshot of a member's terminal. */
export interface TerminalScreenSnapshot {
  columns: number;
  rows: number;
  /** The visible rows, top to bottom, trailing blanks trimmed. */
  lines: string[];
  /** Cursor position inside the visible rows (0-based). */
  cursor: { column: number; row: number };
}

/** A headless terminal fed with a member's output. */
export interface TerminalScreen {
  /** Feeds output bytes or text (escape sequences are interpreted). */
  write(data: string | Uint8Array): void;
  /** Changes the size (both sides whole numbers from 1 to 10 000). */
  resize(columns: number, rows: number): void;
  /** Waits until everything written so far has been interpreted, then reads the screen. */
  snapshot(): Promise<TerminalScreenSnapshot>;
  /** Frees the terminal; later calls are no-ops and `snapshot` returns the last screen. */
  dispose(): void;
}

/** Throws `INVALID_SPEC` unless `columns` × `rows` is a usable terminal size. */
export function checkTerminalSize(columns: unknown, rows: unknown, what: string): void {
  for (const [name, value] of [
    ['columns', columns],
    ['rows', rows],
  ] as const) {
    if (
      typeof value !== 'number' ||
      !Number.isInteger(value) ||
      value < 1 ||
      value > MAXIMUM_TERMINAL_SIDE
    ) {
      throw new BackendError({
        code: 'INVALID_SPEC',
        message: `${what}: ${name} must be a whole number from 1 to ${MAXIMUM_TERMINAL_SIDE}, got ${String(value)}; pass a size like ${DEFAULT_TERMINAL_SIZE.columns}×${DEFAULT_TERMINAL_SIZE.rows}`,
      });
    }
  }
}

function readScreen(terminal: HeadlessTerminal): TerminalScreenSnapshot {
  const buffer = terminal.buffer.active;
  const lines: string[] = [];
  for (let row = 0; row < terminal.rows; row += 1) {
    lines.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? '');
  }
  return {
    columns: terminal.cols,
    rows: terminal.rows,
    lines,
    cursor: { column: buffer.cursorX, row: buffer.cursorY },
  };
}

/**
 * Creates a headless terminal of the given size (default 120×40) with `scrollback` lines kept.
 * The terminal itself (about 10 ms of work) is made on first use, so creating a screen costs a
 * member's spawn nothing.
 */
export function createTerminalScreen(
  options: { columns?: number; rows?: number; scrollback?: number } = {},
): TerminalScreen {
  let columns = options.columns ?? DEFAULT_TERMINAL_SIZE.columns;
  let rows = options.rows ?? DEFAULT_TERMINAL_SIZE.rows;
  checkTerminalSize(columns, rows, 'createTerminalScreen');
  let terminal: HeadlessTerminal | undefined;
  let disposed = false;
  let lastSnapshot: TerminalScreenSnapshot = {
    columns,
    rows,
    lines: Array.from({ length: rows }, () => ''),
    cursor: { column: 0, row: 0 },
  };
  // Snapshots waiting for the parser: settled by dispose too, so none waits forever.
  const waiting = new Set<(snapshot: TerminalScreenSnapshot) => void>();
  const terminalNow = (): HeadlessTerminal => {
    terminal ??= new (loadXtermHeadless().Terminal)({
      cols: columns,
      rows,
      scrollback: options.scrollback ?? 1000,
      allowProposedApi: true,
    });
    return terminal;
  };
  return {
    write(data) {
      if (!disposed) terminalNow().write(data);
    },
    resize(newColumns, newRows) {
      checkTerminalSize(newColumns, newRows, 'TerminalScreen.resize');
      if (disposed) return;
      columns = newColumns;
      rows = newRows;
      terminal?.resize(newColumns, newRows);
    },
    snapshot() {
      if (disposed) return Promise.resolve(lastSnapshot);
      const current = terminalNow();
      // An empty write's callback runs once every earlier write has been parsed.
      return new Promise((resolve) => {
        waiting.add(resolve);
        current.write('', () => {
          if (!waiting.delete(resolve)) return;
          if (!disposed) lastSnapshot = readScreen(current);
          resolve(lastSnapshot);
        });
      });
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      if (terminal !== undefined) {
        lastSnapshot = readScreen(terminal);
        terminal.dispose();
      } else {
        lastSnapshot = {
          columns,
          rows,
          lines: Array.from({ length: rows }, () => ''),
          cursor: { column: 0, row: 0 },
        };
      }
      for (const resolve of waiting) resolve(lastSnapshot);
      waiting.clear();
    },
  };
}
