import { ProtocolError } from './errors.js';

/**
 * Reads `tasks/{team}/.highwatermark`: plain decimal text, no newline, the highest task id
 * ever deleted. An empty file (like a missing one) means 0. Surrounding whitespace is
 * tolerated; anything else throws `INVALID_INPUT` (guessing could hand an id out twice).
 */
export function parseHighWatermark(text: string, source = '.highwatermark'): number {
  const trimmed = text.trim();
  if (trimmed === '') return 0;
  if (!/^(0|[1-9][0-9]{0,14})$/.test(trimmed)) {
    throw new ProtocolError({
      code: 'INVALID_INPUT',
      message: `${source} should hold one whole number (the highest deleted task id), found ${JSON.stringify(text.slice(0, 40))}. Replace it with the highest task id ever used, or delete it.`,
      details: { source, text: text.slice(0, 200) },
    });
  }
  return Number(trimmed);
}

/** Writes a high watermark exactly as Claude Code does: the number, nothing else. */
export function formatHighWatermark(highestDeletedId: number): string {
  if (!Number.isSafeInteger(highestDeletedId) || highestDeletedId < 0) {
    throw new ProtocolError({
      code: 'INVALID_INPUT',
      message: `A high watermark is a whole number ≥ 0, got ${String(highestDeletedId)}.`,
      details: { value: highestDeletedId },
    });
  }
  return String(highestDeletedId);
}
