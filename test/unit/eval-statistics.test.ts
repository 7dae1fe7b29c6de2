import { describe, expect, it } from 'vitest';
import {
  obrienFlemingSpent,
  pocockSpent,
  decide,
  failureShareP,
  groupSequentialBoundaries,
  holm,
  iterationsToDecide,
  normalQuantile,
  passHatK,
  stratifiedDifference,
  summarize,
  tCritical,
  wilson,
  zFromT,
  type Stratum,
} from '../../src/evals/stats.js';

// The statistics of the verdicts on fixed data. Every expected figure is computed apart
// from the code under test: by hand (the formula is in the comment) or from a published
// table (R's qt, gsDesign's bounds).

describe('the stratified difference', () => {
  it('weights each scenario equally, with its Welch variance and the Welch–Satterthwaite df of the sum', () => {
    // A: 0.8, 0.9, 1.0 against 0.7, 0.8, 0.9 (means 0.9 and 0.8, variances 0.01);
    // B: 0.5, 0.7 against 0.6 ×4 (means 0.6 and 0.6, variances 0.02 and 0).
    // Δ = ½·0.1 + ½·0 = 0.05; Var = ¼(0.01/3 + 0.01/3) + ¼(0.02/2 + 0) = 0.0041667;
    // df = Var² / (2·(¼·0.01/3)²/2 + (¼·0.02/2)²/1) = 1.7361e-5 / 6.9444e-6 = 2.5.
    const strata: Stratum[] = [
      { current: summarize([0.8, 0.9, 1.0]), baseline: summarize([0.7, 0.8, 0.9]) },
      { current: summarize([0.5, 0.7]), baseline: summarize([0.6, 0.6, 0.6, 0.6]) },
    ];
    const d = stratifiedDifference(strata)!;
    expect(d.delta).toBeCloseTo(0.05, 10);
    expect(d.se).toBeCloseTo(Math.sqrt(0.0041666667), 8);
    expect(d.df).toBeCloseTo(2.5, 8);
    expect(d.strata).toBe(2);
  });

  it('leaves out a scenario with fewer than two scored iterations on a side; none left: no estimate', () => {
    const d = stratifiedDifference([
      { current: summarize([0.8, 0.9]), baseline: summarize([0.7, 0.8]) },
      { current: summarize([0.1]), baseline: summarize([0.9, 0.9]) },
    ])!;
    expect(d.strata).toBe(1);
    expect(d.delta).toBeCloseTo(0.1, 10);
    expect(stratifiedDifference([{ current: summarize([0.5]), baseline: summarize([]) }])).toBeNull();
  });
});

describe('critical values and the decision', () => {
  it("the t critical value has the normal boundary's tail: t(0.99, 10) = 2.7638 (R: qt(0.99, 10))", () => {
    expect(tCritical(normalQuantile(0.99), 10)).toBeCloseTo(2.763769, 5);
    expect(tCritical(2.326348, Infinity)).toBe(2.326348);
    // And back: the t statistic 2.7638 on 10 df is the normal deviate 2.3263.
    expect(zFromT(2.763769, 10)).toBeCloseTo(2.326348, 4);
  });

  it('equivalence within ±δ comes first, then below 0 regressed, above 0 improved, else undecided', () => {
    expect(decide([-0.04, -0.01], 0.05)).toBe('no significant change');
    expect(decide([-0.09, -0.01], 0.05)).toBe('regressed');
    expect(decide([0.01, 0.07], 0.05)).toBe('improved');
    expect(decide([-0.06, 0.02], 0.05)).toBe('too few iterations');
    expect(decide([-0.05, 0.05], 0.05)).toBe('no significant change');
  });
});

