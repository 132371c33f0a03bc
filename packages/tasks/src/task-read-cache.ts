import { lstatSync, type Stats } from 'node:fs';
import type { Task } from '@muster/protocol';
import { asTaskError, systemErrorCode } from './task-error.js';
import { readTaskFile } from './task-file.js';

/** A parsed task and the identity of the file version it came from. */
interface CachedTask {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  task: Task;
}

/**
 * Parsed tasks of one store, keyed by id, reused while the file's identity (inode, size,
 * mtime, ctime) is unchanged. muster replaces files by rename (a new inode) and Claude Code
 * rewrites them in place (a new mtime), so any write is noticed. Only listings use it:
 * every decision (claim, update, delete) re-reads the file under its lock.
 */
export type TaskReadCache = Map<string, CachedTask>;

/** A new, empty cache. */
export function createTaskReadCache(): TaskReadCache {
  return new Map();
}

/**
 * Reads a task through the cache: one `stat` when the file is unchanged, a full read and
 * validation otherwise. The returned task is frozen (it is shared between listings).
 */
export async function readTaskThroughCache(
  cache: TaskReadCache,
  file: string,
  taskId: string,
): Promise<Task | undefined> {
  let stats: Stats | undefined;
  try {
    stats = lstatSync(file, { throwIfNoEntry: false });
  } catch (error) {
    if (systemErrorCode(error) !== 'ENOENT') throw asTaskError(error, `check ${file}`);
  }
  if (stats === undefined) {
    cache.delete(taskId);
    return undefined;
  }
  const cached = cache.get(taskId);
  if (
    cached !== undefined &&
    cached.ino === stats.ino &&
    cached.size === stats.size &&
    cached.mtimeMs === stats.mtimeMs &&
    cached.ctimeMs === stats.ctimeMs
  ) {
    return cached.task;
  }
  cache.delete(taskId);
  const read = await readTaskFile(file, taskId);
  if (read === undefined) return undefined;
  const task = deepFreeze(read.task);
  // The identity from before the read: if the file changed in between, the next stat differs
  // and the task is read again.
  cache.set(taskId, {
    ino: stats.ino,
    size: stats.size,
    mtimeMs: stats.mtimeMs,
    ctimeMs: stats.ctimeMs,
    task,
  });
  return task;
}

/** Drops entries for ids that are no longer on disk. */
export function pruneTaskReadCache(cache: TaskReadCache, presentIds: ReadonlySet<string>): void {
  for (const taskId of cache.keys()) if (!presentIds.has(taskId)) cache.delete(taskId);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
