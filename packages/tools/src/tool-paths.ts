// Where a tool may touch the file system: every path a model gives goes through
// `resolveToolPath`, which follows symbolic links the way the kernel will and checks the
// result against the agent's roots before any tool opens, lists or writes anything.
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext } from '@muster/query';
import { ToolError } from '@muster/query';

/** How many symbolic links one path may go through before it is refused (as the kernel's ELOOP). */
const MAX_SYMLINK_HOPS = 40;

/** The kind of access a tool asks for: `read` checks `roots.read`, `write` checks `roots.write`. */
export type ToolPathAccess = 'read' | 'write';

/**
 * True when `realPath` is one of `roots` or lies inside one of them. Both sides must already be
 * absolute real paths (symbolic links resolved); this is a pure string comparison by whole path
 * segments, so `/work/a` is not inside `/work/ab`.
 */
export function isInsideRoots(realPath: string, roots: readonly string[]): boolean {
  if (!path.isAbsolute(realPath)) return false;
  const candidate = path.normalize(realPath);
  return roots.some((root) => {
    if (!path.isAbsolute(root)) return false;
    const normalizedRoot = stripTrailingSeparator(path.normalize(root));
    if (candidate === normalizedRoot) return true;
    const prefix = normalizedRoot.endsWith(path.sep) ? normalizedRoot : normalizedRoot + path.sep;
    return candidate.startsWith(prefix);
  });
}

/**
 * Resolves a path given to a tool (absolute, or relative to `context.cwd`) to the absolute real
 * path the tool must use, and checks it against `context.roots[access]`.
 *
 * Symbolic links are followed component by component, as the kernel does (so `link/..` means
 * the parent of the link's target); a path that does not exist yet resolves to the real path of
 * its nearest existing ancestor plus the rest, and a dangling link is followed to where it would
 * create its target. Throws a `ToolError` with code:
 * - `INVALID_PATH` for an empty path, a NUL byte, or a loop of links;
 * - `PATH_OUTSIDE_ROOTS` when the path lies outside the roots;
 * - `SYMLINK_ESCAPES` when the path as written lies inside the roots but a link takes it out.
 *
 * Tools must then work on the returned path only (never the given one).
 */
export async function resolveToolPath(
  context: Pick<ToolContext, 'cwd' | 'roots'>,
  givenPath: string,
  access: ToolPathAccess,
): Promise<string> {
  if (typeof givenPath !== 'string' || givenPath.length === 0) {
    throw new ToolError(
      'The path is empty: give an absolute path to a file or folder.',
      'INVALID_PATH',
      {
        givenPath,
      },
    );
  }
  if (givenPath.includes('\0')) {
    throw new ToolError(
      `The path ${JSON.stringify(givenPath)} contains a NUL byte, which no file name can hold: give the path without it.`,
      'INVALID_PATH',
      { givenPath },
    );
  }
  if (!path.isAbsolute(context.cwd)) {
    throw new ToolError(
      `The working directory ${JSON.stringify(context.cwd)} is not absolute; relative paths cannot be resolved. Give an absolute path.`,
      'INVALID_PATH',
      { givenPath, cwd: context.cwd },
    );
  }
  const absolute = path.isAbsolute(givenPath) ? givenPath : context.cwd + path.sep + givenPath;
  const resolved = await resolveRealPath(absolute, givenPath);
  const roots = await realRoots(context.roots[access]);
  if (isInsideRoots(resolved, roots)) return resolved;

  const lexical = path.resolve(context.cwd, givenPath);
  const allowed = roots.length === 0 ? 'none' : roots.join(', ');
  const verb = access === 'read' ? 'read' : 'write';
  const details = { givenPath, resolvedPath: resolved, access, roots };
  if (isInsideRoots(lexical, roots) || isInsideRoots(lexical, context.roots[access])) {
    throw new ToolError(
      `Cannot ${verb} ${JSON.stringify(givenPath)}: a symbolic link on the way takes it to ${resolved}, which is outside the directories this agent may ${verb} (${allowed}). Use a path whose real location is inside them.`,
      'SYMLINK_ESCAPES',
      details,
    );
  }
  throw new ToolError(
    `Cannot ${verb} ${JSON.stringify(givenPath)}: it resolves to ${resolved}, which is outside the directories this agent may ${verb} (${allowed}). Use a path inside one of them, or ask the person running the agent to allow that directory.`,
    'PATH_OUTSIDE_ROOTS',
    details,
  );
}

/** Real paths of the roots (a root that does not exist is kept as written, normalized). */
async function realRoots(roots: readonly string[]): Promise<string[]> {
  return Promise.all(
    roots.map(async (root) => {
      if (!path.isAbsolute(root)) return root;
      try {
        return await realpath(root);
      } catch {
        return path.normalize(root);
      }
    }),
  );
}

/**
 * Follows `absolute` component by component: `.` is skipped, `..` goes to the parent of what
 * has been resolved so far, an existing link is replaced by its target, and from the first
 * missing component on the rest is appended as written (lexically) — until a `..` climbs back,
 * after which components are checked again.
 */
async function resolveRealPath(absolute: string, givenPath: string): Promise<string> {
  const pending = splitComponents(absolute);
  let resolved = path.parse(absolute).root;
  let hops = 0;
  let missing = false;
  while (pending.length > 0) {
    const component = pending.shift() as string;
    if (component === '.' || component === '') continue;
    if (component === '..') {
      // Back in a folder that may exist: check what follows again (a link after `missing/..`
      // would otherwise be appended as text and followed later by the kernel).
      resolved = path.dirname(resolved);
      missing = false;
      continue;
    }
    const next = path.join(resolved, component);
    if (missing) {
      resolved = next;
      continue;
    }
    let isLink: boolean;
    try {
      isLink = (await lstat(next)).isSymbolicLink();
    } catch (error) {
      if (!isMissing(error)) throw fileSystemError(error, givenPath, next);
      missing = true;
      resolved = next;
      continue;
    }
    if (!isLink) {
      resolved = next;
      continue;
    }
    hops += 1;
    if (hops > MAX_SYMLINK_HOPS) {
      throw new ToolError(
        `Cannot resolve ${JSON.stringify(givenPath)}: it goes through more than ${MAX_SYMLINK_HOPS} symbolic links (a loop?). Give a path without the loop.`,
        'INVALID_PATH',
        { givenPath },
      );
    }
    const target = await readlink(next);
    if (path.isAbsolute(target)) resolved = path.parse(target).root;
    pending.unshift(...splitComponents(target));
  }
  return resolved;
}

function splitComponents(value: string): string[] {
  const separators = path.sep === '\\' ? /[\\/]+/u : /\/+/u;
  return value.split(separators).filter((component) => component.length > 0);
}

function stripTrailingSeparator(value: string): string {
  return value.length > 1 && value.endsWith(path.sep) ? value.slice(0, -1) : value;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function fileSystemError(error: unknown, givenPath: string, at: string): ToolError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown';
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError(
    `Cannot resolve ${JSON.stringify(givenPath)}: checking ${at} failed (${code}: ${message}). Check the path and its permissions.`,
    'PATH_UNREADABLE',
    { givenPath, at, errorCode: code },
  );
}
