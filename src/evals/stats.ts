import jStat from 'jstat';

/**
 * The statistics of the eval verdicts, kept free of I/O; the method is stated in verdict.ts and `vap help ci`.
 * jstat gives the normal, Student's t and hypergeometric distributions.
 */

export interface Summary {
  n: number;
  mean: number | null;
  /** Sample variance (n − 1); null below 2 values. */
  variance: number | null;
}

export function summarize(xs: readonly number[]): Summary {
  const n = xs.length;
  if (n === 0) return { n, mean: null, variance: null };
  let sum = 0;
  for (const x of xs) sum += x;
  const mean = sum / n;
  if (n < 2) return { n, mean, variance: null };
  let ss = 0;
  for (const x of xs) ss += (x - mean) ** 2;
  return { n, mean, variance: ss / (n - 1) };
}

/** One scenario's scores on each side. */
export interface Stratum {
  current: Summary;
  baseline: Summary;
}

export interface Difference {
  /** The weighted difference of the means (current − baseline). */
  delta: number;
  /** Its standard error. */
  se: number;
  /** Welch–Satterthwaite degrees of freedom (Infinity when se is 0). */
  df: number;
  /** The strata that counted (two scored values or more on each side). */
  strata: number;
}

/**
 * Σ w·(mean₁ − mean₀) with equal weights over the strata that have two scored values or
 * more on each side, its variance Σ w²·(s₁²/n₁ + s₀²/n₀), and the Welch–Satterthwaite
 * degrees of freedom of that sum. Null when no stratum counts.
 */
export function stratifiedDifference(strata: readonly Stratum[]): Difference | null {
  const used = strata.filter((s) => s.current.n >= 2 && s.baseline.n >= 2);
  if (used.length === 0) return null;
  const w = 1 / used.length;
  let delta = 0;
  let variance = 0;
  let dfDen = 0;
  for (const s of used) {
    delta += w * (s.current.mean! - s.baseline.mean!);
    const v1 = (w * w * s.current.variance!) / s.current.n;
    const v0 = (w * w * s.baseline.variance!) / s.baseline.n;
    variance += v1 + v0;
    dfDen += (v1 * v1) / (s.current.n - 1) + (v0 * v0) / (s.baseline.n - 1);
  }
  return { delta, se: Math.sqrt(variance), df: dfDen > 0 ? (variance * variance) / dfDen : Infinity, strata: used.length };
}

export const normalCdf = (z: number): number => jStat.normal.cdf(z, 0, 1);
export const normalQuantile = (p: number): number => jStat.normal.inv(p, 0, 1);

/** The t-scale critical value with the same tail as the normal one `z` (small samples: wider). */
export function tCritical(z: number, df: number): number {
  if (!Number.isFinite(z)) return z;
  if (!Number.isFinite(df)) return z;
  return jStat.studentt.inv(normalCdf(z), df);
}

/** A t statistic as the normal deviate with the same tail (so one boundary serves any df). */
export function zFromT(t: number, df: number): number {
  if (!Number.isFinite(df)) return t;
  const p = jStat.studentt.cdf(t, df);
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  return normalQuantile(p);
}

export type Decision = 'regressed' | 'improved' | 'no significant change' | 'too few iterations';

/**
 * Each bound of `ci` is a one-sided test at the level it was built for. Within ±minEffect (equivalence by two one-sided tests)
 * is checked first and wins: a change smaller than minEffect is no change that matters, even if it excludes 0.
 */
export function decide(ci: readonly [number, number], minEffect: number): Decision {
  const [lo, hi] = ci;
  if (lo >= -minEffect && hi <= minEffect) return 'no significant change';
  if (hi < 0) return 'regressed';
  if (lo > 0) return 'improved';
  return 'too few iterations';
}

/**
 * Alpha spent on one side by information fraction t, for a one-sided level a: Lan-DeMets'
 * function of O'Brien-Fleming's shape, 2 − 2Φ(z(1 − a/2)/√t) (gsDesign's sfLDOF).
 */
export function obrienFlemingSpent(t: number, a: number): number {
  if (t <= 0) return 0;
  if (t >= 1) return a;
  return 2 - 2 * normalCdf(normalQuantile(1 - a / 2) / Math.sqrt(t));
}

/**
 * One side's alpha spent by information fraction t: Lan-DeMets of Pocock's shape, a·ln(1 + (e − 1)·t) (gsDesign's sfLDPocock).
 * It spends early, so every look's boundary is about the same and a decision comes at the first look with the evidence,
 * which spends the fewest calls.
 */
export function pocockSpent(t: number, a: number): number {
  if (t <= 0) return 0;
  if (t >= 1) return a;
  return a * Math.log(1 + (Math.E - 1) * t);
}

/** Odd number of points (Simpson's rule) on each look's continuation region. */
const GRID = 161;

/**
 * Symmetric Z boundaries for looks at increasing information `fractions` (the last may pass 1): under no change, P(|Z_j| < c_j
 * for j < k, |Z_k| ≥ c_k) is twice what `spent` gives one side between looks k − 1 and k. Numerical recursion on a grid (Armitage,
 * McPherson and Rowe; Jennison and Turnbull, ch. 19); a look that spends nothing has an infinite boundary.
 */
