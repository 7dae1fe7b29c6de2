import { describe, expect, it } from 'vitest';
import type { RunDetail, RunResult } from '../../src/api/evals.js';
import { headlineVerdict } from '../../src/evals/verdict.js';
import { compareRuns, compareScores, compareSides, stats } from '../../src/evals/compare.js';

// The baseline verdicts on crafted scores: one row on its own at α = 1% (its 98% interval),
// and whole comparisons (the stratified overall change first, then Holm over the rows).
// The expected intervals are computed apart (R's qt; the formulas in the comments).

describe('compareScores (one row on its own, α = 1%)', () => {
  it('a clear regression: every iteration dropped by 0.2; the 98% interval is Δ ± t(0.99, 8)·SE', () => {
    // SE = √(0.00025/5 + 0.00025/5) = 0.01, df = 8, qt(0.99, 8) = 2.896459
    const c = compareScores([0.7, 0.72, 0.69, 0.71, 0.68], [0.9, 0.92, 0.88, 0.91, 0.89]);
    expect(c.verdict).toBe('regressed');
    expect(c.delta).toBeCloseTo(-0.2, 6);
    expect(c.df).toBeCloseTo(8, 9);
    expect(c.ci![0]).toBeCloseTo(-0.2 - 0.02896459, 5);
    expect(c.ci![1]).toBeCloseTo(-0.2 + 0.02896459, 5);
    expect(c.pValue!).toBeLessThan(0.001);
    expect(c.reason).toBe('dropped 0.200 (98% CI -0.229 to -0.171)');
  });

  it('a clear improvement', () => {
    const c = compareScores([0.86, 0.88, 0.9, 0.87], [0.7, 0.72, 0.71, 0.69]);
    expect(c.verdict).toBe('improved');
    expect(c.delta).toBeCloseTo(0.1725, 6);
    expect(c.reason).toMatch(/^rose 0\.17\d \(98% CI \+0\.1\d\d to \+0\.\d{3}\)$/);
  });

  it('no significant change means shown to be within ±0.05 (two one-sided tests), and comes before significance', () => {
    const c = compareScores([0.81, 0.8, 0.79, 0.8, 0.82, 0.8], [0.8, 0.81, 0.8, 0.79, 0.8, 0.81]);
    expect(c.verdict).toBe('no significant change');
    expect(c.reason).toMatch(/the 98% CI -0\.0\d\d to \+0\.0\d\d lies within ±0\.05$/);
    // Significant, but shown to be smaller than the minimum effect: no change that matters.
    const small = compareScores([0.79, 0.79, 0.791, 0.789, 0.79], [0.8, 0.8, 0.801, 0.799, 0.8]);
    expect(small.pValue!).toBeLessThan(0.01);
    expect(small.verdict).toBe('no significant change');
  });

  it('too wide to tell: too few iterations', () => {
    expect(compareScores([0.78, 0.82], [0.8, 0.84]).reason).toMatch(/is too wide to tell a change of 0\.05 from none$/);
    const bimodal = compareScores([0.9, 0.3, 0.85, 0.35, 0.9], [0.9, 0.88, 0.35, 0.92, 0.85]);
    expect(bimodal.delta).toBeCloseTo(-0.12, 6);
    expect(bimodal.verdict).toBe('too few iterations');
  });

  it('one iteration on a side cannot estimate the noise, whatever the drop', () => {
    const c = compareScores([0.2], [0.9, 0.91, 0.9]);
    expect(c.verdict).toBe('too few iterations');
    expect(c.ci).toBeNull();
    expect(c.reason).toBe('needs 2 scored iterations on each side to estimate the noise (this run 1, baseline 3)');
    expect(compareScores([0.5, 0.6], []).reason).toBe('no scored iteration in the baseline');
  });

  it('no spread on either side: the difference is exact', () => {
    expect(compareScores([0.5, 0.5], [0.9, 0.9]).verdict).toBe('regressed');
    expect(compareScores([0.9, 0.9], [0.9, 0.9]).verdict).toBe('no significant change');
  });

  it('the minimum effect and α are settings', () => {
    const drop = [0.7, 0.72, 0.69, 0.71, 0.68];
    const base = [0.9, 0.92, 0.88, 0.91, 0.89];
    // Within ±0.25: no change that matters.
    expect(compareScores(drop, base, { minEffect: 0.25, alpha: 0.01 }).verdict).toBe('no significant change');
    // α = 2.5%: the 95% interval, qt(0.975, 8) = 2.306004.
    expect(compareScores(drop, base, { minEffect: 0.05, alpha: 0.025 }).ci![0]).toBeCloseTo(-0.2 - 0.02306004, 5);
    expect(stats([0.1, 0.2, 0.3, 0.4, 0.5]).sd).toBeCloseTo(Math.sqrt(0.025), 9);
  });
});

