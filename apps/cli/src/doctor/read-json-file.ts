import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** A JSON file as the doctor saw it. */
export type JsonFileReading =
  | { outcome: 'parsed'; value: unknown; text: string }
  | { outcome: 'unparseable'; reason: string; text: string }
  | { outcome: 'unreadable'; reason: string };

const RETRY_DELAY_MS = 60;

/**
 * Reads and parses a JSON file. Claude Code rewrites inboxes in place, so a file read in the
 * middle of a write can be cut short: a file that does not parse is read once more after a
 * short pause before it is called broken.
 */
export async function readJsonFile(file: string): Promise<JsonFileReading> {
  let last: JsonFileReading | undefined;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    if (attempt > 0) await sleep(RETRY_DELAY_MS);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      return { outcome: 'unreadable', reason: (error as Error).message };
    }
    try {
      return { outcome: 'parsed', value: JSON.parse(text) as unknown, text };
    } catch (error) {
      last = { outcome: 'unparseable', reason: (error as Error).message, text };
    }
  }
  return last!;
}
