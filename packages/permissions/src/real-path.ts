import { lstatSync, readlinkSync } from 'node:fs';
import { normalizePosixPath } from '@muster/protocol';

/** How many symbolic links one path may pass through before it counts as a loop (as Linux). */
const MAXIMUM_LINKS = 40;

/**
 * The physical path an absolute path leads to: every symbolic link on the way is followed
 * (with `lstat` and `readlink`, nothing else is read), `.` is dropped and `..` goes to the
 * parent of where the walk really is, as the kernel does. The part of the path that does
 * not exist yet (a file about to be written) is appended as written, so a dangling link
 * resolves to the file it would create. A loop stops resolving and returns the path
 * reached so far joined with the rest (the call would fail with ELOOP anyway).
 */
export function resolveRealPath(absolutePath: string): string {
  let pending = absolutePath.split('/').filter((part) => part !== '');
  let resolved = '';
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      resolved = resolved.slice(0, resolved.lastIndexOf('/'));
      continue;
    }
    const candidate = `${resolved}/${part}`;
    let isLink: boolean;
    try {
      isLink = lstatSync(candidate).isSymbolicLink();
    } catch {
      // Missing (or unreadable): the rest cannot be links we can see; keep it as written.
      return normalizePosixPath([candidate, ...pending].join('/'));
    }
    if (!isLink) {
      resolved = candidate;
      continue;
    }
    links += 1;
    if (links > MAXIMUM_LINKS) return normalizePosixPath([candidate, ...pending].join('/'));
    const target = readlinkSync(candidate);
    const targetParts = target.split('/').filter((item) => item !== '');
    if (target.startsWith('/')) resolved = '';
    pending = [...targetParts, ...pending];
  }
  return resolved === '' ? '/' : resolved;
}
