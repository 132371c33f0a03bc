import { readFile, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { defaultStaleMs, isProcessAlive, parseOwnerRecord } from '@muster/file-lock';

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
 * Judges a proper-lockfile lock directory (`<file>.lock`) the way `@muster/file-lock` does:
 * abandoned when muster's owner record (`<file>.lock.owner`) names a process on this machine
 * that is gone, or when its modification time is older than the stale time (holders refresh
 * it every few seconds, Claude Code included).
 */
export async function inspectLockDirectory(
  lockDirectory: string,
  staleMs: number = defaultStaleMs,
  now: number = Date.now(),
): Promise<LockVerdict> {
  let modifiedAt: number;
  try {
    modifiedAt = (await stat(lockDirectory)).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    throw error;
  }
  const ageMs = Math.max(0, now - modifiedAt);
  let ownerText: string | undefined;
  try {
    ownerText = await readFile(`${lockDirectory}.owner`, 'utf8');
  } catch {
    ownerText = undefined;
  }
  const owner = ownerText === undefined ? undefined : parseOwnerRecord(ownerText);
  if (owner !== undefined && owner.hostname === hostname() && !isProcessAlive(owner.pid)) {
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
