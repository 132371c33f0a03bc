import { writeFileAtomic } from '@muster/file-lock';
import { asTaskError, TaskError } from './task-error.js';
import { readTextOrUndefined } from './task-file.js';

/**
 * Reads `tasks/{team}/.highwatermark`: the highest task id ever deleted, as plain decimal
 * text without a newline (Claude Code's format). A missing or empty file is 0. Anything else
 * that is not a whole number is `CORRUPT_FILE`: guessing 0 could hand out an id again.
 */
export async function readHighWatermark(file: string): Promise<number> {
  const text = await readTextOrUndefined(file);
  if (text === undefined) return 0;
  const trimmed = text.trim();
  if (trimmed === '') return 0;
  if (!/^[0-9]{1,15}$/.test(trimmed)) {
    throw new TaskError({
      code: 'CORRUPT_FILE',
      message:
        `${file} should hold one whole number (the highest deleted task id), found ` +
        `${JSON.stringify(text.slice(0, 40))}. Replace it with the highest task id this team ` +
        'ever used; muster will not guess, so that no id is handed out twice.',
      details: { file },
    });
  }
  return Number(trimmed);
}

/**
 * Raises the watermark to `taskId` when it is lower (never lowers it). Call it while holding
 * the team lock, before removing the task file, so no create can reuse the id in between.
 */
export async function raiseHighWatermark(file: string, taskId: number): Promise<void> {
  const current = await readHighWatermark(file);
  if (current >= taskId) return;
  try {
    await writeFileAtomic(file, String(taskId));
  } catch (error) {
    throw asTaskError(error, `raise the high watermark in ${file}`);
  }
}
