import type { BigIntStats } from 'node:fs';
import { closeSync, constants, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { errorCode } from './file-lock-error.js';
import { linkRefusedError } from './inside-root.js';
import type { ProcessIdentity } from './process-identity.js';

/**
 * Which lock directory a record (or a holder) means. ext4 hands a freed inode to the next
 * directory at once and creation times are coarse (one clock tick), so the holder also
 * stamps its directory: every modification time it sets carries the same random number of
 * microseconds within the millisecond. proper-lockfile (Claude Code) only looks at how old
 * the modification time is, so the stamp does not disturb it.
 */
export interface LockDirectoryIdentity {
  device: bigint;
  inode: bigint;
  /** Creation time in nanoseconds (0 where the file system does not record it). */
  birthtimeNs: bigint;
  /** Microseconds (1–999) within the millisecond of every mtime the holder sets; null
   * where the file system keeps coarser times than microseconds. */
  stamp: number | null;
}

/**
 * The owner record, `<file>.lock.owner`, written by muster beside the lock directory.
 * One line of JSON: `{version, pid, hostname, bootId?, startTime?, pidNamespace?,
 * lockDevice, lockInode, lockBirthtimeNs, lockStamp, acquiredAt}` (64-bit numbers as
 * decimal strings).
 */
export interface OwnerRecord extends ProcessIdentity {
  version: 1;
  lockDevice: string;
  lockInode: string;
  lockBirthtimeNs: string;
  lockStamp: number | null;
  acquiredAt: string;
}

/** A fresh random stamp, 1–999 microseconds. */
export function newStamp(): number {
  return 1 + Math.floor(Math.random() * 999);
}

/** The time `fs.utimes` should set (in seconds) for "now" carrying the stamp. */
export function stampedNowSeconds(stamp: number | null): number {
  const milliseconds = Date.now();
  if (stamp === null) return milliseconds / 1000;
  const nanoseconds = BigInt(milliseconds) * 1_000_000n + BigInt(stamp) * 1000n;
  // Half a microsecond more: the conversion through a double truncates towards zero.
  return Number(nanoseconds / 1_000_000_000n) + Number((nanoseconds % 1_000_000_000n) + 500n) / 1e9;
}

/** The stamp an mtime carries: its microseconds within the millisecond. */
export function stampOf(stats: BigIntStats): number {
  return Number((stats.mtimeNs / 1000n) % 1000n);
}

/** True when the stat'ed directory is the one the identity describes. */
export function matchesIdentity(stats: BigIntStats, identity: LockDirectoryIdentity): boolean {
  return (
    stats.dev === identity.device &&
    stats.ino === identity.inode &&
    stats.birthtimeNs === identity.birthtimeNs &&
    (identity.stamp === null || stampOf(stats) === identity.stamp)
  );
}

/** The lock-directory identity a record describes. */
export function recordIdentity(record: OwnerRecord): LockDirectoryIdentity {
  return {
    device: BigInt(record.lockDevice),
    inode: BigInt(record.lockInode),
    birthtimeNs: BigInt(record.lockBirthtimeNs),
    stamp: record.lockStamp,
  };
}

/** Builds the record for a holder and the directory it created. */
export function makeOwnerRecord(
  holder: ProcessIdentity,
  identity: LockDirectoryIdentity,
  acquiredAt: Date,
): OwnerRecord {
  return {
    version: 1,
    ...holder,
    lockDevice: identity.device.toString(),
    lockInode: identity.inode.toString(),
    lockBirthtimeNs: identity.birthtimeNs.toString(),
    lockStamp: identity.stamp,
    acquiredAt: acquiredAt.toISOString(),
  };
}

/**
 * Writes the record (a plain write: a reader that sees it half-written ignores it), never
 * through a link (`UNSAFE_PATH`).
 */
export function writeOwnerRecord(ownerPath: string, record: OwnerRecord): void {
  let descriptor: number;
  try {
    descriptor = openSync(
      ownerPath,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      0o644,
    );
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw linkRefusedError(ownerPath, undefined);
    throw error;
  }
  try {
    const bytes = Buffer.from(JSON.stringify(record), 'utf8');
    for (let written = 0; written < bytes.length;) {
      written += writeSync(descriptor, bytes, written, bytes.length - written);
    }
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Reads the record; undefined when it is missing, half-written or not ours to understand.
 * An unreadable record only means the waiter falls back to the mtime stale rule.
 */
export function readOwnerRecord(ownerPath: string): OwnerRecord | undefined {
  let text: string;
  let descriptor: number;
  try {
    descriptor = openSync(ownerPath, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    // A link is never followed: it describes no lock of ours.
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ELOOP') return undefined;
    throw error;
  }
  try {
    text = readFileSync(descriptor, 'utf8');
  } finally {
    closeSync(descriptor);
  }
  return parseOwnerRecord(text);
}

/** Parses and checks a record's text; undefined when it is not a valid version-1 record. */
export function parseOwnerRecord(text: string): OwnerRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Partial<OwnerRecord>;
  const isDecimal = (field: unknown) => typeof field === 'string' && /^\d+$/.test(field);
  if (
    record.version !== 1 ||
    typeof record.pid !== 'number' ||
    typeof record.hostname !== 'string' ||
    !isDecimal(record.lockDevice) ||
    !isDecimal(record.lockInode) ||
    !isDecimal(record.lockBirthtimeNs) ||
    (record.lockStamp !== null && typeof record.lockStamp !== 'number') ||
    (record.startTime !== undefined && typeof record.startTime !== 'string') ||
    (record.bootId !== undefined && typeof record.bootId !== 'string') ||
    (record.pidNamespace !== undefined && typeof record.pidNamespace !== 'string')
  ) {
    return undefined;
  }
  return record as OwnerRecord;
}

/** Removes the record, ignoring a record that is already gone. */
export function removeOwnerRecord(ownerPath: string): void {
  try {
    unlinkSync(ownerPath);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}

/** True when two identities name the same directory. */
export function sameIdentity(left: LockDirectoryIdentity, right: LockDirectoryIdentity): boolean {
  return (
    left.device === right.device &&
    left.inode === right.inode &&
    left.birthtimeNs === right.birthtimeNs &&
    left.stamp === right.stamp
  );
}

/**
 * Removes the record only when it describes `identity` (so a holder that lost its lock
 * never deletes the record of the process that has it now).
 */
export function removeOwnerRecordFor(ownerPath: string, identity: LockDirectoryIdentity): void {
  const record = readOwnerRecord(ownerPath);
  if (record !== undefined && sameIdentity(recordIdentity(record), identity)) {
    removeOwnerRecord(ownerPath);
  }
}
