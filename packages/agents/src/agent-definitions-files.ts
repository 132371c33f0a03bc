// Finding and reading definition files inside one agents folder: `*.md` files in it and its
// subfolders (as Claude Code finds them), never following a link out of the folder.
import { constants } from 'node:fs';
import { open, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { AgentDefinitionProblem } from './agent-definition.js';

/** The largest definition file read (256 KiB); a larger one is reported as a problem. */
export const MAXIMUM_AGENT_DEFINITION_BYTES = 256 * 1024;

/** How deep subfolders of an agents folder are searched. */
export const MAXIMUM_AGENT_FOLDER_DEPTH = 8;

/**
 * The `*.md` files below `realFolder` (its real path; `folder` is how it is shown), as paths
 * relative to it, sorted. Subfolders are searched too, up to {@link MAXIMUM_AGENT_FOLDER_DEPTH}
 * levels; a link to a folder is followed only when it stays inside `realFolder`, and each
 * folder is searched once. Folders that cannot be read become problems.
 */
export async function listDefinitionFiles(
  realFolder: string,
  folder: string,
  problems: AgentDefinitionProblem[],
): Promise<string[]> {
  const files: string[] = [];
  const visited = new Set<string>([realFolder]);
  const walk = async (relativeDirectory: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(path.join(realFolder, relativeDirectory), { withFileTypes: true });
    } catch (error) {
      problems.push({
        path: path.join(folder, relativeDirectory),
        message: `cannot read the folder (${(error as NodeJS.ErrnoException).code ?? String(error)}): make it readable or remove it`,
      });
      return;
    }
    for (const entry of entries.sort((left, right) => (left.name < right.name ? -1 : 1))) {
      const relative = path.join(relativeDirectory, entry.name);
      if (entry.isFile()) {
        if (entry.name.endsWith('.md')) files.push(relative);
        continue;
      }
      let isDirectory = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        if (entry.name.endsWith('.md')) {
          files.push(relative);
          continue;
        }
        const target = await realpath(path.join(realFolder, relative)).catch(() => undefined);
        if (target === undefined) continue;
        isDirectory = await readdir(target).then(
          () => true,
          () => false,
        );
        if (!isDirectory) continue;
        if (!isInside(realFolder, target)) {
          problems.push({
            path: path.join(folder, relative),
            message: `is a symbolic link leading outside its folder (to ${target}): not followed; copy the definitions into the folder instead`,
          });
          continue;
        }
        if (visited.has(target)) continue;
        visited.add(target);
      } else if (isDirectory) {
        visited.add(path.join(realFolder, relative));
      }
      if (!isDirectory) continue;
      if (depth >= MAXIMUM_AGENT_FOLDER_DEPTH) {
        problems.push({
          path: path.join(folder, relative),
          message: `is more than ${MAXIMUM_AGENT_FOLDER_DEPTH} folders deep: definitions below it are not read; move them up`,
        });
        continue;
      }
      await walk(relative, depth + 1);
    }
  };
  await walk('', 0);
  return files.sort();
}

function isInside(realFolder: string, target: string): boolean {
  const relative = path.relative(realFolder, target);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** Reads one file inside `realFolder`, refusing links that lead out of it and oversized files. */
export async function readDefinitionFile(
  realFolder: string,
  name: string,
  shownPath: string,
  problems: AgentDefinitionProblem[],
): Promise<string | undefined> {
  let target: string;
  try {
    target = await realpath(path.join(realFolder, name));
  } catch (error) {
    problems.push({
      path: shownPath,
      message: `cannot resolve the file (${(error as NodeJS.ErrnoException).code ?? String(error)}): a symbolic link that leads nowhere? Remove it or point it at a file in the folder`,
    });
    return undefined;
  }
  if (!isInside(realFolder, target)) {
    problems.push({
      path: shownPath,
      message: `is a symbolic link leading outside its folder (to ${target}): definitions are read only from inside the folder; copy the file there instead`,
    });
    return undefined;
  }
  let handle;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the fstat below refuses it.
    handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    problems.push({
      path: shownPath,
      message: `cannot open the file (${(error as NodeJS.ErrnoException).code ?? String(error)}): make it a readable regular file`,
    });
    return undefined;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      problems.push({
        path: shownPath,
        message: 'is not a regular file: remove it or rename it so it does not end in .md',
      });
      return undefined;
    }
    if (stats.size > MAXIMUM_AGENT_DEFINITION_BYTES) {
      problems.push({
        path: shownPath,
        message: `is ${stats.size} bytes, more than the ${MAXIMUM_AGENT_DEFINITION_BYTES} bytes (256 KiB) a definition may have: shorten its prompt`,
      });
      return undefined;
    }
    const buffer = Buffer.alloc(MAXIMUM_AGENT_DEFINITION_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAXIMUM_AGENT_DEFINITION_BYTES) {
        problems.push({
          path: shownPath,
          message: `grew past the ${MAXIMUM_AGENT_DEFINITION_BYTES} bytes (256 KiB) a definition may have while being read: shorten its prompt`,
        });
        return undefined;
      }
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, length));
    } catch {
      problems.push({ path: shownPath, message: 'is not UTF-8 text: save it as UTF-8' });
      return undefined;
    }
  } finally {
    await handle.close();
  }
}
