import { InvalidArgumentError } from 'commander';
import type { CriterionAggregate, RunDetail } from '../api/evals.js';
import { UsageError } from '../errors.js';
import { baselineArg, type BaselineSpec } from './baseline.js';
import { countsText, DEFAULT_MIN_EFFECT, regressions, type RunComparison } from './verdict.js';
import { formatScore } from '../ui/values.js';

/**
 * Quality gates of an eval run (CI): a floor on the overall score, floors on criteria,
 * an allowance of failed iterations, and (diff only) the largest drop against a base run.
 */
export interface GateSpec {
  minScore?: number;
  minCriteria: CriterionGate[];
  /** Failed iterations allowed; the gate fails when failedIterations > this. Default 0. */
  allowFailedIterations: number;
  /** Diff only: B may drop by at most this much against A (overall and each criterion). */
  maxDrop?: number;
  /** `--baseline`: the run to compare with (`runs diff` compares with run A without it). */
  baseline?: BaselineSpec;
  /** `--fail-on-regression`: fail when a scenario or criterion regressed significantly. */
  failOnRegression?: boolean;
  /** `--min-effect`: the smallest change a verdict counts (default 0.05). */
  minEffect?: number;
}

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

/** Commander parser for --allow-failed-iterations. */
export function countOption(flag: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`${flag} takes a whole number ≥ 0.`);
    return n;
  };
}

/** An unknown criterion key is a usage error, once the suite's or run's criteria are known. */
export function checkCriterionKeys(spec: GateSpec, known: readonly string[]): void {
  if (known.length === 0) return;
  const unknown = spec.minCriteria.filter((g) => !known.includes(g.key));
  if (unknown.length === 0) return;
  const names = unknown.map((g) => g.key).join(', ');
  throw new UsageError(`--min-criterion names ${unknown.length === 1 ? 'a criterion' : 'criteria'} this suite does not score: ${names}`, `use one of: ${known.join(', ')}`);
}

/** A score as vap prints it: three decimals (src/ui/values.ts). */
export const fmtScore = formatScore;

/** What the baseline comparison gave, for --fail-on-regression: the comparison, or why there is none. */
export interface RegressionInput {
  comparison?: RunComparison;
  missing?: string;
}

/**
 * Evaluates the gates on a finished run (or the finished run B of a diff, with A for
 * --max-drop), and --fail-on-regression on the baseline comparison.
 */
export function evaluateGates(spec: GateSpec, detail: RunDetail, base?: RunDetail, regression?: RegressionInput): GateResult[] {
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
      message: overall === null ? `overall score: none (no completed iteration), needs ≥ ${spec.minScore}` : `overall score ${fmtScore(overall)} ${passed ? '≥' : '<'} ${spec.minScore}`,
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
  const failed = run.failedIterations ?? 0;
  {
    const passed = failed <= spec.allowFailedIterations;
    const allowance = spec.allowFailedIterations === 0 ? 'none allowed' : `${spec.allowFailedIterations} allowed`;
    results.push({
      gate: `--allow-failed-iterations ${spec.allowFailedIterations}`,
      passed,
      actual: failed,
      threshold: spec.allowFailedIterations,
      message: `${failed} failed iteration${failed === 1 ? '' : 's'} of ${run.totalIterations} (${allowance})`,
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

/** `--fail-on-regression`: passes unless a scenario or criterion regressed significantly (no baseline: passes, and says so). */
export function regressionGate(r: RegressionInput): GateResult {
  const gate = '--fail-on-regression';
  if (!r.comparison) return { gate, passed: true, actual: null, threshold: 0, message: `nothing to compare with: ${r.missing ?? 'no baseline'}` };
  const c = r.comparison;
  const against = `against run #${c.baseline.runNumber}`;
  const bad = regressions(c);
  if (bad.length === 0) return { gate, passed: true, actual: 0, threshold: 0, message: `no significant regression ${against} (${countsText(c.counts)})` };
  const names = bad.map((x) => `${'scenarioId' in x ? x.name : x.key} ${x.delta === null ? '' : x.delta.toFixed(3)}`.trim());
  return { gate, passed: false, actual: bad.length, threshold: 0, message: `${bad.length} significant regression${bad.length === 1 ? '' : 's'} ${against}: ${names.join(', ')}` };
}

/** The gate flags as typed, to repeat them in a resume command. */
export function gateArgs(spec: GateSpec): string[] {
  const args: string[] = [];
  if (spec.minScore !== undefined) args.push('--min-score', String(spec.minScore));
  for (const g of spec.minCriteria) args.push('--min-criterion', `${g.key}=${g.min}`);
  if (spec.allowFailedIterations !== 0) args.push('--allow-failed-iterations', String(spec.allowFailedIterations));
  if (spec.maxDrop !== undefined) args.push('--max-drop', String(spec.maxDrop));
  if (spec.baseline) args.push('--baseline', baselineArg(spec.baseline));
  if (spec.failOnRegression) args.push('--fail-on-regression');
  if (spec.minEffect !== undefined && spec.minEffect !== DEFAULT_MIN_EFFECT) args.push('--min-effect', String(spec.minEffect));
  return args;
}

export function findCriterion(list: readonly CriterionAggregate[], key: string): CriterionAggregate | undefined {
  return list.find((c) => c.criterionKey === key);
}

const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const round3 = (v: number) => Math.round(v * 1000) / 1000;
