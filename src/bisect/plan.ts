/**
 * The shape of a search before any call: the most steps it may take and the next version to test. Candidates run oldest first,
 * after the good version up to the bad one, which is tested only if the search ends on it untested,
 * so that a search with no regression says so instead of naming it.
 */

export interface Range {
  /** Index of the newest candidate known good (-1: the good version itself). */
  lo: number;
  /** Index of the oldest candidate known or assumed bad. */
  hi: number;
  /** Whether `hi` was tested and regressed (the bad version is assumed until then). */
  confirmed: boolean;
}

/** The candidate to test next in (lo, hi): the middle one not skipped, else the nearest to it; undefined when none is left. */
export function nextIndex(r: Range, skipped: ReadonlySet<number>): number | undefined {
  const mid = Math.floor((r.lo + r.hi) / 2);
  for (let d = 0; d <= r.hi - r.lo; d++) {
    for (const i of [mid - d, mid + d]) if (i > r.lo && i < r.hi && !skipped.has(i)) return i;
  }
  return undefined;
}

/** The steps a search over `r` takes at most, every step decided (each possible first bad version tried). */
export function worstSteps(r: Range, n = r.hi + 1): number {
  let most = 0;
  // `first` is the true first bad index; `n` stands for "no regression" (the bad one is good too).
  for (let first = r.lo + 1; first <= n; first++) {
    let { lo, hi, confirmed } = r;
    let steps = 0;
    for (;;) {
      const i = nextIndex({ lo, hi, confirmed }, new Set());
      if (i === undefined) break;
      steps++;
      if (i >= first) [hi, confirmed] = [i, true];
      else lo = i;
    }
    if (!confirmed) steps++;
    most = Math.max(most, steps);
  }
  return most;
}

/** The calls a step may place: its fair share of what is left, in whole runs, at least one run. */
export function stepShare(remaining: number, stepsLeft: number, perRun: number): number {
  const runs = Math.max(1, Math.floor(remaining / Math.max(1, stepsLeft) / perRun));
  return runs * perRun;
}
