/**
 * Whether a `--from`/`--to` value starts with a real calendar day: `Date.parse` rolls
 * 2026-02-31 over to March 3, so a day past the month's end would filter the wrong calls.
 */
export function hasCalendarDay(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}
