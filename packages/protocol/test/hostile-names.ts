// Shared inputs for the name and path tests.

/** Names an attacker (or a confused model) might pass; none may become a path segment as is. */
export const HOSTILE_NAMES = [
  '',
  '.',
  '..',
  '../x',
  '../../etc/passwd',
  'a/../../b',
  '/absolute',
  'a/b',
  'a\\b',
  '..\\..\\windows',
  'nul\0byte',
  'tab\tname',
  'new\nline',
  'carriage\rreturn',
  'delete\u007f',
  'x'.repeat(256),
  '€'.repeat(86), // 258 bytes in UTF-8
];

/** A small deterministic generator of awkward strings, for property-style checks. */
export function awkwardStrings(count: number, seed = 7): string[] {
  const alphabet = [
    'a',
    'Z',
    '9',
    '-',
    '_',
    '.',
    '/',
    '\\',
    '@',
    ' ',
    '\0',
    '\n',
    'é',
    '名',
    '🚀',
    '..',
  ];
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state;
  };
  return Array.from({ length: count }, () => {
    const length = next() % 24;
    return Array.from({ length }, () => alphabet[next() % alphabet.length]).join('');
  });
}
