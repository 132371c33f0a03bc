import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  readdirSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { discardTemporaryFile, identityOf } from './commit-record.js';
import type { InboxPaths } from './inbox-paths.js';
import { systemErrorCode } from './mailbox-error.js';

// A commit writes the new inbox to `<name>.json.tmp.<8 hex>` — the name Claude Code 2.1.330
// gives its own temp files — flushes it and renames it over the inbox. Synchronous calls:
// they run under the inbox lock (see spool.ts).

/**
 * Temp files younger than this are left alone by the stray clean-up (see
 * {@link removeStrayTemporaryFiles}).
 */
const strayAfterMs = 1_000;
/** Discarded temp files older than this are deleted (no record can still name them). */
const discardedLifetimeMs = 24 * 60 * 60 * 1000;

/**
 * Temp files of this inbox: `<name>.json.tmp.<8 hex>` (muster and Claude Code 2.1.330), and
 * `.<name>.json.<pid>.<12 hex>.tmp` (muster before 2.1.330 support).
 */
export function isTemporaryFileOf(paths: InboxPaths, name: string): boolean {
  const current = `${paths.inboxFileName}.tmp.`;
  if (name.startsWith(current)) return /^[0-9a-f]{8}$/.test(name.slice(current.length));
  const earlier = `.${paths.inboxFileName}.`;
  return name.startsWith(earlier) && /^\d+\.[0-9a-f]{12}\.tmp$/.test(name.slice(earlier.length));
}

/**
 * Moves every temp file of this inbox older than a second to `discarded/`. Called while
 * holding the lock, before anything is read: such a temp file belongs to a write that is not
 * running under the lock any more (its process died, or was paused and lost the lock), and
 * its rename must fail rather than overwrite what this transaction commits. Moved, not deleted, so that a
 * commit record naming it still reads as "not renamed" (see commit-record.ts). Discarded
 * files older than a day are deleted.
 */
export function removeStrayTemporaryFiles(paths: InboxPaths): void {
  let names: string[];
  try {
    names = readdirSync(paths.inboxesDirectory);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return;
    throw error;
  }
  const cutoff = Date.now() - strayAfterMs;
  for (const name of names) {
    if (!isTemporaryFileOf(paths, name)) continue;
    const file = path.join(paths.inboxesDirectory, name);
    // A young one may be another writer's that is not under the lock: the Python and Go
    // clients create a missing inbox by writing `.<name>.json.<pid>.<12 hex>.tmp` and linking
    // it into place, outside the lock. A holder that lost the lock while paused wrote its
    // temp file before the lock went stale (seconds ago), so it is never this young.
    const stats = lstatSync(file, { throwIfNoEntry: false });
    if (stats === undefined || stats.mtimeMs > cutoff) continue;
    discardTemporaryFile(paths, file);
  }
  deleteOldDiscardedFiles(paths);
}

function deleteOldDiscardedFiles(paths: InboxPaths): void {
  let names: string[];
  try {
    names = readdirSync(paths.discardedDirectory);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return;
    throw error;
  }
  const cutoff = Date.now() - discardedLifetimeMs;
  for (const name of names) {
    const file = path.join(paths.discardedDirectory, name);
    const stats = lstatSync(file, { throwIfNoEntry: false });
    if (stats !== undefined && stats.mtimeMs < cutoff) unlinkQuietly(file);
  }
}

/** Writes and flushes the next inbox as a new temp file; returns it and its identity. */
export function writeTemporaryInbox(paths: InboxPaths, text: string) {
  const file = path.join(
    paths.inboxesDirectory,
    `${paths.inboxFileName}.tmp.${randomBytes(4).toString('hex')}`,
  );
  const descriptor = paths.guard.open(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
    0o644,
  );
  try {
    writeFileSync(descriptor, text, 'utf8');
    fsyncSync(descriptor);
    return { file, identity: identityOf(fstatSync(descriptor, { bigint: true })) };
  } catch (error) {
    unlinkQuietly(file);
    throw error;
  } finally {
    closeSync(descriptor);
  }
}

/** Deletes a file; already gone is fine. */
export function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone: nothing depends on it.
  }
}
