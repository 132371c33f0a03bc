import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { InboxSchema, safeValidate, type InboxMessage } from '@muster/protocol';
import type { InboxPaths } from './inbox-paths.js';
import { systemErrorCode } from './mailbox-error.js';

// A queued operation is one file, `{epochMs:15}-{pid}-{sequence:9}-{random}.json`, holding
// either a JSON array of inbox entries to append or a mark-read request (an object). Names
// sort in send order (exactly within a process, by millisecond across processes). A file
// moves spool → claimed → (deleted) — or to rejected — and never back, so "in neither
// folder" means its operation is in the inbox.
//
// These helpers use synchronous calls on purpose: each is one small metadata operation
// (microseconds), and a send makes a dozen of them; going through the thread pool for each
// costs far more than the call itself, and the lock is held meanwhile.

const spoolNamePattern = /^\d{15}-\d+-\d{9}-[0-9a-f]{8}\.json$/;
let sequence = 0;

/** A new, unique, time-ordered spool file name. */
export function newSpoolName(): string {
  sequence = (sequence + 1) % 1_000_000_000;
  return (
    `${String(Date.now()).padStart(15, '0')}-${process.pid}-` +
    `${String(sequence).padStart(9, '0')}-${randomBytes(4).toString('hex')}.json`
  );
}

/** When a spool file was written, from its name (epoch ms). */
export function spoolNameTime(name: string): number {
  return Number(name.slice(0, 15));
}

/** True for spool file names (temp files and anything else are ignored). */
export function isSpoolName(name: string): boolean {
  return spoolNamePattern.test(name);
}

/**
 * Which entries to mark read: every unread one, some indices, or delivered entries (found
 * by `msg_id` when given, else by index and digest). `remove`: take them out of the inbox
 * (into the archive) instead of marking them, as Claude Code 2.1.330 delivers.
 */
export type MarkTarget = (
  | { all: true }
  | { indices: readonly number[] }
  | { entries: ReadonlyArray<{ index: number; digest: string; messageId?: string }> }
) & { remove?: boolean };

/**
 * A queued mark-read request. `keepRead` is the requester's retention window for claimed
 * inboxes (`null`: no compaction; absent: the default).
 */
export type MarkRequest = MarkTarget & { kind: 'mark'; keepRead?: number | null };

/**
 * Entries to append. `deduplicate`: the sender named the `msg_id`s itself (a retry may
 * follow an unclear outcome), so the commit also looks for them in the message-id log and
 * the archive; ids already in the inbox are always skipped.
 */
export interface AppendRequest {
  kind: 'append';
  messages: InboxMessage[];
  deduplicate?: boolean;
}

/** What one spool file asks for. */
export type SpoolOperation = AppendRequest | MarkRequest;

/**
 * Writes an operation as a new spool file and returns its name. One create-and-write (no
 * temp file): a committer that reads the file before the write finished sees JSON that does
 * not parse and leaves a young file alone (see {@link readSpoolFile}). The folder must exist.
 */
export function writeSpoolFile(paths: InboxPaths, operation: SpoolOperation): string {
  const name = newSpoolName();
  // A plain append is the bare entry array (as before); one that deduplicates is an object.
  const content =
    operation.kind === 'append' && !operation.deduplicate ? operation.messages : operation;
  writeFileSync(path.join(paths.spoolDirectory, name), JSON.stringify(content), { flag: 'wx' });
  return name;
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone, or not ours to remove: nothing depends on it.
  }
}

/** Where one queued message is. */
export type SpoolState = 'pending' | 'committed' | 'rejected';

/**
 * Where a spooled file is now. Checked spool first, then claimed: a file only ever moves
 * forward, so not finding it in either means a committer deleted it after the inbox was
 * replaced — unless it was rejected as unparseable.
 */
export function spoolState(paths: InboxPaths, name: string): SpoolState {
  if (exists(path.join(paths.spoolDirectory, name))) return 'pending';
  if (exists(path.join(paths.claimedDirectory, name))) return 'pending';
  if (exists(path.join(paths.rejectedDirectory, name))) return 'rejected';
  return 'committed';
}

/** True while the file is still in the spool folder (no committer has taken it yet). */
export function isUnclaimed(paths: InboxPaths, name: string): boolean {
  return exists(path.join(paths.spoolDirectory, name));
}

/** Whether a name exists (a link is not followed). */
function exists(file: string): boolean {
  return lstatSync(file, { throwIfNoEntry: false }) !== undefined;
}

/** Spool file names waiting to be claimed, oldest first. Missing folder: none. */
export function listSpool(paths: InboxPaths): string[] {
  return listNames(paths.spoolDirectory);
}

