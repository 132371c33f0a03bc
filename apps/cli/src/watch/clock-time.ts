// Kept apart from the ink components so plain commands (`muster inbox`) never load ink.

/** Local wall-clock time of an ISO timestamp, `HH:MM:SS`. */
export function clockTime(timestamp: string): string {
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return '--:--:--';
  return [date.getHours(), date.getMinutes(), date.getSeconds()]
    .map((part) => String(part).padStart(2, '0'))
    .join(':');
}
