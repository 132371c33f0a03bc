import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file sits in `packages/test-utils/src` or `…/dist`). */
const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * The files Claude Code 2.1.45 wrote during a real team run, kept in the repository at
 * `fixtures/claude-code-2.1.45` (see `fixtures/README.md`). Throws a clear error when the
 * folder is missing, which only happens in a damaged checkout.
 */
export function claudeCodeReferenceDirectory(): string {
  const folder = path.join(repositoryRoot, 'fixtures', 'claude-code-2.1.45');
  const marker = path.join(folder, '06-all-teammates-spawned', 'teams', 'conf-team', 'config.json');
  if (!existsSync(marker)) {
    throw new Error(
      `The Claude Code reference files are missing: expected ${marker}. They are part of the ` +
        'repository (fixtures/claude-code-2.1.45); restore them with git.',
    );
  }
  return folder;
}

/**
 * The files Claude Code 2.1.330 wrote during real session-team runs (an in-process team and
 * a tmux-pane team), its protocol entries and its tool input schemas, kept in the repository
 * at `fixtures/claude-code-2.1.330` (see `fixtures/README.md`). Throws a clear error when the
 * folder is missing, which only happens in a damaged checkout.
 */
export function claudeCode2_1_330ReferenceDirectory(): string {
  const folder = path.join(repositoryRoot, 'fixtures', 'claude-code-2.1.330');
  const marker = path.join(folder, 'protocol', 'signature-example.json');
  if (!existsSync(marker)) {
    throw new Error(
      `The Claude Code 2.1.330 reference files are missing: expected ${marker}. They are part ` +
        'of the repository (fixtures/claude-code-2.1.330); restore them with git.',
    );
  }
  return folder;
}
