import { InvalidArgumentError } from 'commander';
import type { CriterionAggregate, RunDetail, RunResult } from '../api/evals.js';
import { UsageError } from '../errors.js';
import { baselineArg, type BaselineSpec } from './baseline.js';
import { passRates } from './pass-rate.js';
import { countsText, DEFAULT_ALPHA, DEFAULT_MIN_EFFECT, percent, regressions, type RunComparison } from './verdict.js';
import { formatScore } from '../ui/values.js';

/**
 * Quality gates of an eval run (CI): a floor on the overall score, floors on criteria,
 * an allowance of failed iterations, a floor on pass^k, and (diff only) the largest drop
 * against a base run.
 */
export interface GateSpec {
  minScore?: number;
  minCriteria: CriterionGate[];
  /**
   * Failed iterations allowed: a number, or a share of the run's iterations (`{ percent }`);
   * the gate fails above it. Absent: the default (DEFAULT_FAILED_SHARE).
   */
  allowFailedIterations?: FailedAllowance;
  /** `--min-pass-rate`: the suite's pass^k must be at least this. */
  minPassRate?: number;
  /** `--alpha`: the family-wise level of the regression gate (default 0.01). */
  alpha?: number;
  /** Diff only: B may drop by at most this much against A (overall and each criterion). */
  maxDrop?: number;
  /** `--baseline`: the run to compare with (`runs diff` compares with run A without it). */
  baseline?: BaselineSpec;
  /** `--fail-on-regression`: fail when a scenario or criterion regressed significantly. */
  failOnRegression?: boolean;
  /** `--min-effect`: the smallest change a verdict counts (default 0.05). */
  minEffect?: number;
}

/** `--allow-failed-iterations n|p%`. */
export type FailedAllowance = number | { percent: number };

/**
 * The default allowance: a run passes while fewer than this share of its iterations failed
 * (and, with a baseline, while its share is not significantly above the baseline's). At the
 * emulator's 5.5% of dropped calls an unchanged agent's 50-call run passes it 99.9% of the time.
 */
export const DEFAULT_FAILED_SHARE = 0.2;

export interface CriterionGate {
  key: string;
  min: number;
}

export interface GateResult {
  /** The gate as typed on the command line: `--min-score 0.8`, `--min-criterion tone=0.7`. */
  gate: string;
  passed: boolean;
  /** The measured value (null when there was none to measure). */
  actual: number | null;
  threshold: number;
  /** One line naming the gate and what was measured. */
  message: string;
}

/** Commander parser: a score between 0 and 1. */
export function scoreOption(flag: string) {
  return (v: string): number => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`${flag} takes a score between 0 and 1 (e.g. 0.8).`);
    return n;
  };
}

/** Commander parser for the repeatable `--min-criterion key=x`. */
export function criterionGateOption(v: string, previous: CriterionGate[] = []): CriterionGate[] {
  const m = /^\s*([^=\s]+)\s*=\s*(\S+)\s*$/.exec(v);
  const min = m ? Number(m[2]) : NaN;
  if (!m || !Number.isFinite(min) || min < 0 || min > 1) {
    throw new InvalidArgumentError('--min-criterion takes key=score with a score between 0 and 1 (e.g. goal_completion=0.8).');
  }
  return [...previous.filter((g) => g.key !== m[1]), { key: m[1]!, min }];
}

/** Commander parser for --allow-failed-iterations: a whole number, or a percentage (`10%`). */
export function allowanceOption(v: string): FailedAllowance {
  const s = v.trim();
  const m = /^(\d+(?:\.\d+)?)%$/.exec(s);
  if (m) {
    const percent = Number(m[1]);
    if (!(percent >= 0 && percent <= 100))
      throw new InvalidArgumentError('--allow-failed-iterations takes a whole number ≥ 0 or a percentage from 0% to 100% (e.g. 3 or 10%).');
    return { percent };
  }
  if (!/^\d+$/.test(s) || !Number.isSafeInteger(Number(s)))
    throw new InvalidArgumentError('--allow-failed-iterations takes a whole number ≥ 0 or a percentage from 0% to 100% (e.g. 3 or 10%).');
  return Number(s);
}

