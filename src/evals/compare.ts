import type { Run, RunResult } from '../api/evals.js';
import {
  decide,
  failureShareP,
  groupSequentialBoundaries,
  holm,
  iterationsToDecide,
  normalCdf,
  normalQuantile,
  stratifiedDifference,
  summarize,
  tCritical,
  zFromT,
  type Stratum,
  type Summary,
} from './stats.js';
import {
  DEFAULT_VERDICT_SETTINGS,
  MIN_ITERATIONS,
  VERDICTS,
  type Comparison,
  type CriterionComparison,
  type OverallComparison,
  type PooledSide,
  type RunComparison,
  type RunSide,
  type SampleStats,
  type ScenarioComparison,
  type Verdict,
  type VerdictSettings,
} from './verdict.js';

// The baseline verdicts (the method is described in verdict.ts, the statistics are in
// stats.ts). Loaded only when a run is compared with a baseline.

const round = (v: number, d = 6) => Math.round(v * 10 ** d) / 10 ** d;
const f3 = (v: number) => (Math.abs(v) < 0.0005 ? '0.000' : v.toFixed(3));
const signed = (v: number) => (v > 0 && f3(v) !== '0.000' ? `+${f3(v)}` : f3(v));
const pct = (x: number) => `${Number((x * 100).toPrecision(3))}%`;

/** The share of α the overall change is tested at; the rest is the rows' (Wiens' fallback), theirs wholly once it is significant. */
export const OVERALL_SHARE = 0.8;

export function stats(xs: readonly number[]): SampleStats {
  const s = summarize(xs);
  return { n: s.n, mean: s.mean, sd: s.variance === null ? null : Math.sqrt(s.variance) };
}

/** A row's estimate: the difference, its standard error and degrees of freedom (null: no estimate). */
interface Estimate {
  delta: number;
  se: number;
  df: number;
}

/** The boundary on the Z scale for a one-sided level at this look (memoised: Holm asks for a few levels). */
class Boundaries {
  private readonly memo = new Map<number, number>();
  constructor(private readonly looks: readonly number[] | undefined) {}
  z(level: number): number {
    let z = this.memo.get(level);
    if (z === undefined) {
      z = this.looks?.length ? groupSequentialBoundaries(this.looks, level).at(-1)! : normalQuantile(1 - level);
      this.memo.set(level, z);
    }
    return z;
  }
}

function interval(e: Estimate, z: number): [number, number] {
  if (e.se === 0) return [round(e.delta), round(e.delta)];
  const half = tCritical(z, e.df) * e.se;
  return [round(e.delta - half), round(e.delta + half)];
}

function twoSidedP(e: Estimate): number {
  if (e.se === 0) return e.delta === 0 ? 1 : 0;
  return Math.min(1, 2 * normalCdf(-Math.abs(zFromT(e.delta / e.se, e.df))));
}

function welch(c: Summary, b: Summary): Estimate | null {
  const d = stratifiedDifference([{ current: c, baseline: b }]);
  return d ? { delta: d.delta, se: d.se, df: d.df } : null;
}

const ROW_REASON_FEW = (c: SampleStats, b: SampleStats) =>
  b.n === 0 && c.n === 0
    ? 'no scored iteration on either side'
    : b.n === 0
      ? 'no scored iteration in the baseline'
      : c.n === 0
        ? 'no scored iteration in this run'
        : `needs ${MIN_ITERATIONS} scored iterations on each side to estimate the noise (this run ${c.n}, baseline ${b.n})`;

/** The words of a decided or undecided interval. */
function reasonOf(verdict: Verdict, delta: number, ci: [number, number], level: string, minEffect: number): string {
  const interval = `${level} CI ${signed(ci[0])} to ${signed(ci[1])}`;
  if (verdict === 'regressed') return `dropped ${f3(-delta)} (${interval})`;
  if (verdict === 'improved') return `rose ${f3(delta)} (${interval})`;
  if (verdict === 'no significant change') return `${signed(delta)}; the ${interval} lies within ±${minEffect}`;
  return `${signed(delta)}; the ${interval} is too wide to tell a change of ${minEffect} from none`;
}

