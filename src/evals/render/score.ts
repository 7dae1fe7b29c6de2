/** A score on 0..1 as the evals verbs print it: three decimals, `–` when there is none. */
export function fmtScore(v: number | null | undefined): string {
  return typeof v === 'number' && Number.isFinite(v) ? v.toFixed(3) : '–';
}
