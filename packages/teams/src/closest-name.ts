/** Edit distance between two strings (insertions, deletions, substitutions). */
function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= right.length; column += 1) {
      const substitution = previous[column - 1]! + (left[row - 1] === right[column - 1] ? 0 : 1);
      current.push(Math.min(previous[column]! + 1, current[column - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length]!;
}

/**
 * The candidate closest to `wanted` (case-insensitive edit distance), or undefined when none
 * is close enough to be a plausible typo (distance above half the longer name).
 */
export function closestName(wanted: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  const target = wanted.toLowerCase();
  for (const candidate of candidates) {
    const distance = editDistance(target, candidate.toLowerCase());
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  if (best === undefined) return undefined;
  const limit = Math.ceil(Math.max(target.length, best.name.length) / 2);
  return best.distance <= limit ? best.name : undefined;
}
