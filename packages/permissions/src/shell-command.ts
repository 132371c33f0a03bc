/**
 * The public face of muster's shell reading: `analyzeShellCommand` classifies a line
 * (tokenizer → parser → classifier, see `shell-classifier.ts`) and `shellSpecifierMatches`
 * matches a `Bash(...)` rule specifier against one command's words.
 */

import { classifyShellLine, type ShellClassification } from './shell-classifier.js';

/** A classified shell line (every command it can run, its problems, whether it only reads). */
export type ShellCommandAnalysis = ShellClassification;

/**
 * Classifies a shell line: every command it can run, wherever it sits (chains, groups,
 * compound commands, substitutions, `sh -c` / `eval` text, known wrappers, `find -exec`);
 * the word lists deny rules are matched against; why allow rules may not vouch for each
 * command; and whether the whole line only reads. Nothing is run or read from disk.
 */
export function analyzeShellCommand(command: string): ShellCommandAnalysis {
  return classifyShellLine(command);
}

/**
 * True when a `Bash(...)` specifier covers one simple command: `*` covers any; `prefix:*`
 * (or `prefix *`) covers commands whose first words are exactly the prefix's words
 * (`git:*` covers `git` and `git push`, not `gitk`); any other specifier must equal the
 * command word for word, where a `*` inside it stands for any text.
 */
export function shellSpecifierMatches(specifier: string, words: readonly string[]): boolean {
  const trimmed = specifier.trim();
  if (trimmed === '*') return true;
  let prefix: string | undefined;
  if (trimmed.endsWith(':*')) prefix = trimmed.slice(0, -2);
  else if (trimmed.endsWith(' *')) prefix = trimmed.slice(0, -2);
  if (prefix !== undefined) {
    const prefixWords = prefix.trim().split(/\s+/).filter(Boolean);
    if (prefixWords.length === 0) return true;
    return (
      words.length >= prefixWords.length &&
      prefixWords.every((prefixWord, index) => words[index] === prefixWord)
    );
  }
  const specifierWords = trimmed.split(/\s+/);
  if (!trimmed.includes('*')) {
    return (
      words.length === specifierWords.length &&
      specifierWords.every((specifierWord, index) => words[index] === specifierWord)
    );
  }
  const pattern = specifierWords
    .join(' ')
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 's').test(words.join(' '));
}
