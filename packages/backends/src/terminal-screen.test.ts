import { describe, expect, it } from 'vitest';
import { BackendError } from './backend-error.js';
import { createTerminalScreen } from './terminal-screen.js';

describe('createTerminalScreen', () => {
  it('interprets carriage returns, cursor moves and colours like a terminal', async () => {
    const screen = createTerminalScreen({ columns: 40, rows: 6 });
    screen.write('progress 10%\rprogress 99%\r\n');
    screen.write('\u001b[1;31mred bold\u001b[0m line\r\n');
    // Cursor to row 5, column 3 (1-based), then text.
    screen.write('\u001b[5;3Hplaced');
    const snapshot = await screen.snapshot();
    expect(snapshot.columns).toBe(40);
    expect(snapshot.rows).toBe(6);
    expect(snapshot.lines[0]).toBe('progress 99%');
    expect(snapshot.lines[1]).toBe('red bold line');
    expect(snapshot.lines[4]).toBe('  placed');
    expect(snapshot.cursor).toEqual({ column: 8, row: 4 });
    screen.dispose();
  });

  it('accepts bytes split in the middle of a UTF-8 character', async () => {
    const screen = createTerminalScreen({ columns: 20, rows: 2 });
    const bytes = Buffer.from('héllo ✓');
    screen.write(bytes.subarray(0, 2));
    screen.write(bytes.subarray(2));
    expect((await screen.snapshot()).lines[0]).toBe('héllo ✓');
    screen.dispose();
  });

  it('resizes, and refuses sizes that are not whole positive numbers', async () => {
    const screen = createTerminalScreen({ columns: 20, rows: 4 });
    screen.resize(30, 5);
    const snapshot = await screen.snapshot();
    expect([snapshot.columns, snapshot.rows]).toEqual([30, 5]);
    expect(() => screen.resize(0, 5)).toThrow(/columns must be a whole number/);
    expect(() => screen.resize(10, 2.5)).toThrow(BackendError);
    expect(() => createTerminalScreen({ columns: -1 })).toThrow(/INVALID|columns/);
    screen.dispose();
  });

  it('keeps the last screen after dispose and ignores later writes', async () => {
    const screen = createTerminalScreen({ columns: 20, rows: 2 });
    screen.write('before');
    await screen.snapshot();
    screen.write(' and more');
    // A snapshot still waiting for the parser settles at dispose instead of waiting forever.
    const pending = screen.snapshot();
    screen.dispose();
    expect((await pending).lines[0]).toMatch(/^before/);
    screen.write('after');
    screen.resize(10, 1);
    expect((await screen.snapshot()).lines[0]).toMatch(/^before/);
  });
});
