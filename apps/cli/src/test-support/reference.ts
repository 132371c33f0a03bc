import { chmod, cp, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  claudeCode2_1_330ReferenceDirectory,
  claudeCodeReferenceDirectory,
  makeTempDirectory,
} from '@muster/test-utils';

/** The monorepo root (…/apps/cli/src/test-support → …). */
export const repositoryRoot = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../..',
);

/** The built CLI every process test runs. */
export const builtCli = path.join(repositoryRoot, 'apps/cli/dist/cli.js');

/** Claude Code 2.1.45's reference files, kept in the repository (`fixtures/…`). */
export const referenceDirectory = claudeCodeReferenceDirectory();

/** Claude Code 2.1.330's reference files, kept in the repository (`fixtures/…`). */
export const referenceDirectory2_1_330 = claudeCode2_1_330ReferenceDirectory();

/** The two whole states of a Claude Code 2.1.45 team the reference holds. */
export type ReferenceState = '06-all-teammates-spawned' | '11-all-shutdowns-approved';

/** The three whole states of Claude Code 2.1.330 session teams the reference holds. */
export type ReferenceState2_1_330 =
  | 'in-process-07-all-teammates-spawned'
  | 'in-process-13-all-teammates-removed-after-shutdown'
  | 'tmux-08-permission-answered';

/** Every 2.1.330 reference state, for tests that go through all of them. */
export const REFERENCE_STATES_2_1_330: readonly ReferenceState2_1_330[] = [
  'in-process-07-all-teammates-spawned',
  'in-process-13-all-teammates-removed-after-shutdown',
  'tmux-08-permission-answered',
];

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
export async function copyReferenceState(
  state: ReferenceState | ReferenceState2_1_330,
): Promise<string> {
  const source = (REFERENCE_STATES_2_1_330 as readonly string[]).includes(state)
    ? path.join(referenceDirectory2_1_330, state)
    : path.join(referenceDirectory, state);
  const root = await makeTempDirectory('muster-cli-reference-');
  await cp(source, root, { recursive: true, preserveTimestamps: false });
  await makeWritable(root);
  return root;
}

/** One entry of the 2.1.330 reference's `protocol/` folder (`protocol/<name>.json`), parsed. */
export async function referenceEntry2_1_330(name: string): Promise<Record<string, unknown>> {
  const file = path.join(referenceDirectory2_1_330, 'protocol', `${name}.json`);
  return JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
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
