import path from 'node:path';

/**
 * Normalizes a repository-relative path given in options, or returns why it is refused:
 * it must be non-empty, relative, free of NUL and line breaks, and stay inside the root.
 */
export function normalizeRelativePath(
  value: unknown,
): { relativePath: string } | { problem: string } {
  if (typeof value !== 'string' || value.trim() === '') return { problem: 'it is empty' };
  if (/[\0\r\n]/.test(value)) return { problem: 'it contains a NUL byte or a line break' };
  if (path.isAbsolute(value) || value.startsWith('\\')) return { problem: 'it is absolute' };
  const normalized = path.posix.normalize(value.replaceAll('\\', '/')).replace(/\/+$/, '');
  if (normalized === '.' || normalized === '') return { problem: 'it names the root itself' };
  if (normalized === '..' || normalized.startsWith('../')) {
    return { problem: 'it leads outside the repository' };
  }
  return { relativePath: normalized };
}

/** True when `child` is `parent` or lies inside it (both absolute). */
export function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
