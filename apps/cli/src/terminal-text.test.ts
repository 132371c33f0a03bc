import { describe, expect, it } from 'vitest';
import { escapeJsonForTerminal, escapeTerminalText, isTerminalSafeLine } from './terminal-text.js';
import { HOSTILE_TEXT, HOSTILE_TEXT_ESCAPED } from './test-support/hostile-text.js';

describe('escapeTerminalText', () => {
  it('shows escape sequences, CR, BEL and backspace as Control Pictures', () => {
    expect(escapeTerminalText('\u001b]0;pwned\u0007')).toBe('␛]0;pwned␇');
    expect(escapeTerminalText('\u001b[2J')).toBe('␛[2J');
    expect(escapeTerminalText('ok\rfake')).toBe('ok␍fake');
    expect(escapeTerminalText('a\bb\u007f')).toBe('a␈b␡');
    expect(escapeTerminalText('\u0000')).toBe('␀');
  });

  it('shows C1 controls and bidi or invisible formatting as \\u{…}', () => {
    expect(escapeTerminalText('x\u009b2Jy')).toBe('x\\u{9b}2Jy');
    expect(escapeTerminalText('abc\u202edef')).toBe('abc\\u{202e}def');
    for (const code of [
      0x202a, 0x2066, 0x2069, 0x200e, 0x200f, 0x061c, 0x200b, 0xfeff, 0x00ad, 0x3164, 0x115f,
      0x034f,
    ]) {
      expect(escapeTerminalText(String.fromCodePoint(code))).toBe(`\\u{${code.toString(16)}}`);
    }
    expect(escapeTerminalText('\u{e0041}')).toBe('\\u{e0041}');
  });

  it('keeps line feeds and tabs only when the layout allows them', () => {
    expect(escapeTerminalText('a\nb\tc')).toBe('a␊b␉c');
    expect(escapeTerminalText('a\r\nb\tc', { keepLineBreaks: true })).toBe('a\nb c');
    expect(escapeTerminalText('a\nb\tc', { keepLineBreaks: true, keepTabs: true })).toBe('a\nb\tc');
    expect(escapeTerminalText('a\r\nb')).toBe('a␍␊b');
  });

  it('leaves ordinary text alone: accents, scripts, emoji with joiners', () => {
    const ordinary = 'équipe 東京 مرحبا 👨‍👩‍👧 ✔ “quoted”';
    expect(escapeTerminalText(ordinary)).toBe(ordinary);
    expect(isTerminalSafeLine(ordinary)).toBe(true);
    expect(isTerminalSafeLine(HOSTILE_TEXT)).toBe(false);
    expect(escapeTerminalText(HOSTILE_TEXT)).toBe(HOSTILE_TEXT_ESCAPED);
  });
});

describe('escapeJsonForTerminal', () => {
  it('escapes what JSON.stringify leaves raw, and parses back to the same value', () => {
    const value = { text: `${HOSTILE_TEXT}\u009b2J\u{e0041}`, name: 'équipe 👨‍👩‍👧' };
    const json = escapeJsonForTerminal(JSON.stringify(value));
    expect(json).toContain('\\u202e');
    expect(json).toContain('\\u009b');
    expect(json).toContain('\\udb40\\udc41');
    expect(json).toContain('équipe 👨‍👩‍👧');
    expect(/[\u007f-\u009f\u202e]/u.test(json)).toBe(false);
    expect(JSON.parse(json)).toEqual(value);
  });
});
