import {
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
} from 'node:fs';
import path from 'node:path';
import { FileLockError, errorCode, ioError } from './file-lock-error.js';

/**
 * The root every path of one operation must stay inside. Given to `updateFile`,
 * `acquireFileLock`, `writeFileAtomic`, `readFileSnapshot` and `quarantineFile` as `root`:
 * then no symbolic link below the root is ever followed, so nothing outside it is read,
 * written, renamed, created or removed.
 */
export interface RootOption {
  /** The folder nothing may leave (muster's root). Links in the root's own path are fine. */
  root?: string;
}

/** `O_NOFOLLOW`: open fails with `ELOOP` when the last path component is a symbolic link. */
export const openNoFollowFlag = constants.O_NOFOLLOW;

/**
 * Checks that `target` lies inside `root` without passing through a symbolic link: every
 * component below the root that exists is `lstat`ed and must not be a link (components that
 * do not exist yet are fine). Returns the path to use: the root's real path joined with the
 * relative rest, which is also the path proper-lockfile would resolve (so lock names agree
 * with Claude Code's). Throws `UNSAFE_PATH` naming the link (or the escaping path).
 */
export function resolveInsideRoot(root: string, target: string): string {
  const absoluteRoot = path.resolve(root);
  const absoluteTarget = path.resolve(absoluteRoot, target);
  const realRoot = realRootOf(absoluteRoot);
  // A path may be spelled from the root as given or from its real path (as lock.file is).
  let relative = path.relative(absoluteRoot, absoluteTarget);
  if (isEscaping(relative)) relative = path.relative(realRoot, absoluteTarget);
  if (isEscaping(relative)) {
    throw new FileLockError({
      code: 'UNSAFE_PATH',
      message:
        `Refusing to touch ${absoluteTarget}: it is outside the muster root ${absoluteRoot}. ` +
        'Use a path inside the root.',
      details: { path: absoluteTarget, root: absoluteRoot },
    });
  }
  let current = realRoot;
  let shown = absoluteRoot;
  for (const part of relative === '' ? [] : relative.split(path.sep)) {
    current = path.join(current, part);
    shown = path.join(shown, part);
    let stats;
    try {
      stats = lstatSync(current);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') break;
      throw ioError('check', shown, error);
    }
    if (stats.isSymbolicLink()) throw linkRefused(shown, absoluteTarget, absoluteRoot, current);
  }
  return relative === '' ? realRoot : path.join(realRoot, relative);
}

function isEscaping(relative: string): boolean {
  return relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
}

/** The real path of the root; for a root that does not exist yet, of its nearest ancestor. */
function realRootOf(absoluteRoot: string): string {
  const missing: string[] = [];
  let existing = absoluteRoot;
  for (;;) {
    try {
      return path.join(realpathSync(existing), ...missing.reverse());
    } catch (error) {
      const code = errorCode(error);
      const parent = path.dirname(existing);
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === existing) {
        throw ioError('resolve the muster root', absoluteRoot, error);
      }
      missing.push(path.basename(existing));
      existing = parent;
    }
  }
}

function linkRefused(link: string, target: string, root: string, real: string): FileLockError {
  let pointsTo = 'somewhere';
  try {
    pointsTo = readlinkSync(real);
  } catch {
    // The link vanished meanwhile; the message still names it.
  }
  return new FileLockError({
    code: 'UNSAFE_PATH',
    message:
      `Refusing to follow the symbolic link ${link} (→ ${pointsTo}) on the way to ${target}: ` +
      `muster never reads or writes through a link below its root ${root}, so that nothing ` +
      'outside the root is touched. Replace the link with a real folder or file, then retry.',
    details: { path: target, link, linkTarget: pointsTo, root },
  });
}

/**
 * The `UNSAFE_PATH` error for a path whose last component turned out to be a link (an open
 * with `O_NOFOLLOW` failed with `ELOOP`).
 */
export function linkRefusedError(file: string, root: string | undefined): FileLockError {
  return linkRefused(file, file, root ?? path.dirname(file), file);
}

/**
 * Opens `file` without following a link in its last component (`O_NOFOLLOW` is added to
 * `flags`). With `root`, every component below the root is checked first
 * ({@link resolveInsideRoot}). A link in the last component is `UNSAFE_PATH`; other
 * failures are thrown as Node's own errors (check `code`). Returns the descriptor.
 */
export function openInsideRoot(
  root: string | undefined,
  file: string,
  flags: number,
  mode = 0o666,
): number {
  const checked = root === undefined ? file : resolveInsideRoot(root, file);
  try {
    return openSync(checked, flags | constants.O_NOFOLLOW, mode);
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw linkRefusedError(file, root);
    throw error;
  }
}

/**
 * Creates `folder` and any missing parents inside `root` (like `mkdir -p`) without ever
 * following a link: each existing component must be a real folder (`UNSAFE_PATH` names a
 * link), and each folder made is flushed into its parent (`fsync` of the parent), so it
 * survives a power cut. Returns the checked path.
 */
export function makeDirectoryInsideRoot(root: string, folder: string): string {
  const checked = resolveInsideRoot(root, folder);
  const realRoot = resolveInsideRoot(root, root);
  const relative = path.relative(realRoot, checked);
  try {
    // The root's own path is trusted (it may itself contain links): create it as it is.
    mkdirSync(realRoot, { recursive: true });
  } catch (error) {
    throw ioError('create the muster root', realRoot, error);
  }
  let current = realRoot;
  for (const part of relative === '' ? [] : relative.split(path.sep)) {
    const parent = current;
    current = path.join(current, part);
    try {
      mkdirSync(current);
      syncDirectory(parent);
      continue;
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw ioError('create the folder', current, error);
    }
    const stats = lstatSync(current);
    if (stats.isSymbolicLink()) throw linkRefusedError(current, root);
    if (!stats.isDirectory()) {
      throw new FileLockError({
        code: 'IO_ERROR',
        message: `Cannot create the folder ${folder}: ${current} is a file, not a folder. Move it away, then retry.`,
        details: { path: current, operation: 'create the folder', systemCode: 'ENOTDIR' },
      });
    }
  }
  return checked;
}

/**
 * Flushes a folder's entries (new, renamed or removed names) to the disk: `fsync` of the
 * folder itself, which a rename or a new file needs to survive a power cut.
 */
export function syncDirectory(folder: string): void {
  let descriptor: number;
  try {
    descriptor = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (error) {
    throw ioError('open the folder to flush', folder, error);
  }
  try {
    fsyncSync(descriptor);
  } catch (error) {
    // Some file systems cannot fsync a folder; the data itself was already flushed.
    if (errorCode(error) !== 'EINVAL') throw ioError('flush the folder', folder, error);
  } finally {
    closeSync(descriptor);
  }
}
