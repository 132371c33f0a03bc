import type { BigIntStats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import {
  defaultStaleMs,
  isRecordedProcessDead,
  parseOwnerRecord,
  type OwnerRecord,
} from '@muster/file-lock';

/** A duration in the largest whole unit that fits: `12 s`, `5 min`, `3 h`, `40 days`. */
export function describeDuration(milliseconds: number): string {
  const seconds = Math.round(milliseconds / 1000);
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}

/** What the doctor concludes about one lock directory. */
export type LockVerdict =
  | { state: 'live'; ageMs: number; pid?: number }
  | { state: 'stale'; ageMs: number; reason: string; pid?: number }
  | { state: 'missing' };

/**
 * True when an owner record was written for this very lock directory: same device, inode
 * and creation time, and (where the file system keeps microseconds) the holder's stamp in
 * the directory's modification time. A record left beside a lock that someone else (Claude
 * Code, which writes no record) created afterwards describes another directory.
 */
export function ownerRecordDescribes(record: OwnerRecord, stats: BigIntStats): boolean {
  try {
    const stampMatches =
      record.lockStamp === null || Number((stats.mtimeNs / 1000n) % 1000n) === record.lockStamp;
    return (
      stats.dev === BigInt(record.lockDevice) &&
      stats.ino === BigInt(record.lockInode) &&
      stats.birthtimeNs === BigInt(record.lockBirthtimeNs) &&
      stampMatches
    );
  } catch {
    return false;
  }
}

/**
 * Judges a proper-lockfile lock directory (`<file>.lock`) the way `@muster/file-lock` does:
 * abandoned when muster's owner record (`<file>.lock.owner`) was written for this lock
 * directory and names a process that is certainly gone, or when its modification time is
 * older than the stale time (holders refresh it every few seconds, Claude Code included).
 * An owner record that describes an earlier lock directory says nothing about this one.
 */
export async function inspectLockDirectory(
  lockDirectory: string,
  staleMs: number = defaultStaleMs,
  now: number = Date.now(),
): Promise<LockVerdict> {
  let stats: BigIntStats;
  try {
    stats = await stat(lockDirectory, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    throw error;
  }
  const ageMs = Math.max(0, now - Number(stats.mtimeMs));
  let ownerText: string | undefined;
  try {
    ownerText = await readFile(`${lockDirectory}.owner`, 'utf8');
  } catch {
    ownerText = undefined;
  }
  const record = ownerText === undefined ? undefined : parseOwnerRecord(ownerText);
  const owner = record !== undefined && ownerRecordDescribes(record, stats) ? record : undefined;
  if (owner !== undefined && isRecordedProcessDead(owner)) {
    return {
      state: 'stale',
      ageMs,
      pid: owner.pid,
      reason: `its owner, process ${owner.pid}, is no longer running`,
    };
  }
  if (ageMs > staleMs) {
    return {
      state: 'stale',
      ageMs,
      ...(owner ? { pid: owner.pid } : {}),
      reason: `it has not been refreshed for ${describeDuration(ageMs)} (a holder refreshes it at least every ${describeDuration(staleMs / 2)})`,
    };
  }
  return { state: 'live', ageMs, ...(owner ? { pid: owner.pid } : {}) };
}