/** `3`, `10%`: the allowance as typed. */
export function allowanceArg(a: FailedAllowance): string {
  return typeof a === 'number' ? String(a) : `${a.percent}%`;
}

/** Commander parser for --alpha: a family-wise level above 0 and at most 0.2. */
export function alphaOption(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 0.2)
    throw new InvalidArgumentError('--alpha takes a family-wise error rate above 0 and at most 0.2 (e.g. 0.01 for 1%).');
  return n;
}

/** Commander parser for --max-calls: a whole number of calls ≥ 1. */
export function maxCallsOption(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('--max-calls takes a whole number of calls ≥ 1 (e.g. 300).');
  return n;
}

/** An unknown criterion key is a usage error, once the suite's or run's criteria are known. */
export function checkCriterionKeys(spec: GateSpec, known: readonly string[]): void {
  if (known.length === 0) return;
  const unknown = spec.minCriteria.filter((g) => !known.includes(g.key));
  if (unknown.length === 0) return;
  const names = unknown.map((g) => g.key).join(', ');
  throw new UsageError(
    `--min-criterion names ${unknown.length === 1 ? 'a criterion' : 'criteria'} this suite does not score: ${names}`,
    `use one of: ${known.join(', ')}`,
  );
}

/** A score as vap prints it: three decimals (src/ui/values.ts). */
export const fmtScore = formatScore;

/** What the baseline comparison gave, for --fail-on-regression: the comparison, or why there is none. */
export interface RegressionInput {
  comparison?: RunComparison;
  missing?: string;
}

/** What some gates read besides the run: its results (pass^k; pooled runs: every result). */
export interface GateExtras {
  results?: readonly RunResult[];
}

/**
 * Evaluates the gates on a finished run (or the finished run B of a diff, with A for
 * --max-drop), and --fail-on-regression on the baseline comparison.
 */
export function evaluateGates(spec: GateSpec, detail: RunDetail, base?: RunDetail, regression?: RegressionInput, extras: GateExtras = {}): GateResult[] {
  const run = detail.run;
  const results: GateResult[] = [];
  const overall = typeof run.overallScore === 'number' ? run.overallScore : null;
  if (spec.minScore !== undefined) {
    const passed = overall !== null && overall >= spec.minScore;
    results.push({
      gate: `--min-score ${spec.minScore}`,
      passed,
      actual: overall,
      threshold: spec.minScore,
      message:
        overall === null
          ? `overall score: none (no completed iteration), needs ≥ ${spec.minScore}`
          : `overall score ${fmtScore(overall)} ${passed ? '≥' : '<'} ${spec.minScore}`,
    });
  }
  for (const g of spec.minCriteria) {
    const agg = findCriterion(detail.aggregates.criteria, g.key);
    const avg = typeof agg?.averageScore === 'number' ? agg.averageScore : null;
    const passed = avg !== null && avg >= g.min;
    results.push({
      gate: `--min-criterion ${g.key}=${g.min}`,
      passed,
      actual: avg,
      threshold: g.min,
      message: avg === null ? `${g.key}: no average score, needs ≥ ${g.min}` : `${g.key} average ${fmtScore(avg)} ${passed ? '≥' : '<'} ${g.min}`,
    });
  }
  results.push(failedIterationsGate(spec, run, regression?.comparison));
  if (spec.minPassRate !== undefined) {
    const rates = extras.results ? passRates(extras.results, spec.minScore) : null;
    const actual = rates?.passK ?? null;
    const passed = actual !== null && actual >= spec.minPassRate;
    results.push({
      gate: `--min-pass-rate ${spec.minPassRate}`,
      passed,
      actual,
      threshold: spec.minPassRate,
      message:
        actual === null
          ? `pass^k: no estimate (no scenario has ${rates?.k ?? 'k'} iterations), needs ≥ ${spec.minPassRate}`
          : `pass^${rates!.k} ${actual.toFixed(3)} ${passed ? '≥' : '<'} ${spec.minPassRate} (the chance that all ${rates!.k} repeated calls of a scenario pass: ${rates!.rule}, mean over ${rates!.scenarios.length} scenario${rates!.scenarios.length === 1 ? '' : 's'})`,
    });
  }
  if (spec.maxDrop !== undefined && base) {
    const pairs: Array<{ name: string; a: number | null; b: number | null }> = [{ name: 'overall score', a: numOrNull(base.run.overallScore), b: overall }];
    for (const c of detail.aggregates.criteria) {
      pairs.push({ name: c.criterionKey, a: numOrNull(findCriterion(base.aggregates.criteria, c.criterionKey)?.averageScore), b: numOrNull(c.averageScore) });
    }
    for (const p of pairs) {
      if (p.a === null || p.b === null) continue;
      const drop = round3(p.a - p.b);
      const passed = drop <= spec.maxDrop;
      results.push({
        gate: `--max-drop ${spec.maxDrop} (${p.name})`,
        passed,
        actual: drop,
        threshold: spec.maxDrop,
        message: `${p.name} ${fmtScore(p.a)} → ${fmtScore(p.b)} (${drop > 0 ? `dropped ${drop.toFixed(3)}` : 'no drop'}${passed ? '' : `, more than ${spec.maxDrop}`})`,
      });
    }
  }
  if (spec.failOnRegression) results.push(regressionGate(regression ?? {}));
  return results;
}

