import { lstatSync, renameSync, unlinkSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import type { InboxPaths } from './inbox-paths.js';
import { systemErrorCode } from './mailbox-error.js';
import { syncDirectory } from './safe-files.js';
import { deleteClaimedFiles, deleteSpoolFiles } from './spool.js';

// A commit replaces the inbox with a temp file. Before that rename, the committer writes
// `commit.json` naming the temp file's identity (device, inode, birth time), the claimed
// spool files going in, and any archive lines going out. Whoever takes the lock next and
// finds a record can tell from the inbox's identity whether the rename happened:
// - it did: finish the work (delete those claimed files, make sure the archive lines are
//   there exactly once) — so a crash between rename and clean-up never duplicates;
// - it did not: drop the record and the temp file; the claimed files go into the next
//   commit — so a crash before the rename never loses.
// Synchronous calls: see spool.ts.
// A rewrite by another program (Claude Code 2.1.330 replaces the inbox by rename too) gives
// the inbox a new identity, so a mismatch alone does not prove the rename never happened.
// The temp file decides then: a commit that did not rename leaves it in place, or it was
// moved to `discarded/` (by its holder, a later holder's stray clean-up, or recovery) —
// never deleted while a record may name it. Gone from both places means it became the
// inbox.
// Archive lines (and message-id lines) are appended only after the rename, so an
// unfinished commit never leaves such lines behind. The record is written in place: a record that does not parse was
// cut short by a crash, which happened before the rename, so it means "not committed".

/** What a committer is about to do. */
export interface CommitRecord {
  version: 1;
  /** The temp file that will become the inbox. */
  temporaryFile: string;
  device: string;
  inode: string;
  birthtimeNs: string;
  /** Claimed spool file names whose entries the temp file holds. */
  claimed: string[];
  /** Lines for the archive: appended at `sizeBefore` after the rename. */
  archive?: AppendChunk;
  /** `msg_id`s the new inbox adds, for the message-id log: appended after the rename. */
  messageIds?: AppendChunk;
}

/** Lines to append to a file at a known size, exactly once. */
export interface AppendChunk {
  sizeBefore: number;
  lines: string;
}

/** Where a temp file that will never be renamed is put (see the note at the top). */
export function discardedPathOf(paths: InboxPaths, temporaryFile: string): string {
  return path.join(paths.discardedDirectory, path.basename(temporaryFile));
}

/**
 * Moves a temp file that must never become the inbox to `discarded/` (so a record naming it
 * reads as "not renamed"). False when it is gone already.
 */
export function discardTemporaryFile(paths: InboxPaths, temporaryFile: string): boolean {
  paths.guard.ensureDirectory(paths.discardedDirectory);
  try {
    renameSync(temporaryFile, discardedPathOf(paths, temporaryFile));
    return true;
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return false;
    throw error;
  }
}

/** Identity fields of a file, for the record. */
export function identityOf(stats: BigIntStats) {
  return {
    device: stats.dev.toString(),
    inode: stats.ino.toString(),
    birthtimeNs: stats.birthtimeNs.toString(),
  };
}

/** Writes the record (in place; see above for why a torn record is harmless). */
export function writeCommitRecord(paths: InboxPaths, record: CommitRecord): void {
  // Durable before the rename it describes: otherwise a power cut could keep the rename
  // and lose the record, and the claimed files would be committed a second time.
  paths.guard.writeText(paths.commitRecord, JSON.stringify(record), { durable: true });
  syncDirectory(paths.sidecarDirectory);
}

/** Deletes the record once its commit is complete. */
export function removeCommitRecord(paths: InboxPaths): void {
  try {
    unlinkSync(paths.commitRecord);
  } catch (error) {
    if (systemErrorCode(error) !== 'ENOENT') throw error;
  }
}

/** What recovery found. */
export type RecoveryOutcome = 'none' | 'completed' | 'discarded';

/**
 * Finishes or discards the commit an earlier holder left unfinished. Call it first thing
 * while holding the inbox lock.
 */
export function recoverUnfinishedCommit(paths: InboxPaths): RecoveryOutcome {
  const read = paths.guard.readText(paths.commitRecord);
  if (read === undefined) return 'none';
  const record = parseRecord(read.text);
  if (record === undefined) {
    removeCommitRecord(paths);
    return 'discarded';
  }
  const current = lstatSync(paths.inbox, { bigint: true, throwIfNoEntry: false });
  const discarded = discardedPathOf(paths, record.temporaryFile);
  const isTheInbox =
    current !== undefined &&
    current.dev.toString() === record.device &&
    current.ino.toString() === record.inode &&
    current.birthtimeNs.toString() === record.birthtimeNs;
  const renamed =
    isTheInbox ||
    (lstatSync(record.temporaryFile, { throwIfNoEntry: false }) === undefined &&
      lstatSync(discarded, { throwIfNoEntry: false }) === undefined);
  if (renamed) {
    deleteClaimedFiles(paths, record.claimed);
    // A claim (spool → claimed) is not flushed: after a power cut a committed file may be
    // back in the spool folder. It is in the inbox, so it goes.
    deleteSpoolFiles(paths, record.claimed);
    syncDirectory(paths.claimedDirectory);
    if (record.archive !== undefined) appendArchiveExactlyOnce(paths, record.archive);
    if (record.messageIds !== undefined) {
      appendExactlyOnce(paths, paths.messageIdLog, record.messageIds);
    }
    removeCommitRecord(paths);
    return 'completed';
  }
  // Not renamed: the temp file goes to `discarded/` first, so that a crash before the record
  // is gone still reads as "not renamed"; the marker goes last.
  discardTemporaryFile(paths, record.temporaryFile);
  removeCommitRecord(paths);
  unlinkQuietly(discarded);
  return 'discarded';
}

/**
 * Makes the archive end with `lines` written at `sizeBefore`: appends them unless they are
 * already all there, first cutting off a partial append.
 */
export function appendArchiveExactlyOnce(paths: InboxPaths, chunk: AppendChunk): void {
  appendExactlyOnce(paths, paths.archive, chunk);
}

/** {@link appendArchiveExactlyOnce} for any append-only file of this inbox. */
export function appendExactlyOnce(paths: InboxPaths, file: string, chunk: AppendChunk): void {
  const size = fileSize(paths, file);
  const expected = chunk.sizeBefore + Buffer.byteLength(chunk.lines);
  if (size === expected) return;
  // Cut off a partial append (or nothing), then write the lines at `sizeBefore`.
  paths.guard.writeAt(file, Math.min(size, chunk.sizeBefore), chunk.lines, {
    durable: true,
  });
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone: nothing depends on it.
  }
}

/** A file's size, never through a link; 0 when it does not exist. */
export function fileSize(paths: InboxPaths, file: string): number {
  return paths.guard.size(file);
}

function parseRecord(text: string): CommitRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const record = value as Partial<CommitRecord> | null;
  if (
    record === null ||
    typeof record !== 'object' ||
    record.version !== 1 ||
    typeof record.temporaryFile !== 'string' ||
    typeof record.device !== 'string' ||
    typeof record.inode !== 'string' ||
    typeof record.birthtimeNs !== 'string' ||
    !Array.isArray(record.claimed)
  ) {
    return undefined;
  }
  return record as CommitRecord;
}
