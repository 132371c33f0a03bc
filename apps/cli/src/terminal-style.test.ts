import { describe, expect, it } from 'vitest';
import { detectTerminalStyle, paint, symbol } from './terminal-style.js';

describe('detectTerminalStyle', () => {
  it('gives a terminal colors and symbols, and takes both away from pipes and dumb terminals', () => {
    expect(detectTerminalStyle({ isTTY: true }, {})).toEqual({ color: true, unicode: true });
    expect(detectTerminalStyle({ isTTY: false }, {})).toEqual({ color: false, unicode: false });
    expect(detectTerminalStyle({ isTTY: true }, { TERM: 'dumb' })).toEqual({
      color: false,
      unicode: false,
    });
  });

  it('turns colors off with NO_COLOR and on with FORCE_COLOR, keeping symbols with the terminal', () => {
    expect(detectTerminalStyle({ isTTY: true }, { NO_COLOR: '1' })).toEqual({
      color: false,
      unicode: true,
    });
    expect(detectTerminalStyle({ isTTY: false }, { FORCE_COLOR: '1' })).toEqual({
      color: true,
      unicode: false,
    });
    expect(detectTerminalStyle({ isTTY: true }, { FORCE_COLOR: '0' }).color).toBe(true);
    expect(detectTerminalStyle({ isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' }).color).toBe(
      false,
    );
  });

  it('paints only when colors are on, and falls back to ASCII symbols', () => {
    expect(paint({ color: true, unicode: true }, 'red', 'x')).toBe('\u001b[31mx\u001b[39m');
    expect(paint({ color: false, unicode: true }, 'red', 'x')).toBe('x');
    expect(symbol({ color: false, unicode: true }, 'ok')).toBe('✔');
    expect(symbol({ color: false, unicode: false }, 'ok')).toBe('[ok]');
  });
});
