import { chmod, cp, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeCodeReferenceDirectory, makeTempDirectory } from '@muster/test-utils';

/** The monorepo root (…/apps/cli/src/test-support → …). */
export const repositoryRoot = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../..',
);

/** The built CLI every process test runs. */
export const builtCli = path.join(repositoryRoot, 'apps/cli/dist/cli.js');

/** Claude Code 2.1.45's reference files, kept in the repository (`fixtures/…`). */
export const referenceDirectory = claudeCodeReferenceDirectory();

/** The two whole states of a Claude Code team the reference holds. */
export type ReferenceState = '06-all-teammates-spawned' | '11-all-shutdowns-approved';

async function makeWritable(directory: string): Promise<void> {
  await chmod(directory, 0o755);
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const file = path.join(directory, entry.name);
    if (entry.isDirectory()) await makeWritable(file);
    else await chmod(file, 0o644);
  }
}

/**
 * Copies a reference state into a fresh temp directory (removed after the test) and returns
 * it, ready to be used as a root: the reference files themselves are read-only. The copy's
 * files get fresh modification times.
 */
export async function copyReferenceState(state: ReferenceState): Promise<string> {
  const source = path.join(referenceDirectory, state);
  const root = await makeTempDirectory('muster-cli-reference-');
  await cp(source, root, { recursive: true, preserveTimestamps: false });
  await makeWritable(root);
  return root;
}

/** True when the built CLI exists (tests explain how to build it otherwise). */
export async function assertBuilt(): Promise<void> {
  try {
    await stat(builtCli);
  } catch {
    throw new Error(
      `${builtCli} is missing: run "pnpm --filter @muster/cli build" before the tests.`,
    );
  }
}