/**
 * One sample against another, as a single row tested on its own at `settings.alpha` (the
 * interval shown is the 1 − 2α one).
 */
export function compareScores(current: readonly number[], baseline: readonly number[], settings: VerdictSettings = DEFAULT_VERDICT_SETTINGS): Comparison {
  const c = stats(current);
  const b = stats(baseline);
  const delta = c.mean !== null && b.mean !== null ? round(c.mean - b.mean) : null;
  const e = welch(summarize(current), summarize(baseline));
  if (!e || delta === null)
    return { current: c, baseline: b, delta, ci: null, pValue: null, df: null, verdict: 'too few iterations', reason: ROW_REASON_FEW(c, b) };
  const z = new Boundaries(settings.looks).z(settings.alpha);
  const ci = interval(e, z);
  const verdict = decide(ci, settings.minEffect);
  return {
    current: c,
    baseline: b,
    delta,
    ci,
    pValue: twoSidedP(e),
    df: Number.isFinite(e.df) ? e.df : null,
    verdict,
    reason: reasonOf(verdict, delta, ci, pct(1 - 2 * settings.alpha), settings.minEffect),
  };
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

/** One side of a comparison: one run or several (their results together, scenarios matched by id). */
export interface Side {
  /** The runs pooled, any order; the newest is the side's own run. */
  runs: ReadonlyArray<{ run: Run; aggregates?: { criteria: ReadonlyArray<{ criterionKey: string; name?: unknown }> } }>;
  results: readonly RunResult[];
}

/** The criteria a side scores: its runs' aggregates' keys, else the keys its results carry. */
function criteriaOf(side: Side): Array<{ key: string; name: string | null }> {
  const seen = new Map<string, string | null>();
  for (const d of side.runs)
    for (const c of d.aggregates?.criteria ?? []) if (!seen.has(c.criterionKey)) seen.set(c.criterionKey, typeof c.name === 'string' ? c.name : null);
  if (seen.size === 0) for (const r of side.results) for (const c of r.criterionScores ?? []) if (!seen.has(c.criterionKey)) seen.set(c.criterionKey, null);
  return [...seen].map(([key, name]) => ({ key, name }));
}

function newest<T extends { run: Run }>(runs: readonly T[]): T {
  return [...runs].sort((a, b) => b.run.runNumber - a.run.runNumber)[0]!;
}

export function pooledSide(side: Side): PooledSide {
  let failed = 0;
  let scoredN = 0;
  for (const r of side.results) {
    if (r.status === 'failed') failed++;
    else if (scored(r)) scoredN++;
  }
  return {
    runs: side.runs.length,
    calls: side.results.length,
    scored: scoredN,
    failed,
    runNumbers: side.runs.map((d) => d.run.runNumber).sort((a, b) => a - b),
  };
}

/** Every scenario and criterion of `current` against `baseline`, one run each (see compareSides). */
export function compareRuns(current: RunSide, baseline: RunSide, settings: VerdictSettings = DEFAULT_VERDICT_SETTINGS): RunComparison {
  return compareSides({ runs: [current.detail], results: current.results }, { runs: [baseline.detail], results: baseline.results }, settings);
}

/**
 * The verdicts of `current` against `baseline`, each side one run or several pooled
 * (scenarios matched by id, criteria by key): the stratified overall change first, then
 * every scenario and criterion, with the family-wise level of `settings.alpha`.
 */
export function compareSides(current: Side, baseline: Side, settings: VerdictSettings = DEFAULT_VERDICT_SETTINGS): RunComparison {
  const { alpha, minEffect } = settings;
  const bounds = new Boundaries(settings.looks);
  const base = byScenario(baseline.results);
  const cur = byScenario(current.results);

  // The strata: each scenario's scores on both sides (overall, then per criterion).
  const keys = criteriaOf(current);
  type Row = { kind: 'scenario' | 'criterion'; id: string; name: string | null; c: SampleStats; b: SampleStats; e: Estimate | null; note?: string };
  const rows: Row[] = [];
  const overallStrata: Stratum[] = [];
  const criterionStrata = new Map<string, Stratum[]>(keys.map((k) => [k.key, []]));
  for (const [scenarioId, s] of cur) {
    const b = base.get(scenarioId);
    const cs = s.results.filter(scored).map((r) => r.overallScore as number);
    const bs = (b?.results ?? []).filter(scored).map((r) => r.overallScore as number);
    const sc = summarize(cs);
    const sb = summarize(bs);
    overallStrata.push({ current: sc, baseline: sb });
    for (const k of keys)
      criterionStrata
        .get(k.key)!
        .push({ current: summarize(criterionScores(s.results, k.key)), baseline: summarize(criterionScores(b?.results ?? [], k.key)) });
    rows.push({ kind: 'scenario', id: scenarioId, name: s.name, c: stats(cs), b: stats(bs), e: welch(sc, sb), note: b ? undefined : 'not in the baseline' });
  }
  for (const k of keys) {
    const strata = criterionStrata.get(k.key)!;
    const d = stratifiedDifference(strata);
    const all = (side: Side) => stats(criterionScores(side.results, k.key));
    rows.push({ kind: 'criterion', id: k.key, name: k.name, c: all(current), b: all(baseline), e: d ? { delta: d.delta, se: d.se, df: d.df } : null });
  }

  // The primary test: the stratified overall change, at its share of α (OVERALL_SHARE).
  const alphaOverall = OVERALL_SHARE * alpha;
  const od = stratifiedDifference(overallStrata);
  let overallChange: OverallComparison;
  if (!od) {
    overallChange = {
      delta: null,
      se: null,
      df: null,
      ci: null,
      verdict: 'too few iterations',
      reason: `no scenario has ${MIN_ITERATIONS} scored iterations on each side`,
      strata: 0,
    };
  } else {
    const ci = interval(od, bounds.z(alphaOverall));
    const verdict = decide(ci, minEffect);
    overallChange = {
      delta: round(od.delta),
      se: round(od.se, 8),
      df: Number.isFinite(od.df) ? od.df : null,
      ci,
      verdict,
      reason: reasonOf(verdict, od.delta, ci, pct(1 - 2 * alphaOverall), minEffect),
      strata: od.strata,
    };
  }

  // The rows, by Holm's method in each direction: at all of α when the overall change was
  // significant that way (its share carried forward), else at the rest of α (the fallback).
  const tested = rows.filter((r) => r.e);
  const m = tested.length;
  const significant = overallChange.verdict === 'regressed' || overallChange.verdict === 'improved';
  const levelFor = (direction: -1 | 1) =>
    (direction < 0 ? overallChange.verdict === 'regressed' : overallChange.verdict === 'improved') ? alpha : alpha - alphaOverall;
  const rejectedIn = (direction: -1 | 1): Set<number> =>
    m === 0
      ? new Set()
      : holm(
          tested.map((r) => (r.e!.se === 0 ? (Math.sign(r.e!.delta) === direction ? Infinity : -Infinity) : direction * zFromT(r.e!.delta / r.e!.se, r.e!.df))),
          levelFor(direction),
          (i, lvl) => {
            const [lo, hi] = interval(tested[i]!.e!, bounds.z(lvl));
            return direction < 0 ? hi < 0 : lo > 0;
          },
        );
  const down = rejectedIn(-1);
  const up = rejectedIn(1);
  // Bonferroni's intervals, simultaneous over the rows at the level they were tested at.
  const rowAlpha = significant ? alpha : alpha - alphaOverall;
  const zRows = m > 0 ? bounds.z(rowAlpha / m) : Infinity;
  const rowLevel = pct(1 - (2 * rowAlpha) / Math.max(1, m));
  const verdictOf = (r: Row): Comparison => {
    const delta = r.c.mean !== null && r.b.mean !== null ? round(r.c.mean - r.b.mean) : null;
    if (!r.e || delta === null)
      return {
        current: r.c,
        baseline: r.b,
        delta,
        ci: null,
        pValue: null,
        df: null,
        verdict: 'too few iterations',
        reason: r.note ?? ROW_REASON_FEW(r.c, r.b),
      };
    const ci = interval(r.e, zRows);
    const i = tested.indexOf(r);
    const own = decide(ci, minEffect);
    let verdict: Verdict;
    let reason: string;
    if (own === 'no significant change') {
      verdict = own;
      reason = reasonOf(own, r.e.delta, ci, rowLevel, minEffect);
    } else if (down.has(i) || up.has(i)) {
      verdict = down.has(i) ? 'regressed' : 'improved';
      reason = `${reasonOf(verdict, r.e.delta, ci, rowLevel, minEffect)}; significant by Holm's method`;
    } else {
      verdict = 'too few iterations';
      reason = reasonOf('too few iterations', r.e.delta, ci, rowLevel, minEffect);
    }
    return {
      current: r.c,
      baseline: r.b,
      delta: kindDelta(r, delta),
      ci,
      pValue: twoSidedP(r.e),
      df: Number.isFinite(r.e.df) ? r.e.df : null,
      verdict,
      reason,
    };
  };

  const scenarios: ScenarioComparison[] = [];
  const criteria: CriterionComparison[] = [];
  for (const r of rows) {
    const cmp = verdictOf(r);
    if (r.kind === 'scenario') scenarios.push({ scenarioId: r.id, name: r.name ?? r.id, ...cmp });
    else criteria.push({ key: r.id, name: r.name, ...cmp });
  }
  const counts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  for (const row of [...scenarios, ...criteria]) counts[row.verdict]++;

  const verdict: Verdict =
    counts.regressed || overallChange.verdict === 'regressed'
      ? 'regressed'
      : counts.improved || overallChange.verdict === 'improved'
        ? 'improved'
        : overallChange.verdict;
  const toDecide =
    verdict === 'too few iterations'
      ? (({ current: n, eachSide }) => ({ iterationsPerScenario: n, eachSide }))(iterationsToDecide(overallStrata, minEffect, normalQuantile(1 - alpha)))
      : undefined;

  const pc = pooledSide(current);
  const pb = pooledSide(baseline);
  const nb = newest(baseline.runs).run;
  const nc = newest(current.runs).run;
  const oc = num(nc.overallScore);
  const ob = num(nb.overallScore);
  return {
    method: {
      test: 'stratified Welch',
      confidence: round(1 - 2 * alphaOverall, 6),
      rowConfidence: round(1 - (2 * rowAlpha) / Math.max(1, m), 6),
      minEffect,
      minIterations: MIN_ITERATIONS,
      alpha,
      family: 'overall first (80% of α), then Holm over the rows (all of α after a significant overall change, else the rest)',
      rows: m,
      ...(settings.looks?.length
        ? {
            sequential: {
              boundary: 'Lan-DeMets Pocock' as const,
              look: settings.looks.length,
              fractions: settings.looks.map((t) => round(t, 4)),
              z: round(bounds.z(OVERALL_SHARE * alpha), 4),
            },
          }
        : {}),
    },
    baseline: { id: nb.id, runNumber: nb.runNumber, status: nb.status, agentVersion: num(nb.agentVersion), overallScore: ob },
    pooled: { current: pc, baseline: pb },
    verdict,
    counts,
    overall: { current: oc, baseline: ob, delta: oc !== null && ob !== null ? round(oc - ob, 3) : null },
    overallChange,
    ...(toDecide ? { toDecide } : {}),
    failures: {
      current: pc.calls ? round(pc.failed / pc.calls, 4) : 0,
      baseline: pb.calls ? round(pb.failed / pb.calls, 4) : 0,
      pValue: round(failureShareP(pc.failed, pc.calls, pb.failed, pb.calls), 6),
    },
    scenarios,
    criteria,
  };
}

/** A scenario's change is its difference in means; a criterion's, the stratified one (each scenario weighted equally). */
function kindDelta(r: { kind: string; e: Estimate | null }, plain: number): number {
  return r.kind === 'criterion' && r.e ? round(r.e.delta) : plain;
}