export function groupSequentialBoundaries(fractions: readonly number[], a: number, spent: (t: number, a: number) => number = pocockSpent): number[] {
  const out: number[] = [];
  let spentBefore = 0;
  let prevT = 0;
  // The density of S = Z·√t on the previous look's continuation region: points and Simpson-weighted masses.
  let points: number[] = [];
  let masses: number[] = [];
  for (let k = 0; k < fractions.length; k++) {
    const t = Math.max(fractions[k]!, prevT);
    const spend = 2 * Math.min(a, spent(Math.min(t, 1), a)) - spentBefore;
    if (k === 0) {
      const c = spend > 0 ? normalQuantile(1 - spend / 2) : Infinity;
      out.push(c);
      const limit = (Number.isFinite(c) ? c : 8) * Math.sqrt(t);
      ({ points, masses } = grid(limit, (s) => normalPdf(s / Math.sqrt(t)) / Math.sqrt(t)));
      spentBefore += Math.max(0, spend);
      prevT = t;
      continue;
    }
    const sd = Math.sqrt(t - prevT);
    if (!(spend > 0) || sd === 0) {
      out.push(Infinity);
      continue;
    }
    const exceed = (c: number) => {
      let p = 0;
      const edge = c * Math.sqrt(t);
      for (let i = 0; i < points.length; i++) p += masses[i]! * (normalCdf((-edge - points[i]!) / sd) + 1 - normalCdf((edge - points[i]!) / sd));
      return p;
    };
    let lo = 0;
    let hi = 40;
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2;
      if (exceed(mid) > spend) lo = mid;
      else hi = mid;
    }
    const c = hi;
    out.push(c);
    const prevPoints = points;
    const prevMasses = masses;
    ({ points, masses } = grid(c * Math.sqrt(t), (s) => {
      let d = 0;
      for (let i = 0; i < prevPoints.length; i++) d += prevMasses[i]! * normalPdf((s - prevPoints[i]!) / sd);
      return d / sd;
    }));
    spentBefore += spend;
    prevT = t;
  }
  return out;
}

function normalPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}

/** Points on [−limit, limit] with Simpson-weighted masses of the density f. */
function grid(limit: number, f: (s: number) => number): { points: number[]; masses: number[] } {
  const h = (2 * limit) / (GRID - 1);
  const points: number[] = [];
  const masses: number[] = [];
  for (let i = 0; i < GRID; i++) {
    const s = -limit + i * h;
    const simpson = i === 0 || i === GRID - 1 ? 1 : i % 2 === 1 ? 4 : 2;
    points.push(s);
    masses.push((simpson * h * f(s)) / 3);
  }
  return { points, masses };
}

/**
 * Holm's step-down method: `strength` orders the hypotheses (the strongest evidence first),
 * `rejects(i, level)` tests hypothesis i at a level. Step j (from 0) tests the j-th strongest
 * at alpha/(m − j) and the method stops at the first that holds. Returns the rejected indexes.
 */
export function holm(strength: readonly number[], alpha: number, rejects: (i: number, level: number) => boolean): Set<number> {
  const order = strength.map((s, i) => ({ s, i })).sort((x, y) => y.s - x.s);
  const m = order.length;
  const out = new Set<number>();
  for (let j = 0; j < m; j++) {
    const { i } = order[j]!;
    if (!rejects(i, alpha / (m - j))) break;
    out.add(i);
  }
  return out;
}

/**
 * Iterations per scenario at which the interval's half width is at most minEffect/2, so any estimate decides (|Δ| ≤ δ/2 is
 * within ±δ; else the interval excludes 0). From the observed spreads, with the baseline as it is (`current`) or both sides
 * at that number (`eachSide`); null where no number would do.
 */
export function iterationsToDecide(strata: readonly Stratum[], minEffect: number, z: number): { current: number | null; eachSide: number | null } {
  const used = strata.filter((s) => s.current.variance !== null && s.baseline.variance !== null);
  if (used.length === 0 || !(minEffect > 0)) return { current: null, eachSide: null };
  const w2 = 1 / (used.length * used.length);
  const target = (minEffect / 2 / z) ** 2;
  let fixed = 0;
  let perN = 0;
  let both = 0;
  for (const s of used) {
    fixed += (w2 * s.baseline.variance!) / s.baseline.n;
    perN += w2 * s.current.variance!;
    both += w2 * (s.current.variance! + s.baseline.variance!);
  }
  const ceil = (x: number) => Math.max(2, Math.ceil(x - 1e-9));
  const current = perN === 0 ? (fixed <= target ? 2 : null) : target > fixed ? ceil(perN / (target - fixed)) : null;
  const eachSide = both === 0 ? 2 : ceil(both / target);
  return { current, eachSide };
}

/**
 * pass^k: the estimate that all k of k repeated calls pass, from c passes in n calls
 * (unbiased: C(c, k) / C(n, k)). Null when n < k.
 */
export function passHatK(c: number, n: number, k: number): number | null {
  if (k < 1 || n < k) return null;
  let p = 1;
  for (let i = 0; i < k; i++) p *= Math.max(0, c - i) / (n - i);
  return p;
}

/**
 * One-sided Fisher exact test: is the share of failures on the current side (f1 of n1)
 * above the baseline's (f0 of n0)? The p-value P(X ≥ f1) of the hypergeometric law with
 * the failures' total fixed.
 */
export function failureShareP(f1: number, n1: number, f0: number, n0: number): number {
  if (n1 <= 0 || n0 <= 0 || f1 <= 0) return 1;
  const N = n1 + n0;
  const failures = f1 + f0;
  return Math.min(1, Math.max(0, 1 - jStat.hypgeom.cdf(f1 - 1, N, failures, n1)));
}

/** Wilson's score interval for x successes in n, at a two-sided confidence (0.95). */
export function wilson(x: number, n: number, confidence = 0.95): [number, number] {
  if (n <= 0) return [0, 1];
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = x / n;
  const den = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / den;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / den;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
