import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { FileLockError, ioError } from './file-lock-error.js';
import {
  openInsideRoot,
  resolveInsideRoot,
  syncDirectory,
  type RootOption,
} from './inside-root.js';

/** Options for {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions extends RootOption {
  /**
   * Flush the data and the folder entry to the disk before returning (`fsync` of the temp
   * file before the rename, of the folder after it), so an acknowledged write survives a
   * power cut. Default true; pass false only for data that may be lost.
   */
  fsync?: boolean;
  /**
   * The lock this write happens under. It is checked right before the rename: when this
   * process no longer holds it (it was paused past `staleMs` and another process took the
   * lock), nothing is replaced and the write fails with `LOCK_LOST`, so an old copy never
   * lands over a newer one.
   */
  heldLock?: { readonly file: string; isHeldNow(): boolean };
}

/**
 * Replaces `file` with `content` (UTF-8) in one step: writes a temp file in the same folder
 * (`.<name>.<pid>.<random>.tmp`), flushes it, renames it over `file` and flushes the folder,
 * so readers see the old or the new content, never a mix, and the new content survives a
 * power cut once this resolves. With `root`, no link below the root is followed
 * (`UNSAFE_PATH`). The temp file is removed if anything fails.
 */
export async function writeFileAtomic(
  target: string,
  content: string,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const file = options.root === undefined ? target : resolveInsideRoot(options.root, target);
  const temporary = writeTemporaryFile(file, content, options);
  const lock = options.heldLock;
  if (lock !== undefined) {
    let held: boolean;
    try {
      held = lock.isHeldNow();
    } catch (error) {
      discardTemporaryFile(temporary);
      throw error;
    }
    if (!held) {
      discardTemporaryFile(temporary);
      throw new FileLockError({
        code: 'LOCK_LOST',
        message:
          `The lock on ${lock.file} was taken by another process before ${file} ` +
          'was replaced (this process was paused longer than the stale time). Nothing was ' +
          'written: read the file again and redo the change.',
        details: { file, lockedFile: lock.file },
      });
    }
  }
  commitTemporaryFile(temporary, file, options);
}

/** The unique temp-file name for `file`, in the same folder. */
export function temporaryPathFor(file: string): string {
  const name = `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  return path.join(path.dirname(file), name);
}

/**
 * Writes `content` to a new temp file beside `file` and returns its path. Synchronous on
 * purpose, like the other steps inside a lock: a few microseconds each, where every
 * asynchronous step would add a thread-pool round trip to the time the lock is held.
 */
export function writeTemporaryFile(
  file: string,
  content: string,
  options: WriteFileAtomicOptions,
): string {
  const temporary = temporaryPathFor(file);
  let descriptor: number;
  try {
    // O_EXCL never follows a link; O_NOFOLLOW says so explicitly.
    descriptor = openInsideRoot(
      undefined,
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
      0o644,
    );
  } catch (error) {
    if (FileLockError.hasCode(error, 'UNSAFE_PATH')) throw error;
    throw ioError('write a temp file for', file, error);
  }
  try {
    const bytes = Buffer.from(content, 'utf8');
    for (let written = 0; written < bytes.length;) {
      written += writeSync(descriptor, bytes, written, bytes.length - written);
    }
    if (options.fsync ?? true) fsyncSync(descriptor);
  } catch (error) {
    closeSync(descriptor);
    discardTemporaryFile(temporary);
    throw ioError('write a temp file for', file, error);
  }
  closeSync(descriptor);
  return temporary;
}

/** Renames the temp file over `file`; removes the temp file if that fails. */
export function commitTemporaryFile(
  temporary: string,
  file: string,
  options: WriteFileAtomicOptions,
): void {
  try {
    renameSync(temporary, file);
  } catch (error) {
    discardTemporaryFile(temporary);
    throw ioError('replace', file, error);
  }
  if (options.fsync ?? true) syncDirectory(path.dirname(file));
}

/** Removes a temp file, ignoring one that is already gone. */
export function discardTemporaryFile(temporary: string): void {
  try {
    unlinkSync(temporary);
  } catch {
    // Already gone, or never created.
  }
}
