import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';

/**
 * Creates a fresh temporary directory and removes it when the current test finishes.
 * Call it inside a test (or a `beforeEach`), never at module level.
 */
export async function makeTempDirectory(prefix = 'muster-test-'): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), prefix));
  onTestFinished(async () => {
    await rm(directory, { recursive: true, force: true, maxRetries: 3 });
  });
  return directory;
}

/** Same as {@link makeTempDirectory} but the caller removes it (for `beforeAll` use). */
export async function makeUnmanagedTempDirectory(prefix = 'muster-test-'): Promise<{
  path: string;
  remove: () => Promise<void>;
}> {
  const directory = await mkdtemp(path.join(tmpdir(), prefix));
  return {
    path: directory,
    remove: () => rm(directory, { recursive: true, force: true, maxRetries: 3 }),
  };
}