/** The failed iterations allowed in a run of `total`: the number given, the share given (rounded down), or fewer than DEFAULT_FAILED_SHARE. */
export function failedAllowed(a: FailedAllowance | undefined, total: number): number {
  if (typeof a === 'number') return a;
  if (a) return Math.floor((a.percent / 100) * total + 1e-9);
  return Math.max(0, Math.ceil(DEFAULT_FAILED_SHARE * total - 1e-9) - 1);
}

/**
 * Failed iterations: above the allowance fails. The default allowance (fewer than 20%) also
 * fails a share of failures significantly above the baseline's (one-sided Fisher exact test
 * at --alpha), so that a change that drops more calls does not pass on the platform's noise.
 */
function failedIterationsGate(spec: GateSpec, run: RunDetail['run'], comparison?: RunComparison): GateResult {
  const failed = run.failedIterations ?? 0;
  const total = run.totalIterations ?? 0;
  const allowed = failedAllowed(spec.allowFailedIterations, total);
  const share = total ? ` (${percent(failed / total)})` : '';
  const of = `${failed} failed iteration${failed === 1 ? '' : 's'} of ${total}${share}`;
  if (spec.allowFailedIterations !== undefined) {
    const typed = allowanceArg(spec.allowFailedIterations);
    const passed = failed <= allowed;
    const allowance = allowed === 0 ? 'none allowed' : `${allowed} allowed`;
    const count = `${failed} failed iteration${failed === 1 ? '' : 's'} of ${total}`;
    return {
      gate: `--allow-failed-iterations ${typed}`,
      passed,
      actual: failed,
      threshold: allowed,
      message: `${count} (${typeof spec.allowFailedIterations === 'number' ? allowance : `${allowance}: ${typed}`})`,
    };
  }
  const alpha = spec.alpha ?? DEFAULT_ALPHA;
  const gate = `--allow-failed-iterations (default: fewer than ${percent(DEFAULT_FAILED_SHARE)})`;
  if (failed > allowed)
    return { gate, passed: false, actual: failed, threshold: allowed, message: `${of}: ${percent(DEFAULT_FAILED_SHARE)} or more of the calls failed` };
  const f = comparison?.failures;
  if (f && f.pValue < alpha) {
    return {
      gate,
      passed: false,
      actual: failed,
      threshold: allowed,
      message: `${of}: significantly more than the baseline's ${percent(f.baseline)} (Fisher p = ${f.pValue < 0.001 ? '< 0.001' : f.pValue.toFixed(3)} < ${alpha})`,
    };
  }
  return {
    gate,
    passed: true,
    actual: failed,
    threshold: allowed,
    message: `${of}; fewer than ${percent(DEFAULT_FAILED_SHARE)}${f ? `, not significantly above the baseline's ${percent(f.baseline)}` : ''}`,
  };
}

