// Helpers for this package's tests (not exported from the package).
import { chmod, cp, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  claudeCode2_1_330ReferenceDirectory,
  claudeCodeReferenceDirectory,
  startNodeProcess,
  type ProcessResult,
} from '@muster/test-utils';

/** The Claude Code 2.1.45 reference states kept in the repository. */
export const referenceDirectory = claudeCodeReferenceDirectory();

/** A child-process script in `src/test-fixtures/`. */
export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`./test-fixtures/${name}`, import.meta.url));
}

/**
 * Every folder and file under `directory` (relative paths, sorted) with file contents, so
 * two snapshots are equal exactly when nothing on disk changed.
 */
export async function snapshotTree(directory: string): Promise<Record<string, string>> {
  const tree: Record<string, string> = {};
  const walk = async (folder: string) => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries.sort((left, right) => left.name.localeCompare(right.name))) {
      const full = path.join(folder, entry.name);
      const relative = path.relative(directory, full);
      if (entry.isDirectory()) {
        tree[`${relative}/`] = '';
        await walk(full);
      } else {
        tree[relative] = await readFile(full, 'utf8');
      }
    }
  };
  await walk(directory);
  return tree;
}

/** The Claude Code 2.1.330 reference states kept in the repository. */
export const referenceDirectory2_1_330 = claudeCode2_1_330ReferenceDirectory();

/**
 * Copies a reference state (`teams/` and `tasks/`) into `root`, made writable; from the
 * 2.1.45 files unless another reference folder is given.
 */
export async function copyReferenceState(
  state: string,
  root: string,
  from: string = referenceDirectory,
): Promise<void> {
  await cp(path.join(from, state), root, { recursive: true });
  const makeWritable = async (folder: string) => {
    await chmod(folder, 0o755);
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await makeWritable(full);
      else await chmod(full, 0o644);
    }
  };
  await makeWritable(root);
}

/**
 * Starts one child per argument list, waits until each has printed "ready", then creates the
 * go file so they all start at once; resolves with every result (throws if any failed), the
 * "ready" line removed from stdout.
 */
export async function runAtOnce(
  script: string,
  argumentLists: string[][],
  goFile: string,
): Promise<ProcessResult[]> {
  const children = argumentLists.map((args) => startNodeProcess(script, [...args, goFile]));
  await Promise.all(children.map((child) => child.waitForLine((line) => line === 'ready')));
  await writeFile(goFile, '');
  const results = await Promise.all(children.map((child) => child.exited));
  const failed = results.find((result) => result.code !== 0);
  if (failed !== undefined) throw new Error(`a child failed: ${failed.stderr}`);
  return results.map((result) => ({ ...result, stdout: result.stdout.replace(/^ready\n/, '') }));
}
