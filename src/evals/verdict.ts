import type { RunDetail, RunResult } from '../api/evals.js';

/**
 * Baseline verdicts: every iteration is a simulated call, so a noisy sample (method and worked example: `vap help ci`). The overall
 * change is the primary test at 0.8α; scenarios and criteria follow by Holm at all of α after it, else at the 0.2α left (Wiens'
 * fallback procedure), so an unchanged agent is called regressed anywhere with probability at most α.
 */

export type Verdict = 'regressed' | 'improved' | 'no significant change' | 'too few iterations';
export const VERDICTS: readonly Verdict[] = ['regressed', 'improved', 'no significant change', 'too few iterations'];

export interface VerdictSettings {
  /** The smallest change that matters, on the 0..1 score scale. */
  minEffect: number;
  /** The family-wise level of a false "regressed" (and of a false "improved"); 0.01. */
  alpha: number;
  /**
   * The information fractions of the looks so far, this one last (`--until-decided`): the
   * group-sequential boundary. Absent: one look, the fixed-sample test.
   */
  looks?: readonly number[];
}

export const DEFAULT_MIN_EFFECT = 0.05;
export const DEFAULT_ALPHA = 0.01;
/** Scored iterations needed on each side to estimate a variance. */
export const MIN_ITERATIONS = 2;
export const DEFAULT_VERDICT_SETTINGS: VerdictSettings = { minEffect: DEFAULT_MIN_EFFECT, alpha: DEFAULT_ALPHA };

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
  /** Two-sided p-value of the nominal (one-look) t-test. */
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

/** The runs and calls a side pooled. */
export interface PooledSide {
  runs: number;
  /** Calls placed (iterations, failed ones included). */
  calls: number;
  /** Scored iterations (the calls that count in the scores). */
  scored: number;
  /** Failed iterations. */
  failed: number;
  /** Run numbers pooled, oldest first. */
  runNumbers: number[];
}

/** The stratified overall change: the primary test of the family. */
export interface OverallComparison {
  delta: number | null;
  /** Its standard error. */
  se: number | null;
  df: number | null;
  ci: [number, number] | null;
  verdict: Verdict;
  reason: string;
  /** Scenarios that counted (scored iterations on both sides). */
  strata: number;
}

export interface ComparisonMethod {
  test: 'stratified Welch';
  /** The level of the overall change's interval (1 − 2·0.8α); each bound a one-sided test. */
  confidence: number;
  /** The level of each row's interval (Bonferroni's, simultaneous over the rows). */
  rowConfidence: number;
  minEffect: number;
  minIterations: number;
  /** The family-wise level of a false "regressed" (and of a false "improved"). */
  alpha: number;
  family: 'overall first (80% of α), then Holm over the rows (all of α after a significant overall change, else the rest)';
  /** The rows tested after the overall change: scenarios and criteria with an estimate. */
  rows: number;
  /** Set with --until-decided: the look and its boundary. */
  sequential?: { boundary: 'Lan-DeMets Pocock'; look: number; fractions: number[]; z: number };
}

export interface RunComparison {
  method: ComparisonMethod;
  /** The baseline's newest run (the one `previous` or `version:n` named). */
  baseline: BaselineRun;
  /** The runs and calls each side pooled. */
  pooled: { current: PooledSide; baseline: PooledSide };
  /** The stratified overall change decides: regressed, improved, no significant change (within ±δ) or too few iterations; a row that regressed makes it regressed. */
  verdict: Verdict;
  /** The verdicts of the rows (scenarios and criteria). */
  counts: Record<Verdict, number>;
  /** The runs' own overall scores (the newest run of each side). */
  overall: { current: number | null; baseline: number | null; delta: number | null };
  overallChange: OverallComparison;
  /** For an undecided change: the iterations per scenario that would decide a change of δ (with the baseline as it is; or on each side). */
  toDecide?: { iterationsPerScenario: number | null; eachSide: number | null };
  /** The share of failed iterations on each side, and the one-sided Fisher p-value that this side's is higher. */
  failures: { current: number; baseline: number; pValue: number };
  scenarios: ScenarioComparison[];
  criteria: CriterionComparison[];
}

/** The verdict of the rows alone (without the overall change): regressed, improved, too few iterations, no significant change, in that order. */
export function headlineVerdict(counts: Record<Verdict, number>): Verdict {
  if (counts.regressed) return 'regressed';
  if (counts.improved) return 'improved';
  if (counts['too few iterations'] || !counts['no significant change']) return 'too few iterations';
  return 'no significant change';
}

/** `2 regressed, 1 improved, 3 no significant change` (verdicts with no row left out). */
export function countsText(counts: Record<Verdict, number>): string {
  return (
    VERDICTS.filter((v) => counts[v] > 0)
      .map((v) => `${counts[v]} ${v}`)
      .join(', ') || 'nothing to compare'
  );
}

/** `1%` for 0.01, `0.5%` for 0.005. */
export function percent(x: number): string {
  return `${Number((x * 100).toPrecision(3))}%`;
}

/**
 * The method in one line, for reports: `overall change stratified by scenario, family-wise
 * error 1% (overall first, then Holm over 9 rows), 98% intervals, minimum effect 0.05`.
 */
export function methodText(m: ComparisonMethod): string {
  const seq = m.sequential ? `; look ${m.sequential.look} of an adaptive run, Lan-DeMets Pocock boundary z = ${m.sequential.z.toFixed(2)}` : '';
  return `overall change stratified by scenario (Welch), family-wise error ${percent(m.alpha)} (the overall change first, then Holm over ${m.rows} row${m.rows === 1 ? '' : 's'}), a ${percent(m.confidence)} interval overall and ${percent(m.rowConfidence)} for each row, minimum effect ${m.minEffect}${seq}`;
}

/** `undecided`, for the words of a look: the verdict's name in a sentence. */
export function verdictPhrase(v: Verdict): string {
  return v === 'too few iterations' ? 'undecided' : v === 'no significant change' ? `no significant change` : v;
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
