import { describe, expect, it } from 'vitest';
import { matchSegment, parseIncludePatterns, patternsReachDirectory } from './include-patterns.js';

describe('.worktreeinclude pattern pruning', () => {
  const patterns = parseIncludePatterns(
    [
      '# comment',
      '',
      '.env',
      'config/local/*.json',
      '/build',
      '!config/local/skip.json',
      'cache-*/',
    ].join('\n'),
  );

  it('parses gitignore lines, skipping comments and blank lines', () => {
    expect(patterns).toEqual([
      { segments: ['.env'], anchored: false, negated: false },
      { segments: ['config', 'local', '*.json'], anchored: true, negated: false },
      { segments: ['build'], anchored: true, negated: false },
      { segments: ['config', 'local', 'skip.json'], anchored: true, negated: true },
      { segments: ['cache-*'], anchored: false, negated: false },
    ]);
  });

  it('opens only the ignored folders a pattern names or reaches into', () => {
    expect(patternsReachDirectory(patterns, 'config/')).toBe(true);
    expect(patternsReachDirectory(patterns, 'config/local/')).toBe(true);
    expect(patternsReachDirectory(patterns, 'build/')).toBe(true);
    expect(patternsReachDirectory(patterns, 'build/sub/')).toBe(true);
    expect(patternsReachDirectory(patterns, 'packages/x/cache-3/')).toBe(true);
    expect(patternsReachDirectory(patterns, 'node_modules/')).toBe(false);
    expect(patternsReachDirectory(patterns, 'config/remote/')).toBe(false);
    expect(patternsReachDirectory(patterns, 'dist/')).toBe(false);
    // A pattern without a slash does not open folders by itself.
    expect(patternsReachDirectory(parseIncludePatterns('*.pem'), 'certs/')).toBe(false);
    // `**` opens every folder it could descend into.
    expect(patternsReachDirectory(parseIncludePatterns('**/*.pem'), 'certs/')).toBe(true);
  });

  it('matches single segments with *, ? and bracket expressions', () => {
    expect(matchSegment('*.json', 'a.json')).toBe(true);
    expect(matchSegment('*.json', 'a.jsonx')).toBe(false);
    expect(matchSegment('file?.txt', 'file1.txt')).toBe(true);
    expect(matchSegment('[!a]b', 'ab')).toBe(false);
    expect(matchSegment('[!a]b', 'cb')).toBe(true);
    expect(matchSegment('a\\*', 'a*')).toBe(true);
    expect(matchSegment('a\\*', 'ab')).toBe(false);
  });
});
