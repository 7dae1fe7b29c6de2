import { describe, expect, it } from 'vitest';
import type { RunDetail, RunResult } from '../../src/api/evals.js';
import { countsText, headlineVerdict } from '../../src/evals/verdict.js';
import { compareRuns, compareScores, stats } from '../../src/evals/compare.js';

// The baseline verdict (Welch's t-test, 95% interval, minimum effect 0.05) on crafted scores.

describe('compareScores', () => {
  it('a clear regression: every iteration dropped by about 0.2', () => {
    const c = compareScores([0.7, 0.72, 0.69, 0.71, 0.68], [0.9, 0.92, 0.88, 0.91, 0.89]);
    expect(c.verdict).toBe('regressed');
    expect(c.delta).toBeCloseTo(-0.2, 6);
    expect(c.ci![1]).toBeLessThan(0);
    expect(c.pValue!).toBeLessThan(0.001);
    expect(c.reason).toMatch(/^dropped 0\.200 \(95% CI -0\.2\d\d to -0\.1\d\d, p < 0\.001\)$/);
  });

  it('a clear improvement', () => {
    const c = compareScores([0.86, 0.88, 0.9, 0.87], [0.7, 0.72, 0.71, 0.69]);
    expect(c.verdict).toBe('improved');
    expect(c.delta).toBeCloseTo(0.1725, 6);
    expect(c.ci![0]).toBeGreaterThan(0);
    expect(c.reason).toMatch(/^rose 0\.17\d \(95% CI \+0\.1\d\d to \+0\.\d{3}, p < 0\.001\)$/);
  });

  it('noise: small jitter around the same mean is no significant change (the interval lies within ±0.05)', () => {
    const c = compareScores([0.81, 0.8, 0.79, 0.8, 0.82, 0.8], [0.8, 0.81, 0.8, 0.79, 0.8, 0.81]);
    expect(c.verdict).toBe('no significant change');
    expect(c.ci![0]).toBeGreaterThanOrEqual(-0.05);
    expect(c.ci![1]).toBeLessThanOrEqual(0.05);
    expect(c.reason).toMatch(/the 95% CI -0\.0\d\d to \+0\.0\d\d lies within ±0\.05$/);
  });

  it('a drop of 0.02 on two iterations means nothing: too few iterations', () => {
    const c = compareScores([0.78, 0.82], [0.8, 0.84]);
    expect(c.delta).toBeCloseTo(-0.02, 6);
    expect(c.verdict).toBe('too few iterations');
    expect(c.reason).toMatch(/is too wide to tell a change of 0\.05 from none: add iterations$/);
  });

  it('one iteration on a side cannot estimate the noise, whatever the drop', () => {
    const c = compareScores([0.2], [0.9, 0.91, 0.9]);
    expect(c.verdict).toBe('too few iterations');
    expect(c.ci).toBeNull();
    expect(c.reason).toBe('needs 2 scored iterations on each side to estimate the noise (this run 1, baseline 3)');
    expect(compareScores([0.5, 0.6], []).reason).toBe('no scored iteration in the baseline');
  });

  it('noisy scores: a real-looking drop with a wide interval is too few iterations, not a regression', () => {
    // Bimodal scores as voice evals give (the goal reached or not): the mean drops 0.1,
    // but five iterations cannot tell that from chance.
    const c = compareScores([0.9, 0.3, 0.85, 0.35, 0.9], [0.9, 0.88, 0.35, 0.92, 0.85]);
    expect(c.delta).toBeCloseTo(-0.12, 6);
    expect(c.verdict).toBe('too few iterations');
    expect(c.ci![0]).toBeLessThan(-0.05);
    expect(c.ci![1]).toBeGreaterThan(0);
  });

  it('a significant change smaller than the minimum effect is no significant change', () => {
    const c = compareScores([0.79, 0.79, 0.791, 0.789, 0.79], [0.8, 0.8, 0.801, 0.799, 0.8]);
    expect(c.pValue!).toBeLessThan(0.05);
    expect(c.delta).toBeCloseTo(-0.01, 6);
    expect(c.verdict).toBe('no significant change');
  });

  it('no spread on either side: the difference is exact', () => {
    expect(compareScores([0.5, 0.5], [0.9, 0.9]).verdict).toBe('regressed');
    expect(compareScores([0.9, 0.9], [0.9, 0.9]).verdict).toBe('no significant change');
    expect(compareScores([0.89, 0.89], [0.9, 0.9]).verdict).toBe('no significant change');
  });

  it('the minimum effect is a setting', () => {
    const drop = [0.7, 0.72, 0.69, 0.71, 0.68];
    const base = [0.9, 0.92, 0.88, 0.91, 0.89];
    // A drop of 0.2 is below a minimum effect of 0.25: it does not count.
    expect(compareScores(drop, base, { minEffect: 0.25, confidence: 0.95 }).verdict).toBe('no significant change');
    expect(compareScores(drop, base, { minEffect: 0.1, confidence: 0.95 }).verdict).toBe('regressed');
  });

  it('Welch: the interval matches the textbook figures', () => {
    // x = 1..5, y = 2,4,6,8,10: means 3 and 6, variances 2.5 and 10, SE = √2.5, df = 12.5/(1.5625+25)·4 …
    const c = compareScores([0.1, 0.2, 0.3, 0.4, 0.5], [0.2, 0.4, 0.6, 0.8, 1.0]);
    const s = stats([0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(s.sd).toBeCloseTo(Math.sqrt(0.025), 9);
    expect(c.df).toBeCloseTo(5.882352941, 6); // (0.005 + 0.02)^2 / (0.005^2/4 + 0.02^2/4)
    const half = 2.4469118511449692 * Math.sqrt(0.025); // t(0.975, 5.88…) ≈ 2.4469 per R's qt(0.975, 5.882353)
    expect(c.ci![0]).toBeCloseTo(-0.3 - half, 2);
    expect(c.ci![1]).toBeCloseTo(-0.3 + half, 2);
  });
});

describe('compareRuns', () => {
  const detail = (id: string, runNumber: number, overallScore: number): RunDetail => ({
    run: { id, runNumber, status: 'completed', totalIterations: 0, overallScore, agentVersion: runNumber },
    aggregates: { criteria: [{ criterionKey: 'tone', averageScore: 0, maxScore: 0, name: 'Tone' }, { criterionKey: 'goal', averageScore: 0, maxScore: 0 }] },
  });
  const result = (scenario: string, i: number, score: number | null, tone = score ?? 0, goal = 0.8): RunResult => ({
    id: `res_${scenario}_${i}`,
    evalScenarioId: scenario,
    scenarioName: scenario.toUpperCase(),
    iterationNumber: i,
    status: score === null ? 'failed' : 'completed',
    overallScore: score,
    durationSeconds: 60,
    criterionScores: score === null ? [] : [{ criterionKey: 'tone', score: tone, reason: '' }, { criterionKey: 'goal', score: goal + i * 0.001, reason: '' }],
  });

  it('per scenario and per criterion; failed iterations are left out; a new scenario has no baseline', () => {
    const base = { detail: detail('run_a', 1, 0.9), results: [0.9, 0.92, 0.91].map((s, i) => result('s1', i + 1, s)).concat([0.5, 0.52].map((s, i) => result('s2', i + 1, s))) };
    const cur = {
      detail: detail('run_b', 2, 0.7),
      results: [0.7, 0.71, null, 0.69].map((s, i) => result('s1', i + 1, s)).concat([0.5, 0.51].map((s, i) => result('s2', i + 1, s)), [result('s3', 1, 0.8), result('s3', 2, 0.82)]),
    };
    const c = compareRuns(cur, base);
    expect(c.scenarios.map((s) => [s.name, s.verdict, s.current.n, s.baseline.n])).toEqual([
      ['S1', 'regressed', 3, 3],
      ['S2', 'too few iterations', 2, 2],
      ['S3', 'too few iterations', 2, 0],
    ]);
    expect(c.scenarios[2]!.reason).toBe('not in the baseline run');
    expect(c.criteria.map((x) => [x.key, x.name, x.verdict])).toEqual([
      ['tone', 'Tone', 'too few iterations'],
      ['goal', null, 'no significant change'],
    ]);
    expect(c.baseline).toEqual({ id: 'run_a', runNumber: 1, status: 'completed', agentVersion: 1, overallScore: 0.9 });
    expect(c.overall).toEqual({ current: 0.7, baseline: 0.9, delta: -0.2 });
    expect(c.verdict).toBe('regressed');
    expect(countsText(c.counts)).toBe('1 regressed, 1 no significant change, 3 too few iterations');
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
