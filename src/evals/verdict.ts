import type { RunDetail, RunResult } from '../api/evals.js';

/**
 * Baseline verdicts: is a run worse, better or the same as another, per scenario and per
 * criterion, given that every iteration is a simulated call and so a noisy sample?
 *
 * The method (the README states it with a worked example):
 * - The samples: per scenario, the overall score of each completed iteration; per
 *   criterion, that criterion's score in each completed iteration (every scenario).
 *   Failed iterations have no score and are left out.
 * - Welch's t-test (unequal variances, Welch–Satterthwaite degrees of freedom), which is
 *   sound for small samples whose variances differ: Δ = mean(run) − mean(baseline),
 *   SE = √(s²₁/n₁ + s²₀/n₀), the 95% confidence interval Δ ± t(0.975, df)·SE.
 * - A minimum effect δ (default 0.05 on the 0..1 score scale), the smallest change that
 *   matters. Then:
 *     regressed               the interval is below 0 (p < 0.05) and Δ ≤ −δ
 *     improved                the interval is above 0 (p < 0.05) and Δ ≥ +δ
 *     no significant change   the interval lies within ±δ: any change is smaller than δ
 *     too few iterations      fewer than 2 scored iterations on a side (no variance to
 *                             estimate), or an interval too wide to tell a change of δ
 *                             from none: more iterations would tell
 * - When both samples have no spread at all (every score equal), the interval is Δ itself.
 */

export type Verdict = 'regressed' | 'improved' | 'no significant change' | 'too few iterations';
export const VERDICTS: readonly Verdict[] = ['regressed', 'improved', 'no significant change', 'too few iterations'];

export interface VerdictSettings {
  /** The smallest change that matters, on the 0..1 score scale. */
  minEffect: number;
  /** Confidence level of the interval (two-sided); 0.95. */
  confidence: number;
}

export const DEFAULT_MIN_EFFECT = 0.05;
export const CONFIDENCE = 0.95;
/** Scored iterations needed on each side to estimate a variance. */
export const MIN_ITERATIONS = 2;
export const DEFAULT_VERDICT_SETTINGS: VerdictSettings = { minEffect: DEFAULT_MIN_EFFECT, confidence: CONFIDENCE };

export interface SampleStats {
  n: number;
  mean: number | null;
  /** Sample standard deviation (n − 1); null below 2 values. */
  sd: number | null;
}

export interface Comparison {
  current: SampleStats;
  baseline: SampleStats;
  /** mean(current) − mean(baseline), rounded to 6 decimals; null when a side has no score. */
  delta: number | null;
  /** The confidence interval of delta; null when it cannot be computed. */
  ci: [number, number] | null;
  /** Two-sided p-value of Welch's t-test. */
  pValue: number | null;
  /** Welch–Satterthwaite degrees of freedom. */
  df: number | null;
  verdict: Verdict;
  /** One line saying why, with the figures. */
  reason: string;
}

/** One run and its results: one side of a comparison. */
export interface RunSide {
  detail: RunDetail;
  results: readonly RunResult[];
}

export interface ScenarioComparison extends Comparison {
  scenarioId: string;
  name: string;
}

export interface CriterionComparison extends Comparison {
  key: string;
  name: string | null;
}

export interface BaselineRun {
  id: string;
  runNumber: number;
  status: string;
  agentVersion: number | null;
  overallScore: number | null;
}

export interface RunComparison {
  method: { test: "Welch's t-test"; confidence: number; minEffect: number; minIterations: number };
  baseline: BaselineRun;
  /** regressed if any row regressed; else improved if any improved; else too few iterations if any row is; else no significant change. */
  verdict: Verdict;
  counts: Record<Verdict, number>;
  overall: { current: number | null; baseline: number | null; delta: number | null };
  scenarios: ScenarioComparison[];
  criteria: CriterionComparison[];
}

export function headlineVerdict(counts: Record<Verdict, number>): Verdict {
  if (counts.regressed) return 'regressed';
  if (counts.improved) return 'improved';
  if (counts['too few iterations'] || !counts['no significant change']) return 'too few iterations';
  return 'no significant change';
}

/** `2 regressed, 1 improved, 3 no significant change` (verdicts with no row left out). */
export function countsText(counts: Record<Verdict, number>): string {
  return VERDICTS.filter((v) => counts[v] > 0).map((v) => `${counts[v]} ${v}`).join(', ') || 'nothing to compare';
}

/** The method in one line, for reports: `Welch's t-test, 95% confidence, minimum effect 0.05, at least 2 iterations a side`. */
export function methodText(m: RunComparison['method']): string {
  return `Welch's t-test, ${Math.round(m.confidence * 100)}% confidence, minimum effect ${m.minEffect}, at least ${m.minIterations} scored iterations a side`;
}

/** Rows that regressed, scenarios then criteria. */
export function regressions(c: RunComparison): Array<ScenarioComparison | CriterionComparison> {
  return [...c.scenarios, ...c.criteria].filter((r) => r.verdict === 'regressed');
}

/**
 * A mark for each verdict, beside its word wherever it is shown (terminal, HTML): the
 * meaning never rests on colour alone (`vap help accessibility`).
 */
export const VERDICT_MARK: Record<Verdict, string> = {
  regressed: '▼',
  improved: '▲',
  'no significant change': '=',
  'too few iterations': '○',
};
