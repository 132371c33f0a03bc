import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { acquireFileLock, type HeldLock, type LockOptions } from './acquire-file-lock.js';
import { HeldFileLock } from './held-file-lock.js';
import { commitTemporaryFile, discardTemporaryFile, writeTemporaryFile } from './atomic-write.js';
import { FileLockError, ioError } from './file-lock-error.js';
import {
  quarantineFileNow,
  readFileSnapshotNow,
  sameFileIdentity,
  type FileSnapshot,
} from './file-snapshot.js';
import { makeDirectoryInsideRoot, syncDirectory } from './inside-root.js';
import { sleep } from './sleep.js';

/** Return this from `update` to leave the file as it is. */
export const skipWrite: unique symbol = Symbol.for('muster.file-lock.skipWrite');

/** How to read, change and write one file under its lock. */
export interface UpdateFileOptions<T> extends LockOptions {
  /** Turns the file's text into a value; throws when the content is invalid. */
  parse: (text: string, file: string) => T;
  /** Turns the new value into the file's text. */
  serialize: (value: T) => string;
  /**
   * Computes the new value from the current one (`undefined` = the file is missing), or
   * returns `skipWrite`. It may run more than once (after a lost lock it is re-run on fresh
   * data), so it must not have side effects of its own.
   */
  update: (current: T | undefined) => T | typeof skipWrite | Promise<T | typeof skipWrite>;
  /**
   * Whether a missing file (and its folder) may be created. Default true. When false and
   * the file is missing, `update` still sees `undefined`, but nothing is written whatever it
   * returns, and the result is `{ value: undefined, written: false }`.
   */
  createIfMissing?: boolean;
  /**
   * Flush the new content and its folder entry to the disk before returning, so the write
   * survives a power cut. Default true.
   */
  fsync?: boolean;
}

/** What {@link updateFile} did: the value now in the file, and whether it wrote. */
export interface UpdateFileResult<T> {
  value: T | undefined;
  written: boolean;
}

/** How often a read-modify-write is redone after losing the lock before giving up. */
const maximumAttempts = 5;
/** Pause before re-reading a file that did not parse (a writer may be mid-write). */
const rereadDelayMs = 25;

/**
 * Read-modify-write of one file under its lock: takes the lock, re-reads the file, parses
 * it, calls `update`, and replaces the file atomically. Just before the replace it checks
 * that the lock is still ours and the file is still the version it read; if not (this
 * process was paused and its lock taken), it starts over on fresh data. A file that does
 * not parse twice is moved aside and reported as `CORRUPT_FILE`; it is never overwritten.
 *
 * A muster holder is never overtaken while its process lives (even stopped), so a pause
 * between that last check and the rename cannot overwrite anyone's newer data. With `root`,
 * no link below the root is followed (`UNSAFE_PATH`). The write is flushed (file, then
 * folder) before this resolves unless `fsync` is false.
 */
export async function updateFile<T>(
  file: string,
  options: UpdateFileOptions<T>,
): Promise<UpdateFileResult<T>> {
  const createIfMissing = options.createIfMissing ?? true;
  for (let attempt = 1; ; attempt += 1) {
    const lock = await acquireOrHandleMissingFolder(file, options, createIfMissing);
    if (!('lockPath' in lock)) return lock;
    let outcome: UpdateFileResult<T> | 'lost';
    try {
      outcome = await readModifyWrite(file, lock, options, createIfMissing);
    } catch (error) {
      await lock.release().catch(() => {
        // The caller needs the first error (corrupt file, failed update), not this one.
      });
      throw error;
    }
    // A lost lock was handled by the check just before the replace; losing it after a
    // checked replace cannot undo anything.
    await lock.release().catch((error: unknown) => {
      if (!FileLockError.hasCode(error, 'LOCK_LOST')) throw error;
    });
    if (outcome !== 'lost') return outcome;
    if (attempt >= maximumAttempts) {
      throw new FileLockError({
        code: 'LOCK_LOST',
        message:
          `Lost the lock on ${file} ${attempt} times in a row while updating it: another ` +
          'process kept taking it. Nothing was written. Raise staleMs if updates take long, ' +
          'or find the process that removes the lock.',
        details: { file, attempts: attempt },
      });
    }
  }
}

