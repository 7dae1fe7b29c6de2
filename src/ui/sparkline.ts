/** The eight bars of a sparkline, lowest to highest. */
export const SPARK_BARS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

/**
 * A sparkline of `values`, one bar per value, spanning their own range (so that a trend between
 * 0.78 and 0.84 shows) unless `min`/`max` are given; flat at mid height when all are equal.
 * Values that are not finite numbers are skipped.
 */
export function sparkline(values: ReadonlyArray<number | null | undefined>, opts: { min?: number; max?: number } = {}): string {
  const nums = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (nums.length === 0) return '';
  const lo = opts.min ?? Math.min(...nums);
  const hi = opts.max ?? Math.max(...nums);
  const top = SPARK_BARS.length - 1;
  if (!(hi > lo)) return SPARK_BARS[Math.floor(top / 2)]!.repeat(nums.length);
  return nums
    .map((v) => {
      const i = Math.round(((Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo)) * top);
      return SPARK_BARS[i]!;
    })
    .join('');
}