describe('compareRuns', () => {
  const detail = (id: string, runNumber: number, overallScore: number): RunDetail => ({
    run: { id, runNumber, status: 'completed', totalIterations: 0, overallScore, agentVersion: runNumber },
    aggregates: {
      criteria: [
        { criterionKey: 'tone', averageScore: 0, maxScore: 0, name: 'Tone' },
        { criterionKey: 'goal', averageScore: 0, maxScore: 0 },
      ],
    },
  });
  const result = (scenario: string, i: number, score: number | null, tone = score ?? 0, goal = 0.8): RunResult => ({
    id: `res_${scenario}_${i}`,
    evalScenarioId: scenario,
    scenarioName: scenario.toUpperCase(),
    iterationNumber: i,
    status: score === null ? 'failed' : 'completed',
    overallScore: score,
    durationSeconds: 60,
    criterionScores:
      score === null
        ? []
        : [
            { criterionKey: 'tone', score: tone, reason: '' },
            { criterionKey: 'goal', score: goal + i * 0.001, reason: '' },
          ],
  });

  it('per scenario and per criterion; failed iterations are left out; a new scenario has no baseline', () => {
    const base = {
      detail: detail('run_a', 1, 0.9),
      results: [0.9, 0.92, 0.91].map((s, i) => result('s1', i + 1, s)).concat([0.5, 0.52].map((s, i) => result('s2', i + 1, s))),
    };
    const cur = {
      detail: detail('run_b', 2, 0.7),
      results: [0.7, 0.71, null, 0.69]
        .map((s, i) => result('s1', i + 1, s))
        .concat(
          [0.5, 0.51].map((s, i) => result('s2', i + 1, s)),
          [result('s3', 1, 0.8), result('s3', 2, 0.82)],
        ),
    };
    const c = compareRuns(cur, base);
    expect(c.scenarios.map((s) => [s.name, s.current.n, s.baseline.n])).toEqual([
      ['S1', 3, 3],
      ['S2', 2, 2],
      ['S3', 2, 0],
    ]);
    expect(c.scenarios[2]!.reason).toBe('not in the baseline');
    expect(c.overallChange.strata).toBe(2);
    expect(c.baseline).toEqual({ id: 'run_a', runNumber: 1, status: 'completed', agentVersion: 1, overallScore: 0.9 });
    expect(c.overall).toEqual({ current: 0.7, baseline: 0.9, delta: -0.2 });
    expect(c.pooled.current).toEqual({ runs: 1, calls: 8, scored: 7, failed: 1, runNumbers: [2] });
    expect(c.failures.current).toBe(0.125);
  });

  const plain = (id: string, runNumber: number): RunDetail => ({
    run: { id, runNumber, status: 'completed', totalIterations: 0, overallScore: null, agentVersion: runNumber },
    aggregates: { criteria: [] },
  });
  const scores = (scenario: string, xs: number[], from = 1) =>
    xs.map((s, i) => result(scenario, from + i, s, s, 0.8)).map((r) => ({ ...r, criterionScores: [] }));

  it('the overall change regressed at 0.8α: Holm then tests the scenarios at all of α (α/2, then α); the 99.5% Bonferroni intervals are shown', () => {
    // A: Δ = −0.3, SE = 0.0081650, df = 10; B: Δ = 0, SE = 0.0036515, df = 10.
    // Overall: Δ = −0.15, SE = 0.0044721, df = 13.846; qt(0.992, 13.846)·SE = 0.0122657: −0.16227 to −0.13773.
    // Rows (m = 2): qt(0.995, 10) = 3.169273; A −0.3 ± 0.025877 (below 0: regressed), B ± 0.011573 (within ±0.05).
    const base = { runs: [plain('run_a', 1)], results: [...scores('a', [0.8, 0.82, 0.78, 0.8, 0.81, 0.79]), ...scores('b', [0.8, 0.8, 0.81, 0.79, 0.8, 0.8])] };
    const cur = { runs: [plain('run_b', 2)], results: [...scores('a', [0.5, 0.52, 0.48, 0.5, 0.51, 0.49]), ...scores('b', [0.8, 0.81, 0.79, 0.8, 0.8, 0.8])] };
    const c = compareSides(cur, base);
    expect(c.overallChange.verdict).toBe('regressed');
    expect(c.overallChange.delta).toBeCloseTo(-0.15, 9);
    expect(c.overallChange.df).toBeCloseTo(13.846154, 5);
    expect(c.overallChange.ci![0]).toBeCloseTo(-0.15 - 0.0122657, 5);
    expect(c.overallChange.ci![1]).toBeCloseTo(-0.15 + 0.0122657, 5);
    expect(c.method).toMatchObject({ alpha: 0.01, confidence: 0.984, rowConfidence: 0.99, rows: 2 });
    const [a, b] = c.scenarios;
    expect(a!.verdict).toBe('regressed');
    expect(a!.ci![0]).toBeCloseTo(-0.3 - 0.025877, 5);
    expect(a!.reason).toBe("dropped 0.300 (99% CI -0.326 to -0.274); significant by Holm's method");
    expect(b!.verdict).toBe('no significant change');
    expect(b!.ci![1]).toBeCloseTo(0.011573, 5);
    expect(c.verdict).toBe('regressed');
  });

  it('the overall change within ±0.05 but one scenario clearly worse: the rows are still tested, at the 20% of α left (the fallback)', () => {
    const same = [0.8, 0.81, 0.79, 0.8];
    const base = { runs: [plain('run_a', 1)], results: ['a', 'b', 'c', 'd', 'e'].flatMap((s) => scores(s, same)) };
    const cur = { runs: [plain('run_b', 2)], results: [...scores('a', [0.7, 0.71, 0.69, 0.7]), ...['b', 'c', 'd', 'e'].flatMap((s) => scores(s, same))] };
    const c = compareSides(cur, base);
    expect(c.overallChange.delta).toBeCloseTo(-0.02, 9);
    expect(c.overallChange.verdict).toBe('no significant change');
    expect(c.method.rowConfidence).toBeCloseTo(1 - (2 * 0.002) / 5, 9);
    expect(c.scenarios.map((s) => s.verdict)).toEqual([
      'regressed',
      'no significant change',
      'no significant change',
      'no significant change',
      'no significant change',
    ]);
    expect(c.verdict).toBe('regressed');
    expect(c.toDecide).toBeUndefined();
  });

  it('several runs a side are pooled (scenarios matched by id); undecided says the iterations that would decide', () => {
    const base = { runs: [plain('run_a', 1), plain('run_c', 3)], results: [...scores('a', [0.9, 0.3, 0.85]), ...scores('a', [0.35, 0.9, 0.6])] };
    const cur = { runs: [plain('run_b', 4)], results: scores('a', [0.88, 0.35, 0.92, 0.4]) };
    const c = compareSides(cur, base);
    expect(c.pooled.baseline).toMatchObject({ runs: 2, calls: 6, runNumbers: [1, 3] });
    expect(c.baseline.id).toBe('run_c');
    expect(c.verdict).toBe('too few iterations');
    expect(c.toDecide!.iterationsPerScenario ?? c.toDecide!.eachSide).toBeGreaterThan(100);
  });

  it('the headline: regressed over improved over too few iterations over no significant change', () => {
    const zero = { regressed: 0, improved: 0, 'no significant change': 0, 'too few iterations': 0 };
    expect(headlineVerdict({ ...zero, regressed: 1, improved: 3 })).toBe('regressed');
    expect(headlineVerdict({ ...zero, improved: 1, 'too few iterations': 2 })).toBe('improved');
    expect(headlineVerdict({ ...zero, 'no significant change': 4, 'too few iterations': 1 })).toBe('too few iterations');
    expect(headlineVerdict({ ...zero, 'no significant change': 4 })).toBe('no significant change');
    expect(headlineVerdict(zero)).toBe('too few iterations');
  });
});
