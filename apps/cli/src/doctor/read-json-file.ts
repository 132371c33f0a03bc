import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** A JSON file as the doctor saw it. */
export type JsonFileReading =
  | { outcome: 'parsed'; value: unknown; text: string }
  | { outcome: 'unparseable'; reason: string; text: string; attempts: number }
  | { outcome: 'unreadable'; reason: string };

/**
 * Pauses between reads of a file that does not parse: about 1.5 s in all. Claude Code
 * rewrites inboxes in place (truncate, then write), so a reader can meet an empty or
 * half-written file for as long as the write takes on a loaded machine.
 */
const RETRY_DELAYS_MS = [50, 100, 200, 400, 750];

/**
 * Reads and parses a JSON file. A file that is empty or does not parse is read again after
 * short pauses (bounded, {@link RETRY_DELAYS_MS}) before it is called broken, so a file in
 * the middle of an in-place rewrite is judged by what the writer leaves, not by the moment.
 */
export async function readJsonFile(file: string): Promise<JsonFileReading> {
  let last: JsonFileReading | undefined;
  for (let attempt = 0; attempt <= RETRY_DELAYS_MS.length; attempt += 1) {
    if (attempt > 0) await sleep(RETRY_DELAYS_MS[attempt - 1]!);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      return { outcome: 'unreadable', reason: (error as Error).message };
    }
    try {
      if (text.trim() === '') throw new Error('the file is empty');
      return { outcome: 'parsed', value: JSON.parse(text) as unknown, text };
    } catch (error) {
      last = {
        outcome: 'unparseable',
        reason: (error as Error).message,
        text,
        attempts: attempt + 1,
      };
    }
  }
  return last!;
}
