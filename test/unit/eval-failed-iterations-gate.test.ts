import { describe, expect, it } from 'vitest';
import type { RunDetail, RunResult } from '../../src/api/evals.js';
import { allowanceOption, DEFAULT_FAILED_SHARE, evaluateGates, failedAllowed, type GateSpec } from '../../src/evals/gates.js';
import type { RunComparison } from '../../src/evals/verdict.js';

// The failed-iterations gate: its default (fewer than 20% failed, and with a baseline not
// significantly more than the baseline's share), `--allow-failed-iterations n|p%`, and the
// pass^k gate `--min-pass-rate`.

const run = (failed: number, total: number): RunDetail => ({
  run: {
    id: 'run_x',
    runNumber: 2,
    status: 'completed',
    totalIterations: total,
    completedIterations: total - failed,
    failedIterations: failed,
    overallScore: 0.8,
  },
  aggregates: { criteria: [] },
});
const spec = (g: Partial<GateSpec> = {}): GateSpec => ({ minCriteria: [], ...g });
const gate = (g: Partial<GateSpec>, d: RunDetail, comparison?: RunComparison, results?: RunResult[]) =>
  evaluateGates(spec(g), d, undefined, comparison ? { comparison } : undefined, { results }).find((x) =>
    x.gate.startsWith(g.minPassRate !== undefined ? '--min-pass-rate' : '--allow-failed-iterations'),
  )!;

describe('the default allowance of failed iterations', () => {
  it('fails a run in which 20% or more of the calls failed, and passes one below', () => {
    expect(gate({}, run(9, 50))).toMatchObject({ passed: true, threshold: 9, message: '9 failed iterations of 50 (18%); fewer than 20%' });
    expect(gate({}, run(10, 50))).toMatchObject({ passed: false, message: '10 failed iterations of 50 (20%): 20% or more of the calls failed' });
    // A newcomer's first run of 9: one dropped call passes, two (22%) fail.
    expect(gate({}, run(1, 9)).passed).toBe(true);
    expect(gate({}, run(2, 9)).passed).toBe(false);
    expect(failedAllowed(undefined, 5)).toBe(0);
  });

  it("at the emulator's 5.5% of failed calls, an unchanged agent passes it in more than 99% of 50-call runs", () => {
    // P(X ≥ 10) for X ~ Binomial(50, 0.055), summed term by term.
    let tail = 0;
    for (let k = 10; k <= 50; k++) tail += choose(50, k) * 0.055 ** k * 0.945 ** (50 - k);
    expect(failedAllowed(undefined, 50)).toBe(9);
    expect(DEFAULT_FAILED_SHARE).toBe(0.2);
    expect(1 - tail).toBeGreaterThan(0.999);
  });

  it("with a baseline: a share significantly above the baseline's fails (Fisher, one-sided, at --alpha)", () => {
    const cmp = (pValue: number, baseline = 0.05) => ({ failures: { current: 0.16, baseline, pValue }, method: { alpha: 0.01 } }) as unknown as RunComparison;
    expect(gate({}, run(8, 50), cmp(0.004))).toMatchObject({
      passed: false,
      message: "8 failed iterations of 50 (16%): significantly more than the baseline's 5% (Fisher p = 0.004 < 0.01)",
    });
    expect(gate({}, run(8, 50), cmp(0.03)).passed).toBe(true);
    expect(gate({ alpha: 0.05 }, run(8, 50), cmp(0.03)).passed).toBe(false);
  });
});

describe('--allow-failed-iterations n|p%', () => {
  it('takes a number or a percentage; anything else is refused naming both forms', () => {
    expect(allowanceOption('3')).toBe(3);
    expect(allowanceOption('10%')).toEqual({ percent: 10 });
    expect(allowanceOption(' 2.5% ')).toEqual({ percent: 2.5 });
    for (const bad of ['-1', 'ten', '150%', '1.5', '%'])
      expect(() => allowanceOption(bad)).toThrow('--allow-failed-iterations takes a whole number ≥ 0 or a percentage from 0% to 100% (e.g. 3 or 10%).');
  });

  it('a number allows that many; a percentage that share of the run, rounded down; neither looks at the baseline', () => {
    expect(gate({ allowFailedIterations: 0 }, run(1, 50))).toMatchObject({
      gate: '--allow-failed-iterations 0',
      passed: false,
      message: '1 failed iteration of 50 (none allowed)',
    });
    expect(gate({ allowFailedIterations: 3 }, run(3, 50))).toMatchObject({ passed: true, threshold: 3 });
    expect(gate({ allowFailedIterations: { percent: 10 } }, run(5, 50))).toMatchObject({
      gate: '--allow-failed-iterations 10%',
      passed: true,
      threshold: 5,
      message: '5 failed iterations of 50 (5 allowed: 10%)',
    });
    expect(gate({ allowFailedIterations: { percent: 10 } }, run(6, 50)).passed).toBe(false);
    const cmp = { failures: { current: 0.1, baseline: 0, pValue: 0.001 }, method: { alpha: 0.01 } } as unknown as RunComparison;
    expect(gate({ allowFailedIterations: 5 }, run(5, 50), cmp).passed).toBe(true);
  });
});

describe('--min-pass-rate (pass^k)', () => {
  const res = (scenario: string, i: number, score: number | null): RunResult => ({
    id: `${scenario}${i}`,
    evalScenarioId: scenario,
    scenarioName: scenario,
    iterationNumber: i,
    status: score === null ? 'failed' : 'completed',
    overallScore: score,
    durationSeconds: 60,
  });
  // Two scenarios of 3 iterations: A passes 3 of 3 (pass^3 = 1), B 2 of 3 at --min-score 0.7 (pass^3 = 0): the mean is 0.5.
  const results = [res('a', 1, 0.9), res('a', 2, 0.8), res('a', 3, 0.75), res('b', 1, 0.9), res('b', 2, 0.6), res('b', 3, 0.95)];

  it('gates on the mean over scenarios of the estimate that all k repeated calls pass', () => {
    expect(gate({ minPassRate: 0.5, minScore: 0.7 }, run(0, 6), undefined, results)).toMatchObject({ passed: true, actual: 0.5 });
    const g = gate({ minPassRate: 0.6, minScore: 0.7 }, run(0, 6), undefined, results);
    expect(g).toMatchObject({ passed: false, actual: 0.5 });
    expect(g.message).toBe('pass^3 0.500 < 0.6 (the chance that all 3 repeated calls of a scenario pass: score ≥ 0.7, mean over 2 scenarios)');
    // Without --min-score passing is completing: a failed iteration is what fails.
    expect(gate({ minPassRate: 0.9 }, run(1, 6), undefined, [...results.slice(0, 5), res('b', 3, null)]).actual).toBe(0.5);
  });
});

function choose(n: number, k: number): number {
  let c = 1;
  for (let i = 0; i < k; i++) c = (c * (n - i)) / (i + 1);
  return c;
}