async function acquireOrHandleMissingFolder<T>(
  file: string,
  options: UpdateFileOptions<T>,
  createIfMissing: boolean,
): Promise<HeldLock | UpdateFileResult<T>> {
  for (;;) {
    try {
      return await acquireFileLock(file, options);
    } catch (error) {
      const folderMissing =
        FileLockError.hasCode(error, 'IO_ERROR') && error.details.folderMissing === true;
      if (!folderMissing) throw error;
    }
    // No folder means no file. Create the folder only if something is going to be written.
    const next = await options.update(undefined);
    if (next === skipWrite || !createIfMissing) return { value: undefined, written: false };
    const folder = path.dirname(path.resolve(file));
    if (options.root !== undefined) {
      makeDirectoryInsideRoot(options.root, folder);
      continue;
    }
    try {
      mkdirSync(folder, { recursive: true });
      if (options.fsync ?? true) syncDirectory(path.dirname(folder));
    } catch (error) {
      if (FileLockError.hasCode(error, 'IO_ERROR')) throw error;
      throw ioError('create the folder', folder, error);
    }
  }
}

async function readModifyWrite<T>(
  name: string,
  lock: HeldLock,
  options: UpdateFileOptions<T>,
  createIfMissing: boolean,
): Promise<UpdateFileResult<T> | 'lost'> {
  const file = lock.file;
  const root = options.root;
  const { snapshot, value: current } = await readAndParse(name, file, options);
  const next = await options.update(current);
  if (snapshot === undefined && !createIfMissing) return { value: undefined, written: false };
  if (next === skipWrite) return { value: current, written: false };
  const temporary = writeTemporaryFile(file, options.serialize(next), options);
  let intact: boolean;
  try {
    // Synchronous from here to the rename, the lock check last: the window in which a
    // paused process could lose its lock unnoticed is as short as it can be.
    intact = isUnchanged(file, snapshot, root) && isStillHeld(lock);
  } catch (error) {
    discardTemporaryFile(temporary);
    throw error;
  }
  if (!intact) {
    discardTemporaryFile(temporary);
    return 'lost';
  }
  commitTemporaryFile(temporary, file, options);
  return { value: next, written: true };
}

async function readAndParse<T>(
  name: string,
  file: string,
  options: UpdateFileOptions<T>,
): Promise<{ snapshot: FileSnapshot | undefined; value: T | undefined }> {
  const first = readFileSnapshotNow(file, options.root);
  if (first === undefined) return { snapshot: undefined, value: undefined };
  try {
    return { snapshot: first, value: options.parse(first.text, name) };
  } catch {
    // Claude Code rewrites files in place: a first failure may be a torn read. Look again.
  }
  await sleep(rereadDelayMs);
  const second = readFileSnapshotNow(file, options.root);
  if (second === undefined) return { snapshot: undefined, value: undefined };
  try {
    return { snapshot: second, value: options.parse(second.text, name) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const quarantinedTo = quarantineFileNow(file, reason);
    throw new FileLockError({
      code: 'CORRUPT_FILE',
      message:
        `${name} does not parse (${reason}). It was moved to ${quarantinedTo} and nothing ` +
        'was written; repair or inspect that copy, move it back if it is good, and retry.',
      cause: error,
      details: { file: name, quarantinedTo, reason },
    });
  }
}

function isStillHeld(lock: HeldLock): boolean {
  if (lock instanceof HeldFileLock) return lock.isHeldNow();
  throw new TypeError('updateFile needs a lock made by acquireFileLock');
}

function isUnchanged(
  file: string,
  before: FileSnapshot | undefined,
  root: string | undefined,
): boolean {
  const now = readFileSnapshotNow(file, root);
  if (before === undefined || now === undefined) return before === now;
  return sameFileIdentity(before.identity, now.identity) && before.text === now.text;
}
