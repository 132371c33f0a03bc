import { writeFileAtomic, type HeldLock } from '@muster/file-lock';
import { formatHighWatermark, parseHighWatermark } from '@muster/protocol';
import { asTaskError, TaskError } from './task-error.js';
import { readTextOrUndefined } from './task-file.js';

/**
 * Reads `tasks/{team}/.highwatermark`: the highest task id ever deleted, as plain decimal
 * text without a newline (Claude Code's format). A missing or empty file is 0. Anything else
 * that is not a whole number is `CORRUPT_FILE`: guessing 0 could hand out an id again.
 */
export async function readHighWatermark(file: string): Promise<number> {
  const text = await readTextOrUndefined(file);
  if (text === undefined || text.trim() === '') return 0;
  try {
    return parseHighWatermark(text, file);
  } catch (error) {
    throw new TaskError({
      code: 'CORRUPT_FILE',
      message: `${(error as Error).message} muster creates no task until it is fixed, so that no id is handed out twice.`,
      cause: error,
      details: { file },
    });
  }
}

/**
 * Raises the watermark to `taskId` when it is lower (never lowers it). Call it while holding
 * the team lock (`teamLock`, checked just before the write), before removing the task file,
 * so no create can reuse the id in between.
 */
export async function raiseHighWatermark(
  file: string,
  taskId: number,
  teamLock: HeldLock,
  root: string,
): Promise<void> {
  const current = await readHighWatermark(file);
  if (current >= taskId) return;
  try {
    await writeFileAtomic(file, formatHighWatermark(taskId), { heldLock: teamLock, root });
  } catch (error) {
    throw asTaskError(error, `raise the high watermark in ${file}`);
  }
}
