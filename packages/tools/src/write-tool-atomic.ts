// Replacing a file's content so that readers see the old content or the new one, never a
// half-written file: write a temp file in the same folder, flush it, rename it over the target.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext } from '@muster/query';
import { ToolError } from '@muster/query';
import { describeFileOpenError } from './read-tool-support.js';
import { resolveToolPath } from './tool-paths.js';

/** The file as it is on disk before a Write or Edit. */
export interface ExistingFile {
  /** Permission bits to keep (`mode & 0o777`). */
  mode: number;
  /** Modification time (milliseconds). */
  mtimeMs: number;
  /** Size in bytes. */
  size: number;
  /** The whole content. */
  content: Buffer;
}

/**
 * Opens `realPath` without following a link and reads it whole, or returns `undefined` when it
 * does not exist. Refuses directories, devices, pipes, and files over `maxBytes`.
 */
export async function readExistingFile(
  realPath: string,
  givenPath: string,
  options: { maxBytes: number; toolName: string },
): Promise<ExistingFile | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(realPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw describeFileOpenError(error, givenPath, realPath);
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) {
      throw new ToolError(
        `${options.toolName} refused: ${realPath} is a directory. Give the path of a file (inside it, or elsewhere).`,
        'IS_A_DIRECTORY',
        { filePath: realPath },
      );
    }
    if (!stat.isFile()) {
      throw new ToolError(
        `${options.toolName} refused: ${realPath} is not a regular file (a device, socket or pipe).`,
        'NOT_A_FILE',
        { filePath: realPath },
      );
    }
    if (stat.size > options.maxBytes) {
      throw new ToolError(
        `${options.toolName} refused: ${realPath} is ${stat.size} bytes, more than the ${options.maxBytes} bytes ${options.toolName} handles. Change it with Bash (e.g. sed) instead.`,
        'FILE_TOO_LARGE',
        { filePath: realPath, size: stat.size },
      );
    }
    const content = await handle.readFile();
    return { mode: stat.mode & 0o777, mtimeMs: stat.mtimeMs, size: stat.size, content };
  } finally {
    await handle.close();
  }
}

/**
 * Creates the missing parent folders of `realPath` (already checked to be inside the write
 * roots), then resolves the path again: if a link appeared on the way meanwhile, the refusal of
 * `resolveToolPath` is thrown and nothing is written.
 */
export async function prepareParentFolders(
  context: Pick<ToolContext, 'cwd' | 'roots'>,
  realPath: string,
): Promise<void> {
  const folder = path.dirname(realPath);
  try {
    await mkdir(folder, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ToolError(
      `Cannot create the folder ${folder} (${code ?? 'error'}): ${code === 'EEXIST' || code === 'ENOTDIR' ? 'a file is in the way' : 'check its parent folder and permissions'}.`,
      'FOLDER_NOT_CREATED',
      { folder, errorCode: code },
    );
  }
  const again = await resolveToolPath(context, realPath, 'write');
  if (again !== realPath) {
    throw new ToolError(
      `${realPath} now resolves to ${again}: a link appeared while its folders were created. Nothing was written; check the folder and retry.`,
      'SYMLINK_ESCAPES',
      { filePath: realPath, resolvedPath: again },
    );
  }
}

/**
 * Writes `content` to `realPath` atomically: a temp file is created next to it (never through a
 * link: `O_CREAT|O_EXCL`), written, flushed, given `mode`, and renamed over the target (which
 * replaces a link at that name instead of writing through it). Returns the new file's stat.
 */
export async function writeFileAtomically(
  realPath: string,
  content: string | Uint8Array,
  options: { mode?: number; signal: AbortSignal },
): Promise<{ mtimeMs: number; size: number }> {
  const folder = path.dirname(realPath);
  const temporary = path.join(
    folder,
    `.${path.basename(realPath)}.${randomBytes(6).toString('hex')}.muster-tmp`,
  );
  if (options.signal.aborted) {
    throw new ToolError(`Nothing was written to ${realPath}: the turn was interrupted.`, 'ABORTED');
  }
  let handle: FileHandle | undefined;
  let renamed = false;
  try {
    handle = await open(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      options.mode ?? 0o666,
    );
    await handle.writeFile(content);
    if (options.mode !== undefined) await handle.chmod(options.mode);
    await handle.sync();
    await handle.close();
    handle = undefined;
    if (options.signal.aborted) {
      throw new ToolError(
        `Nothing was written to ${realPath}: the turn was interrupted.`,
        'ABORTED',
      );
    }
    await rename(temporary, realPath);
    renamed = true;
    const stat = await lstat(realPath);
    return { mtimeMs: stat.mtimeMs, size: stat.size };
  } catch (error) {
    if (error instanceof ToolError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const message = error instanceof Error ? error.message : String(error);
    throw new ToolError(
      `Writing ${realPath} failed (${code ?? 'error'}: ${message}); the file was left as it was.${code === 'ENOSPC' ? ' The disk is full.' : ''}`,
      'WRITE_FAILED',
      { filePath: realPath, errorCode: code },
    );
  } finally {
    if (handle !== undefined) await handle.close().catch(() => undefined);
    if (!renamed) await unlink(temporary).catch(() => undefined);
  }
}