/** Claimed file names (taken by a committer that may have crashed), oldest first. */
export function listClaimed(paths: InboxPaths): string[] {
  return listNames(paths.claimedDirectory);
}

function listNames(directory: string): string[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return [];
    throw error;
  }
  return names.filter(isSpoolName).sort();
}

/**
 * Moves a spool file to the claimed folder. False when it is gone (its sender withdrew it,
 * or another committer took it first).
 */
export function claimSpoolFile(paths: InboxPaths, name: string): boolean {
  try {
    renameSync(path.join(paths.spoolDirectory, name), path.join(paths.claimedDirectory, name));
    return true;
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Takes a spool file back before any committer claimed it. True when withdrawn (the entries
 * will never reach the inbox); false when a committer already has it.
 */
export function withdrawSpoolFile(paths: InboxPaths, name: string): boolean {
  const withdrawn = path.join(paths.spoolDirectory, `.${name}.withdrawn`);
  try {
    renameSync(path.join(paths.spoolDirectory, name), withdrawn);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return false;
    throw error;
  }
  unlinkQuietly(withdrawn);
  return true;
}

/** A spool or claimed file's operation, or the reason it does not parse. */
export type SpoolContent =
  { name: string; operation: SpoolOperation } | { name: string; problem: string };

/** Reads one spool file from `folder` (the spool or the claimed folder); undefined if gone. */
export function readSpoolFile(folder: string, name: string): SpoolContent | undefined {
  const file = path.join(folder, name);
  let value: unknown;
  try {
    value = JSON.parse(readWithoutFollowing(file));
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return undefined;
    if (systemErrorCode(error) === 'ELOOP') {
      return { name, problem: `${file} is a symbolic link, not a queued message (not followed)` };
    }
    return { name, problem: `${file} is not valid JSON (${(error as Error).message})` };
  }
  if (Array.isArray(value)) {
    const result = safeValidate(value, InboxSchema, file);
    return result.success
      ? { name, operation: { kind: 'append', messages: result.value } }
      : { name, problem: result.error.message };
  }
  if (isAppendRequest(value)) {
    const result = safeValidate(value.messages, InboxSchema, file);
    return result.success
      ? { name, operation: { kind: 'append', messages: result.value, deduplicate: true } }
      : { name, problem: result.error.message };
  }
  return isMarkRequest(value)
    ? { name, operation: value }
    : { name, problem: `${file} is neither a message list nor a mark-read request` };
}

function isAppendRequest(value: unknown): value is { kind: 'append'; messages: unknown[] } {
  if (typeof value !== 'object' || value === null) return false;
  const request = value as Record<string, unknown>;
  return (
    request.kind === 'append' && request.deduplicate === true && Array.isArray(request.messages)
  );
}

function readWithoutFollowing(file: string): string {
  const descriptor = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return readFileSync(descriptor, 'utf8');
  } finally {
    closeSync(descriptor);
  }
}

function isMarkRequest(value: unknown): value is MarkRequest {
  if (typeof value !== 'object' || value === null) return false;
  const request = value as Record<string, unknown>;
  if (request.kind !== 'mark') return false;
  if (request.keepRead !== undefined && request.keepRead !== null && !isCount(request.keepRead)) {
    return false;
  }
  if (request.remove !== undefined && typeof request.remove !== 'boolean') return false;
  if (request.all === true) return true;
  if (Array.isArray(request.indices)) return request.indices.every(isCount);
  if (Array.isArray(request.entries)) {
    return request.entries.every(
      (entry: unknown) =>
        typeof entry === 'object' &&
        entry !== null &&
        isCount((entry as { index?: unknown }).index) &&
        typeof (entry as { digest?: unknown }).digest === 'string' &&
        ['undefined', 'string'].includes(typeof (entry as { messageId?: unknown }).messageId),
    );
  }
  return false;
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** Moves an unparseable claimed file to the rejected folder (its sender is told). */
export function rejectClaimedFile(paths: InboxPaths, name: string): void {
  renameSync(path.join(paths.claimedDirectory, name), path.join(paths.rejectedDirectory, name));
}

/** Deletes spool files whose entries are in the inbox (recovery after a power cut). */
export function deleteSpoolFiles(paths: InboxPaths, names: readonly string[]): void {
  for (const name of names) {
    try {
      unlinkSync(path.join(paths.spoolDirectory, name));
    } catch (error) {
      if (systemErrorCode(error) !== 'ENOENT') throw error;
    }
  }
}

/** Deletes claimed files whose entries are in the inbox now. */
export function deleteClaimedFiles(paths: InboxPaths, names: readonly string[]): void {
  for (const name of names) {
    try {
      unlinkSync(path.join(paths.claimedDirectory, name));
    } catch (error) {
      if (systemErrorCode(error) !== 'ENOENT') throw error;
    }
  }
}
