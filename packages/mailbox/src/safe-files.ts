import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { MailboxError, systemErrorCode } from './mailbox-error.js';

// Every file the mailbox touches lies below the muster root. A symbolic link anywhere below
// the root (a folder such as `inboxes/`, or the inbox itself) could point outside it, and
// following it would read, write, rename or create files elsewhere. These helpers never
// follow one: folders below the root are checked with `lstat`, one component at a time,
// and files are opened with O_NOFOLLOW. A link found is refused with an error naming it.
// The root itself may be a link (`~/.claude` often is): only what is below it is checked.
// Synchronous calls on purpose (see spool.ts): they run inside the inbox lock.

const noFollow = constants.O_NOFOLLOW;

/** The error for a symbolic link found where the mailbox expects a real file or folder. */
export function symbolicLinkRefused(link: string, root: string): MailboxError {
  return new MailboxError({
    code: 'UNSAFE_PATH',
    message:
      `Refusing to use ${link}: it is a symbolic link, and muster never follows links below ` +
      `its root ${root} (one could lead outside it). Nothing was read or written through it. ` +
      'Replace the link with a real folder or file (move what it points to into place), then retry.',
    details: { link, root },
  });
}

function notADirectory(directory: string): MailboxError {
  return new MailboxError({
    code: 'IO_ERROR',
    message:
      `${directory} is not a folder, but the mailbox needs a folder there. Move the file ` +
      'away (or delete it if it is not needed), then retry.',
    details: { path: directory },
  });
}

/**
 * Guards the files of one root: no component below `root` may be a symbolic link. Paths
 * given to it must lie below the root.
 */
export class RootGuard {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** The components of `target` below the root, as absolute paths, outermost first. */
  private componentsBelowRoot(target: string): string[] {
    const absolute = path.resolve(target);
    const relative = path.relative(this.root, absolute);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
      throw new MailboxError({
        code: 'INVALID_NAME',
        message: `${absolute} is not below the muster root ${this.root}; refusing to use it.`,
        details: { path: absolute, root: this.root },
      });
    }
    const components: string[] = [];
    let current = this.root;
    for (const part of relative.split(path.sep)) {
      current = path.join(current, part);
      components.push(current);
    }
    return components;
  }

  /**
   * Checks every existing component of `target` below the root (the target itself
   * included) with `lstat`: a symbolic link is refused, missing components are fine.
   * Returns the target's own stats, undefined when it (or a folder above it) is missing.
   */
  check(target: string): Stats | undefined {
    let stats: Stats | undefined;
    for (const component of this.componentsBelowRoot(target)) {
      stats = lstatSync(component, { throwIfNoEntry: false });
      if (stats === undefined) return undefined;
      if (stats.isSymbolicLink()) throw symbolicLinkRefused(component, this.root);
    }
    return stats;
  }

  /** {@link check} for several targets, each shared folder looked at once. */
  checkAll(targets: readonly string[]): void {
    const seen = new Set<string>();
    for (const target of targets) {
      for (const component of this.componentsBelowRoot(target)) {
        if (seen.has(component)) continue;
        seen.add(component);
        const stats = lstatSync(component, { throwIfNoEntry: false });
        if (stats === undefined) break;
        if (stats.isSymbolicLink()) throw symbolicLinkRefused(component, this.root);
      }
    }
  }

  /** Checks the folders above `file` (not the file itself). */
  checkParents(file: string): void {
    this.check(path.dirname(file));
  }

  /**
   * Creates `directory` and the missing folders above it (below the root), one at a time,
   * never through a link: an existing link is refused, an existing file is an error.
   */
  ensureDirectory(directory: string): void {
    for (const component of this.componentsBelowRoot(directory)) {
      let stats = lstatSync(component, { throwIfNoEntry: false });
      if (stats === undefined) {
        try {
          mkdirSync(component);
        } catch (error) {
          if (systemErrorCode(error) !== 'EEXIST') throw error;
        }
        stats = lstatSync(component);
      }
      if (stats.isSymbolicLink()) throw symbolicLinkRefused(component, this.root);
      if (!stats.isDirectory()) throw notADirectory(component);
    }
  }

  /**
   * Opens a file below the root without following links (folders checked, O_NOFOLLOW on
   * the file). `ELOOP` (the file is a link) becomes `SYMBOLIC_LINK_REFUSED`.
   */
  open(file: string, flags: number, mode?: number): number {
    this.checkParents(file);
    try {
      return openSync(file, flags | noFollow, mode);
    } catch (error) {
      if (systemErrorCode(error) === 'ELOOP') throw symbolicLinkRefused(file, this.root);
      throw error;
    }
  }

  /** A file's text and stats from one handle; undefined when it is missing. */
  readText(file: string): { text: string; stats: Stats } | undefined {
    let descriptor: number;
    try {
      descriptor = this.open(file, constants.O_RDONLY);
    } catch (error) {
      if (systemErrorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const stats = fstatSync(descriptor);
      return { text: readFileSync(descriptor, 'utf8'), stats };
    } finally {
      closeSync(descriptor);
    }
  }

  /**
   * Writes `text` to a file (created or truncated), never through a link. `durable`: the
   * content is flushed to the disk before returning.
   */
  writeText(file: string, text: string, options: { exclusive?: boolean; durable?: boolean }) {
    const flags =
      constants.O_WRONLY |
      constants.O_CREAT |
      (options.exclusive ? constants.O_EXCL : constants.O_TRUNC);
    const descriptor = this.open(file, flags, 0o644);
    try {
      writeAll(descriptor, text);
      if (options.durable) fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
  }

  /**
   * Makes `file` end with `text` written at offset `at`: cuts it there, then appends. Never
   * through a link; `durable` flushes before returning.
   */
  writeAt(file: string, at: number, text: string, options: { durable?: boolean }): void {
    const descriptor = this.open(file, constants.O_WRONLY | constants.O_CREAT, 0o644);
    try {
      ftruncateSync(descriptor, at);
      writeAll(descriptor, text, at);
      if (options.durable) fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
  }

  /** A file's size without following a link (0 when missing). */
  size(file: string): number {
    const stats = this.check(file);
    if (stats?.isSymbolicLink()) throw symbolicLinkRefused(file, this.root);
    return stats?.size ?? 0;
  }
}

/** Writes the whole string at the descriptor's position (or at `position`). */
function writeAll(descriptor: number, text: string, position?: number): void {
  const buffer = Buffer.from(text, 'utf8');
  let written = 0;
  while (written < buffer.length) {
    written += writeSync(
      descriptor,
      buffer,
      written,
      buffer.length - written,
      position === undefined ? null : position + written,
    );
  }
}

/**
 * Flushes a folder's entries (created, renamed, deleted files) to the disk. A missing
 * folder has nothing to flush.
 */
export function syncDirectory(directory: string): void {
  let descriptor: number;
  try {
    descriptor = openSync(directory, constants.O_RDONLY | constants.O_DIRECTORY | noFollow);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return;
    throw error;
  }
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}