/**
 * `--fail-on-regression`: passes unless the change regressed (the stratified overall change,
 * or a scenario or criterion after it, at the family-wise level); no baseline: passes, and says so.
 */
export function regressionGate(r: RegressionInput): GateResult {
  const gate = '--fail-on-regression';
  if (!r.comparison) return { gate, passed: true, actual: null, threshold: 0, message: `nothing to compare with: ${r.missing ?? 'no baseline'}` };
  const c = r.comparison;
  const against = `against run #${c.baseline.runNumber}${c.pooled && c.pooled.baseline.runs > 1 ? ` and ${c.pooled.baseline.runs - 1} more of its version` : ''}`;
  const level = `family-wise error ${percent(c.method.alpha)}`;
  const o = c.overallChange;
  const overall =
    o?.delta != null
      ? `overall ${signed3(o.delta)}${o.ci ? ` (${percent(c.method.confidence)} CI ${signed3(o.ci[0])} to ${signed3(o.ci[1])})` : ''}`
      : 'no overall change to estimate';
  const bad = regressions(c);
  if (c.verdict !== 'regressed') {
    const why = c.verdict === 'too few iterations' ? `undecided${c.toDecide ? `: ${decideText(c.toDecide, c.method.minEffect)}` : ''}` : c.verdict;
    return {
      gate,
      passed: true,
      actual: 0,
      threshold: 0,
      message: `no significant regression ${against} (${level}): ${overall}, ${why}; rows: ${countsText(c.counts)}`,
    };
  }
  const names = bad.map((x) => `${'scenarioId' in x ? x.name : x.key} ${x.delta === null ? '' : signed3(x.delta)}`.trim());
  return {
    gate,
    passed: false,
    actual: 1 + bad.length,
    threshold: 0,
    message: `a significant regression ${against} (${level}): ${overall}${names.length ? `; ${names.join(', ')}` : ''}`,
  };
}

/** `about 46 iterations per scenario would decide a change of 0.05`. */
export function decideText(t: { iterationsPerScenario: number | null; eachSide: number | null }, minEffect: number): string {
  if (t.iterationsPerScenario !== null) return `about ${t.iterationsPerScenario} scored iterations per scenario would decide a change of ${minEffect}`;
  if (t.eachSide !== null) return `about ${t.eachSide} scored iterations per scenario on each side (the baseline too) would decide a change of ${minEffect}`;
  return `no number of iterations is known to decide a change of ${minEffect}`;
}

const signed3 = (v: number) => {
  const t = Math.abs(v) < 0.0005 ? '0.000' : v.toFixed(3);
  return v > 0 && t !== '0.000' ? `+${t}` : t;
};

/** The gate flags as typed, to repeat them in a resume command. */
export function gateArgs(spec: GateSpec): string[] {
  const args: string[] = [];
  if (spec.minScore !== undefined) args.push('--min-score', String(spec.minScore));
  for (const g of spec.minCriteria) args.push('--min-criterion', `${g.key}=${g.min}`);
  if (spec.allowFailedIterations !== undefined) args.push('--allow-failed-iterations', allowanceArg(spec.allowFailedIterations));
  if (spec.minPassRate !== undefined) args.push('--min-pass-rate', String(spec.minPassRate));
  if (spec.maxDrop !== undefined) args.push('--max-drop', String(spec.maxDrop));
  if (spec.baseline) args.push('--baseline', baselineArg(spec.baseline));
  if (spec.failOnRegression) args.push('--fail-on-regression');
  if (spec.minEffect !== undefined && spec.minEffect !== DEFAULT_MIN_EFFECT) args.push('--min-effect', String(spec.minEffect));
  if (spec.alpha !== undefined && spec.alpha !== DEFAULT_ALPHA) args.push('--alpha', String(spec.alpha));
  return args;
}

export function findCriterion(list: readonly CriterionAggregate[], key: string): CriterionAggregate | undefined {
  return list.find((c) => c.criterionKey === key);
}

const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const round3 = (v: number) => Math.round(v * 1000) / 1000;
