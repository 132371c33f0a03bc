import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
} from 'node:fs';
import path from 'node:path';
import { FileLockError, errorCode, ioError } from './file-lock-error.js';
import {
  openInsideRoot,
  resolveInsideRoot,
  syncDirectory,
  type RootOption,
} from './inside-root.js';

/** Which version of a file was read: same values mean (almost surely) the same bytes. */
export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

/** A file's text together with the identity of the exact version it came from. */
export interface FileSnapshot {
  text: string;
  identity: FileIdentity;
}

/**
 * Reads a file (UTF-8) and its identity from one open handle; undefined when it is missing.
 * With `root`, a link anywhere below the root (the file itself included) is `UNSAFE_PATH`.
 */
export async function readFileSnapshot(
  file: string,
  options: RootOption = {},
): Promise<FileSnapshot | undefined> {
  return readFileSnapshotNow(file, options.root);
}

/**
 * The synchronous core of {@link readFileSnapshot}, used inside locks. With `root` the path
 * is checked and opened without following a link.
 */
export function readFileSnapshotNow(file: string, root?: string): FileSnapshot | undefined {
  let descriptor: number;
  try {
    descriptor =
      root === undefined ? openSync(file, 'r') : openInsideRoot(root, file, constants.O_RDONLY);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    if (FileLockError.hasCode(error, 'UNSAFE_PATH')) throw error;
    throw ioError('open', file, error);
  }
  try {
    const stats = fstatSync(descriptor);
    const text = readFileSync(descriptor, 'utf8');
    return {
      text,
      identity: { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs },
    };
  } catch (error) {
    throw ioError('read', file, error);
  } finally {
    closeSync(descriptor);
  }
}

/** True when two identities describe the same version of a file. */
export function sameFileIdentity(left: FileIdentity, right: FileIdentity): boolean {
  return (
    left.dev === right.dev &&
    left.ino === right.ino &&
    left.size === right.size &&
    left.mtimeMs === right.mtimeMs
  );
}

/**
 * Moves a file that does not parse aside to `<file>.corrupt-<timestamp>` (never overwriting
 * an earlier one) and returns the new path. Call it while holding the file's lock. `reason`
 * goes into the error should the move itself fail.
 */
export async function quarantineFile(
  file: string,
  reason: string,
  options: RootOption = {},
): Promise<string> {
  const checked = options.root === undefined ? file : resolveInsideRoot(options.root, file);
  return quarantineFileNow(checked, reason);
}

/**
 * The synchronous core of {@link quarantineFile}, used inside locks; `file` must already be
 * checked. A rename moves the name itself (a link is moved, never its target), and the
 * folder is flushed afterwards.
 */
export function quarantineFileNow(file: string, reason: string): string {
  const timestamp = new Date().toISOString().replace(/[:.]/g, '-');
  for (let suffix = 0; ; suffix += 1) {
    const target = `${file}.corrupt-${timestamp}${suffix === 0 ? '' : `-${suffix}`}`;
    if (exists(target)) continue;
    try {
      renameSync(file, target);
      syncDirectory(path.dirname(file));
      return target;
    } catch (error) {
      throw ioError(`move the corrupt file (${reason}) aside from`, file, error);
    }
  }
}

function exists(target: string): boolean {
  try {
    lstatSync(target);
    return true;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw ioError('check', target, error);
  }
}