describe('the group-sequential boundary (Lan-DeMets spending)', () => {
  it('one look at the whole information is the fixed-sample z(1 − α)', () => {
    expect(groupSequentialBoundaries([1], 0.01)[0]).toBeCloseTo(2.326348, 5);
    expect(groupSequentialBoundaries([1], 0.025)[0]).toBeCloseTo(1.959964, 5);
  });

  it("five equally spaced looks at 2.5% a side give gsDesign's bounds 4.8769, 3.3569, 2.6803, 2.2898, 2.0310", () => {
    // gsDesign(k = 5, test.type = 2, alpha = 0.025, sfu = sfLDOF)$upper$bound
    const b = groupSequentialBoundaries([0.2, 0.4, 0.6, 0.8, 1], 0.025, obrienFlemingSpent);
    const expected = [4.8769, 3.3569, 2.6803, 2.2898, 2.031];
    b.forEach((c, i) => expect(c).toBeCloseTo(expected[i]!, 3));
  });

  it("Pocock's shape spends 2.5%·ln(1 + (e − 1)t): the first of five looks is z(1 − 0.025·ln(1.3437)) = 2.4380, and the boundaries stay close", () => {
    // 0.025·ln(1 + 1.718282·0.2) = 0.0073849; qnorm(1 − 0.0073849) = 2.43798
    expect(pocockSpent(0.2, 0.025)).toBeCloseTo(0.0073849, 6);
    const b = groupSequentialBoundaries([0.2, 0.4, 0.6, 0.8, 1], 0.025);
    expect(b[0]).toBeCloseTo(2.43798, 3);
    expect(Math.max(...b) - Math.min(...b)).toBeLessThan(0.1);
  });

  it('a look that adds no information spends nothing (an infinite boundary)', () => {
    const b = groupSequentialBoundaries([0.5, 0.5, 1], 0.01, obrienFlemingSpent);
    expect(b[1]).toBe(Infinity);
    expect(b[2]).toBeLessThan(b[0]!);
    expect(groupSequentialBoundaries([0.5, 0.5, 1], 0.01)[1]).toBe(Infinity);
  });

  it('by simulation (fixed seed): looking after every run keeps the false "regressed" rate at α; the fixed test at every look does not', () => {
    // 5 scenarios, σ = 0.115, a pooled baseline of 60 iterations per scenario, looks after
    // each run of 10 iterations per scenario up to 60; no change. A false alarm is a look whose
    // interval is wholly below 0 and not within ±0.05.
    const rng = mulberry32(20240611);
    const gauss = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
    const S = 5;
    const n0 = 60;
    const alpha = 0.01;
    const fractions = [1, 2, 3, 4, 5, 6].map((k) => 1 / (1 / (10 * k) + 1 / n0) / (1 / (1 / 60 + 1 / n0)));
    const boundaries = groupSequentialBoundaries(fractions, alpha);
    const fixed = normalQuantile(1 - alpha);
    const trials = 3000;
    let sequentialAlarms = 0;
    let naiveAlarms = 0;
    for (let trial = 0; trial < trials; trial++) {
      const base = Array.from({ length: S }, () => Array.from({ length: n0 }, () => 0.7 + 0.115 * gauss()));
      const cur = Array.from({ length: S }, () => Array.from({ length: 60 }, () => 0.7 + 0.115 * gauss()));
      let seq = false;
      let naive = false;
      for (let k = 1; k <= 6; k++) {
        const d = stratifiedDifference(cur.map((c, s) => ({ current: summarize(c.slice(0, 10 * k)), baseline: summarize(base[s]!) })))!;
        const alarm = (z: number) => decide([d.delta - tCritical(z, d.df) * d.se, d.delta + tCritical(z, d.df) * d.se], 0.05) === 'regressed';
        if (!seq && alarm(boundaries[k - 1]!)) seq = true;
        if (!naive && alarm(fixed)) naive = true;
      }
      if (seq) sequentialAlarms++;
      if (naive) naiveAlarms++;
    }
    const rate = sequentialAlarms / trials;
    // Within three standard errors of α (√(0.01·0.99/3000) = 0.0018), and not far below it.
    expect(rate).toBeLessThanOrEqual(alpha + 3 * Math.sqrt((alpha * (1 - alpha)) / trials));
    expect(rate).toBeGreaterThan(alpha / 4);
    // The fixed-sample test applied at every look inflates it.
    expect(naiveAlarms / trials).toBeGreaterThan(1.5 * alpha);
  });
});

describe("Holm's step-down method", () => {
  it('p = 0.01, 0.04, 0.03, 0.005 at 5%: 0.005 ≤ 0.0125 and 0.01 ≤ 0.0167 are rejected; 0.03 > 0.025 stops', () => {
    const p = [0.01, 0.04, 0.03, 0.005];
    const rejected = holm(
      p.map((x) => -x),
      0.05,
      (i, level) => p[i]! <= level,
    );
    expect([...rejected].sort()).toEqual([0, 3]);
  });

  it('nothing is rejected when the strongest holds', () => {
    expect(holm([3, 2], 0.05, () => false).size).toBe(0);
  });
});

describe('iterations per scenario that would decide a change of min-effect', () => {
  it('σ = 0.115 on both sides, a baseline of 300: half-width 0.025 at z(0.99) needs 186 on this side, or 230 on each', () => {
    // target variance (0.025 / 2.3263)² = 1.15488e-4; with the baseline as it is:
    // n = 0.013225 / (1.15488e-4 − 0.013225/300) = 185.2 → 186; on each side: 2·0.013225 / 1.15488e-4 = 229.03 → 230.
    const v = 0.115 ** 2;
    const stratum: Stratum = { current: { n: 10, mean: 0.7, variance: v }, baseline: { n: 300, mean: 0.7, variance: v } };
    expect(iterationsToDecide([stratum], 0.05, normalQuantile(0.99))).toEqual({ current: 186, eachSide: 230 });
  });

  it('a baseline too small to reach it: only both sides together can', () => {
    const v = 0.115 ** 2;
    const r = iterationsToDecide([{ current: { n: 10, mean: 0.7, variance: v }, baseline: { n: 10, mean: 0.7, variance: v } }], 0.05, normalQuantile(0.99));
    expect(r.current).toBeNull();
    expect(r.eachSide).toBe(230);
  });
});

describe('pass^k, the failure share and Wilson', () => {
  it('pass^3 with 7 passes in 10 calls is C(7,3)/C(10,3) = 35/120', () => {
    expect(passHatK(7, 10, 3)).toBeCloseTo(35 / 120, 12);
    expect(passHatK(2, 10, 3)).toBe(0);
    expect(passHatK(10, 10, 3)).toBe(1);
    expect(passHatK(1, 1, 1)).toBe(1);
    expect(passHatK(3, 2, 3)).toBeNull();
  });

  it('3 of 5 failed against 0 of 5: Fisher one-sided p = C(7,2)/C(10,5) = 21/252', () => {
    expect(failureShareP(3, 5, 0, 5)).toBeCloseTo(21 / 252, 10);
    expect(failureShareP(0, 50, 3, 300)).toBe(1);
  });

  it("Wilson's interval: 0 of 300 is 0 to 1.264%; 5 of 66 is 3.28% to 16.54%", () => {
    // upper for x = 0: z²/(n + z²) = 3.8415 / 303.8415
    const [lo, hi] = wilson(0, 300);
    expect(lo).toBeCloseTo(0, 12);
    expect(hi).toBeCloseTo(0.012643, 5);
    const [a, b] = wilson(5, 66);
    expect(a).toBeCloseTo(0.032792, 5);
    expect(b).toBeCloseTo(0.165392, 5);
  });
});

/** A small seeded generator (Mulberry32), so that the simulation is the same on every run. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
