// Small number helpers of bench/team.mjs.

/** `value` rounded to `digits` decimals. */
export const round = (value, digits = 2) => Number(value.toFixed(digits));

/** Bytes as MiB, two decimals. */
export const mebibytes = (bytes) => round(bytes / 1024 / 1024);

/** The `fraction` percentile of `values` (nearest rank). */
export function percentile(values, fraction) {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}

/** `{ samples, p50Ms, p99Ms, maxMs }` of `values` (milliseconds); zeros for no samples. */
export function summary(values) {
  if (values.length === 0) return { samples: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 };
  return {
    samples: values.length,
    p50Ms: round(percentile(values, 0.5)),
    p99Ms: round(percentile(values, 0.99)),
    maxMs: round(Math.max(...values)),
  };
}
