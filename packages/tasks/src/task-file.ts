import { closeSync, constants, readFileSync } from 'node:fs';
import { readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { openInsideRoot, syncDirectory, writeFileAtomic, type HeldLock } from '@muster/file-lock';
import {
  detectJsonFileStyle,
  formatJsonFile,
  safeParseJsonFile,
  TaskSchema,
  type Task,
} from '@muster/protocol';
import { asTaskError, systemErrorCode, TaskError } from './task-error.js';

/** A task as read from disk, with the exact text it came from. */
export interface TaskFileRead {
  task: Task;
  text: string;
}

/** Matches the name of a task file: `{id}.json` with a canonical id. */
const TASK_FILE_NAME = /^([1-9][0-9]{0,14})\.json$/;
/** How long to wait before re-reading a file that did not parse (a writer may be mid-write). */
const REREAD_DELAY_MS = 20;

/** The task id a file name stands for, or undefined when it is not `{id}.json`. */
export function taskIdFromFileName(fileName: string): string | undefined {
  return TASK_FILE_NAME.exec(fileName)?.[1];
}

/**
 * Parses a task file's text and checks it: valid JSON, the Task schema, and an `id` equal to
 * the file's own id. Returns the parsed object itself (unknown keys kept in their order).
 */
export function parseTaskText(text: string, taskId: string, file: string): Task {
  const result = safeParseJsonFile(text, TaskSchema, file);
  if (!result.success) {
    throw new TaskError({
      code: 'CORRUPT_FILE',
      message:
        `The task file ${file} is not a valid task: ${result.error.message} ` +
        'muster leaves it untouched; fix it by hand or delete it.',
      cause: result.error,
      details: { file, taskId },
    });
  }
  if (result.value.id !== taskId) {
    throw new TaskError({
      code: 'CORRUPT_FILE',
      message:
        `The task file ${file} says its id is ${JSON.stringify(result.value.id)}, but its name says ` +
        `${JSON.stringify(taskId)}. muster leaves it untouched; fix the id or the file name by hand.`,
      details: { file, taskId, idInFile: result.value.id },
    });
  }
  return result.value;
}

/**
 * Reads and validates one task file; `undefined` when it does not exist. A file that does not
 * parse is read once more after a short pause (Claude Code rewrites files in place, so a
 * reader without the lock may catch one half-written) before `CORRUPT_FILE` is thrown.
 */
export async function readTaskFile(
  file: string,
  taskId: string,
): Promise<TaskFileRead | undefined> {
  let text = await readTextOrUndefined(file);
  if (text === undefined) return undefined;
  try {
    return { task: parseTaskText(text, taskId, file), text };
  } catch (error) {
    await new Promise((resolve) => setTimeout(resolve, REREAD_DELAY_MS));
    const again = await readTextOrUndefined(file);
    if (again === undefined) return undefined;
    if (again === text) throw error;
    text = again;
    return { task: parseTaskText(text, taskId, file), text };
  }
}

/**
 * Reads a file as UTF-8; `undefined` when it is missing. Task files are small and the
 * synchronous read is several times faster than the thread-pool round trips of
 * `fs/promises` (it matters when listing thousands of tasks).
 */
export async function readTextOrUndefined(file: string): Promise<string | undefined> {
  let descriptor: number;
  try {
    // Never through a link (UNSAFE_PATH): the folders on the way are checked per operation.
    descriptor = openInsideRoot(undefined, file, constants.O_RDONLY);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return undefined;
    throw asTaskError(error, `read ${file}`);
  }
  try {
    return readFileSync(descriptor, 'utf8');
  } catch (error) {
    throw asTaskError(error, `read ${file}`);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Serializes a task the way Claude Code writes it (two-space JSON, no trailing newline),
 * keeping a trailing newline only when the file being replaced had one.
 */
export function serializeTask(task: Task, previousText?: string): string {
  return previousText === undefined
    ? formatJsonFile(task)
    : formatJsonFile(task, detectJsonFileStyle(previousText));
}

/** Validates a task about to be written; a bug or bad input must never reach the disk. */
export function assertWritableTask(task: Task, file: string): void {
  const result = TaskSchema.safeParse(task);
  if (!result.success) {
    const problems = result.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`)
      .join('; ');
    throw new TaskError({
      code: 'INVALID_INPUT',
      message: `Refusing to write ${file}: the result would not be a valid task (${problems}). Check the values passed in.`,
      details: { file, issues: result.error.issues },
    });
  }
}

/**
 * Replaces a task file atomically (and durably) after validating the task; with `root`
 * (pass `context.layout.root`) no link below the root is followed. `lock` is the lock the write
 * happens under: checked just before the rename, so a process paused past the stale time
 * fails with `LOCK_LOST` instead of writing its old view over a newer claim.
 */
export async function writeTaskFile(
  file: string,
  task: Task,
  previousText: string | undefined,
  lock: HeldLock,
  root?: string,
): Promise<void> {
  assertWritableTask(task, file);
  try {
    const options = root === undefined ? { heldLock: lock } : { heldLock: lock, root };
    await writeFileAtomic(file, serializeTask(task, previousText), options);
  } catch (error) {
    throw asTaskError(error, `write the task file ${file}`);
  }
}

/** Removes a task file (flushing its folder); a file that is already gone is fine. */
export async function removeTaskFile(file: string): Promise<void> {
  try {
    await unlink(file);
    syncDirectory(path.dirname(file));
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return;
    throw asTaskError(error, `remove the task file ${file}`);
  }
}

/** Every entry name in the task folder; empty when the folder does not exist. */
export async function readTaskFolder(directory: string): Promise<string[]> {
  try {
    return await readdir(directory);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return [];
    throw asTaskError(error, `list the task folder ${directory}`);
  }
}

/** The highest id among the folder's `{id}.json` files (0 when there are none). */
export function highestTaskIdOnDisk(entryNames: readonly string[]): number {
  let highest = 0;
  for (const name of entryNames) {
    const id = taskIdFromFileName(name);
    if (id !== undefined) highest = Math.max(highest, Number(id));
  }
  return highest;
}

/** Numeric order of task ids (`"2"` before `"10"`). */
export function compareTaskIds(left: string, right: string): number {
  return Number(left) - Number(right);
}
