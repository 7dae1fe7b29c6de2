import jStat from 'jstat';
import type { RunResult } from '../api/evals.js';
import { DEFAULT_VERDICT_SETTINGS, headlineVerdict, MIN_ITERATIONS, VERDICTS, type Comparison, type CriterionComparison, type RunComparison, type RunSide, type SampleStats, type ScenarioComparison, type Verdict, type VerdictSettings } from './verdict.js';

// The statistics of the baseline verdicts (the method is described in verdict.ts). Loaded
// only when a run is compared with a baseline: jstat gives Student's t distribution.

const round = (v: number, d = 6) => Math.round(v * 10 ** d) / 10 ** d;
const f3 = (v: number) => (Math.abs(v) < 0.0005 ? '0.000' : v.toFixed(3));
const signed = (v: number) => (v > 0 && f3(v) !== '0.000' ? `+${f3(v)}` : f3(v));

export function stats(xs: readonly number[]): SampleStats {
  const n = xs.length;
  if (n === 0) return { n, mean: null, sd: null };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { n, mean, sd: null };
  const ss = xs.reduce((a, x) => a + (x - mean) ** 2, 0);
  return { n, mean, sd: Math.sqrt(ss / (n - 1)) };
}

/** The verdict of `current` against `baseline` (two samples of scores on 0..1). */
export function compareScores(current: readonly number[], baseline: readonly number[], settings: VerdictSettings = DEFAULT_VERDICT_SETTINGS): Comparison {
  const c = stats(current);
  const b = stats(baseline);
  const delta = c.mean !== null && b.mean !== null ? round(c.mean - b.mean) : null;
  const pct = `${Math.round(settings.confidence * 100)}%`;
  const δ = settings.minEffect;
  if (c.n < MIN_ITERATIONS || b.n < MIN_ITERATIONS || delta === null) {
    const reason =
      b.n === 0 && c.n === 0 ? 'no scored iteration in either run'
      : b.n === 0 ? 'no scored iteration in the baseline'
      : c.n === 0 ? 'no scored iteration in this run'
      : `needs ${MIN_ITERATIONS} scored iterations on each side to estimate the noise (this run ${c.n}, baseline ${b.n})`;
    return { current: c, baseline: b, delta, ci: null, pValue: null, df: null, verdict: 'too few iterations', reason };
  }
  const vc = c.sd! ** 2 / c.n;
  const vb = b.sd! ** 2 / b.n;
  const se = Math.sqrt(vc + vb);
  let ci: [number, number];
  let pValue: number;
  let df: number | null;
  if (se === 0) {
    // No spread on either side: the difference is exact.
    ci = [delta, delta];
    pValue = delta === 0 ? 1 : 0;
    df = null;
  } else {
    df = (vc + vb) ** 2 / ((vc * vc) / (c.n - 1) + (vb * vb) / (b.n - 1));
    const t = delta / se;
    pValue = Math.min(1, 2 * jStat.studentt.cdf(-Math.abs(t), df));
    const half = jStat.studentt.inv(1 - (1 - settings.confidence) / 2, df) * se;
    ci = [round(delta - half), round(delta + half)];
  }
  const interval = `${pct} CI ${signed(ci[0])} to ${signed(ci[1])}`;
  const p = pValue < 0.001 ? 'p < 0.001' : `p = ${pValue.toFixed(3)}`;
  const base = { current: c, baseline: b, delta, ci, pValue, df };
  if (ci[1] < 0 && delta <= -δ) return { ...base, verdict: 'regressed', reason: `dropped ${f3(-delta)} (${interval}, ${p})` };
  if (ci[0] > 0 && delta >= δ) return { ...base, verdict: 'improved', reason: `rose ${f3(delta)} (${interval}, ${p})` };
  if (ci[0] >= -δ && ci[1] <= δ) {
    return { ...base, verdict: 'no significant change', reason: `${signed(delta)}; the ${interval} lies within ±${δ}` };
  }
  return { ...base, verdict: 'too few iterations', reason: `${signed(delta)}; the ${interval} is too wide to tell a change of ${δ} from none: add iterations` };
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const scored = (r: RunResult) => r.status !== 'failed' && num(r.overallScore) !== null;

function byScenario(results: readonly RunResult[]): Map<string, { name: string; results: RunResult[] }> {
  const m = new Map<string, { name: string; results: RunResult[] }>();
  for (const r of results) {
    let s = m.get(r.evalScenarioId);
    if (!s) m.set(r.evalScenarioId, (s = { name: r.scenarioName || r.evalScenarioId, results: [] }));
    s.results.push(r);
  }
  return m;
}

function criterionScores(results: readonly RunResult[], key: string): number[] {
  const out: number[] = [];
  for (const r of results) {
    if (r.status === 'failed') continue;
    const s = num(r.criterionScores?.find((c) => c.criterionKey === key)?.score);
    if (s !== null) out.push(s);
  }
  return out;
}

/** The criteria a run scores: its aggregates' keys, else the keys its results carry. */
function criteriaOf(side: RunSide): Array<{ key: string; name: string | null }> {
  const agg = side.detail.aggregates.criteria;
  if (agg.length) return agg.map((c) => ({ key: c.criterionKey, name: typeof c.name === 'string' ? c.name : null }));
  const keys = new Set<string>();
  for (const r of side.results) for (const c of r.criterionScores ?? []) keys.add(c.criterionKey);
  return [...keys].map((key) => ({ key, name: null }));
}

/** Every scenario and criterion of `current` against `baseline` (scenarios matched by id, criteria by key). */
export function compareRuns(current: RunSide, baseline: RunSide, settings: VerdictSettings = DEFAULT_VERDICT_SETTINGS): RunComparison {
  const base = byScenario(baseline.results);
  const scenarios: ScenarioComparison[] = [];
  for (const [scenarioId, s] of byScenario(current.results)) {
    const b = base.get(scenarioId);
    const cmp = compareScores(
      s.results.filter(scored).map((r) => r.overallScore as number),
      (b?.results ?? []).filter(scored).map((r) => r.overallScore as number),
      settings,
    );
    scenarios.push({ scenarioId, name: s.name, ...cmp, reason: b ? cmp.reason : 'not in the baseline run' });
  }
  const criteria: CriterionComparison[] = criteriaOf(current).map((c) => ({
    ...c,
    ...compareScores(criterionScores(current.results, c.key), criterionScores(baseline.results, c.key), settings),
  }));
  const counts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  for (const row of [...scenarios, ...criteria]) counts[row.verdict]++;
  const b = baseline.detail.run;
  const oc = num(current.detail.run.overallScore);
  const ob = num(b.overallScore);
  return {
    method: { test: "Welch's t-test", confidence: settings.confidence, minEffect: settings.minEffect, minIterations: MIN_ITERATIONS },
    baseline: { id: b.id, runNumber: b.runNumber, status: b.status, agentVersion: num(b.agentVersion), overallScore: ob },
    verdict: headlineVerdict(counts),
    counts,
    overall: { current: oc, baseline: ob, delta: oc !== null && ob !== null ? round(oc - ob, 3) : null },
    scenarios,
    criteria,
  };
}

