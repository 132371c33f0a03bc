// The Rust-to-JavaScript pattern translation of the built-in Grep engine, case by case (the
// parity table runs the same features through ripgrep itself).
import { describe, expect, it } from 'vitest';
import { compileSearchPattern } from './grep-engine-regex.js';

const lineMode = { caseInsensitive: false, multiline: false };

function matches(pattern: string, text: string, options = lineMode): boolean {
  const compiled = compileSearchPattern(pattern, options);
  return new RegExp(compiled.source, compiled.flags).test(text);
}

describe('compileSearchPattern', () => {
  it.each([
    ['\\w+', 'Ωmega', true],
    ['^\\w+$', 'naïve', true],
    ['^\\d+$', '٣٤', true],
    ['\\bcafé\\b', 'un café noir', true],
    ['\\bcaf\\b', 'un café noir', false],
    ['\\x{3a9}', 'Ω', true],
    ['\\pL', 'é', true],
    ['\\p{Greek}', 'Ω', true],
    ['[[:digit:]]{3}', 'a123', true],
    ['[]a]', ']', true],
    ['\\#\\&\\~', '#&~', true],
    ['[a\\-z]', '-', true],
    ['(?P<word>ab)c', 'abc', true],
    ['(?i)ABC', 'abc', true],
    ['a.c', 'a\rc', true],
    ['b$', 'ab\r', false],
    ['\\Aab\\z', 'ab', true],
    ['x{2,}', 'axxb', true],
    ['a}', 'a}', true],
  ])('%s on %j → %s', (pattern, text, expected) => {
    expect(matches(pattern, text)).toBe(expected);
  });

  it('anchors ^ and $ at line breaks in multiline mode, as ripgrep does', () => {
    const multiline = { caseInsensitive: false, multiline: true };
    expect(matches('^b$', 'a\nb\nc', multiline)).toBe(true);
    expect(matches('a$', 'a\r\nb', multiline)).toBe(false);
    expect(matches('a.b', 'a\nb', multiline)).toBe(true);
    expect(compileSearchPattern('x', multiline).flags).toContain('g');
  });

  it.each([
    ['a(?=b)', /look-ahead and look-behind/u],
    ['(?<!a)b', /look-ahead and look-behind/u],
    ['(a)\\1', /backreference/u],
    ['\\k<name>', /backreferences/u],
    ['a\\nb', /multiline: true/u],
    ['a\nb', /multiline: true/u],
    ['(?x)a b', /inline flags/u],
    ['[[:nope:]]', /not a POSIX class/u],
    ['a{', /literal brace/u],
    ['[abc', /never closed/u],
    ['(abc', /not a valid regular expression/u],
    ['abc\\', /lone backslash/u],
    ['\\p{NoSuchScript}', /not a Unicode class/u],
    ['a\0b', /NUL character/u],
    ['x'.repeat(10_001), /more than 10000/u],
  ])('refuses %j saying what to do', (pattern, message) => {
    expect(() => compileSearchPattern(pattern, lineMode)).toThrow(message);
    try {
      compileSearchPattern(pattern, lineMode);
    } catch (error) {
      expect((error as { code?: string }).code).toBe('INVALID_PATTERN');
    }
  });
});
