// Helpers shared by this package's tests (not part of the public API).
import { access, chmod, cp, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeCodeReferenceDirectory } from '@muster/test-utils';

/** The monorepo root: the nearest folder above this file holding pnpm-workspace.yaml. */
export async function findRepositoryRoot(): Promise<string> {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      await access(path.join(directory, 'pnpm-workspace.yaml'));
      return directory;
    } catch {
      const parent = path.dirname(directory);
      if (parent === directory) throw new Error('pnpm-workspace.yaml not found above the tests');
      directory = parent;
    }
  }
}

/** The Claude Code 2.1.45 reference files kept in the repository (`fixtures/claude-code-2.1.45`). */
export async function findReferenceDirectory(): Promise<string> {
  return claudeCodeReferenceDirectory();
}

/**
 * Copies a reference state (`teams/`, `tasks/`) into `root`, made writable (the originals are
 * read-only); from the 2.1.45 files unless another reference folder is given.
 */
export async function copyReferenceState(
  state: string,
  root: string,
  from?: string,
): Promise<void> {
  const reference = from ?? (await findReferenceDirectory());
  await cp(path.join(reference, state), root, { recursive: true });
  await makeWritable(root);
}

async function makeWritable(target: string): Promise<void> {
  const stats = await stat(target);
  await chmod(target, stats.isDirectory() ? 0o755 : 0o644);
  if (!stats.isDirectory()) return;
  for (const name of await readdir(target)) await makeWritable(path.join(target, name));
}

/** Every file (path → content) and folder (path → `<dir>`) under `root`, for before/after checks. */
export async function snapshotTree(root: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const walk = async (directory: string) => {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      const relative = path.relative(root, full);
      if (entry.isDirectory()) {
        result[relative] = '<dir>';
        await walk(full);
      } else {
        result[relative] = await readFile(full, 'utf8');
      }
    }
  };
  await walk(root);
  return result;
}
