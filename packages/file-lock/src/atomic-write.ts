import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ioError } from './file-lock-error.js';

/** Options for {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /** Flush the data (and the folder entry) to the disk before returning. Default false. */
  fsync?: boolean;
}

/**
 * Replaces `file` with `content` (UTF-8) in one step: writes a temp file in the same folder
 * (`.<name>.<pid>.<random>.tmp`) and renames it over `file`, so readers see the old or the
 * new content, never a mix. The temp file is removed if anything fails.
 */
export async function writeFileAtomic(
  file: string,
  content: string,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const temporary = await writeTemporaryFile(file, content, options);
  await commitTemporaryFile(temporary, file, options);
}

/** The unique temp-file name for `file`, in the same folder. */
export function temporaryPathFor(file: string): string {
  const name = `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  return path.join(path.dirname(file), name);
}

/** Writes `content` to a new temp file beside `file` and returns its path. */
export async function writeTemporaryFile(
  file: string,
  content: string,
  options: WriteFileAtomicOptions,
): Promise<string> {
  const temporary = temporaryPathFor(file);
  try {
    const handle = await open(temporary, 'wx');
    try {
      await handle.writeFile(content, 'utf8');
      if (options.fsync) await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    await discardTemporaryFile(temporary);
    throw ioError('write a temp file for', file, error);
  }
  return temporary;
}

/** Renames the temp file over `file`; removes the temp file if that fails. */
export async function commitTemporaryFile(
  temporary: string,
  file: string,
  options: WriteFileAtomicOptions,
): Promise<void> {
  try {
    await rename(temporary, file);
  } catch (error) {
    await discardTemporaryFile(temporary);
    throw ioError('replace', file, error);
  }
  if (options.fsync) await syncFolder(path.dirname(file));
}

/** Removes a temp file, ignoring one that is already gone. */
export async function discardTemporaryFile(temporary: string): Promise<void> {
  await unlink(temporary).catch(() => undefined);
}

async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw ioError('flush the folder', folder, error);
  }
}
