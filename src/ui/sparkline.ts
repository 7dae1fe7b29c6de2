/** The eight bars of a sparkline, lowest to highest. */
export const SPARK_BARS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

/**
 * A sparkline of `values` in the order given, one bar per value. The bars span the
 * values' own range (so a trend between 0.78 and 0.84 shows), unless `min`/`max` are
 * given; when every value is the same the line is flat at mid height. Values that are
 * not finite numbers are skipped.
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
