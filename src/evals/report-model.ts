import type { RunResult } from '../api/evals.js';
import { decideText, fmtScore, type GateResult } from './gates.js';
import { formatSeconds, roleWord } from '../ui/values.js';
import type { RunOutcome } from './outcome.js';
import { summarizeCriteria, summarizeScenarios, type CriterionSummary, type ScenarioSummary } from './summary.js';
import { passRates, type PassRates } from './pass-rate.js';
import { percent, VERDICT_MARK, type CriterionComparison, type RunComparison, type ScenarioComparison } from './verdict.js';
import type { TranscriptLine } from '../spec/evals.js';

// What the Markdown and HTML reports show, computed once: scenarios with their comparison
// (regressions first), criteria with theirs, the worst iteration of a scenario.

export interface ScenarioRow {
  summary: ScenarioSummary;
  comparison?: ScenarioComparison;
  /** A scenario worth opening: it regressed, or an iteration failed. */
  flagged: boolean;
}

export interface CriterionRow {
  summary: CriterionSummary;
  comparison?: CriterionComparison;
}

/** Scenarios, regressions first (the largest drop first), then those with a failed iteration, then the run's order. */
export function scenarioRows(o: RunOutcome): ScenarioRow[] {
  const byId = new Map((o.baseline?.comparison?.scenarios ?? []).map((c) => [c.scenarioId, c]));
  const rows = summarizeScenarios(o.results).map((summary, i) => {
    const comparison = byId.get(summary.scenarioId);
    return { summary, comparison, flagged: comparison?.verdict === 'regressed' || summary.failed > 0, i };
  });
  const rank = (r: (typeof rows)[number]) => (r.comparison?.verdict === 'regressed' ? 0 : r.summary.failed > 0 ? 1 : 2);
  rows.sort((a, b) => rank(a) - rank(b) || (rank(a) === 0 ? (a.comparison!.delta ?? 0) - (b.comparison!.delta ?? 0) : 0) || a.i - b.i);
  return rows.map(({ i: _i, ...r }) => r);
}

export function criterionRows(o: RunOutcome): CriterionRow[] {
  const byKey = new Map((o.baseline?.comparison?.criteria ?? []).map((c) => [c.key, c]));
  return summarizeCriteria(o.detail.aggregates.criteria).map((summary) => ({ summary, comparison: byKey.get(summary.key) }));
}

/** The iteration to show for a scenario: a failed one (with its error), else the lowest score. */
export function worstIteration(results: readonly RunResult[]): RunResult | undefined {
  const failed = results.find((r) => r.status === 'failed');
  if (failed) return failed;
  let worst: RunResult | undefined;
  for (const r of results) if (typeof r.overallScore === 'number' && (!worst || r.overallScore < (worst.overallScore as number))) worst = r;
  return worst ?? results[0];
}

/** A result's transcript by ordinal (a stable sort; not copied when the lines came in order, as they usually do). */
export function transcriptOf(r: RunResult): readonly TranscriptLine[] {
  const lines = r.transcript ?? [];
  for (let i = 1; i < lines.length; i++)
    if ((lines[i - 1]!.ordinal ?? 0) > (lines[i]!.ordinal ?? 0)) return [...lines].sort((a, b) => (a.ordinal ?? 0) - (b.ordinal ?? 0));
  return lines;
}

/** Document 2's roles for people: `agent`, and `caller` for the API's `user` (the eval's tester): src/ui/values.ts. */
export function roleLabel(role: string): string {
  return roleWord(role, 'human');
}

/** `+0.034`, `-0.120`, `0.000`. */
export function signed(v: number | null | undefined): string {
  if (typeof v !== 'number' || !Number.isFinite(v)) return '–';
  const t = Math.abs(v) < 0.0005 ? '0.000' : v.toFixed(3);
  return v > 0 && t !== '0.000' ? `+${t}` : t;
}

export function ciText(ci: [number, number] | null | undefined): string {
  return ci ? `${signed(ci[0])} to ${signed(ci[1])}` : '–';
}

/**
 * Marks beside a verdict in the Markdown and HTML reports, as on a terminal: plain symbols
 * (no emoji font needed, and they print). An improvement is never drawn as a failure is:
 * no red, no ❌ (those are for gates that failed and iterations that failed); ▲ points up.
 */
export { VERDICT_MARK } from './verdict.js';

export function iterationsText(s: ScenarioSummary): string {
  return s.failed ? `${s.iterations} (${s.failed} failed)` : String(s.iterations);
}

export { fmtScore };

/** 134 → "2m 14s"; 45 → "45s"; nothing for none (src/ui/values.ts). */
export function seconds(s: number | null | undefined): string {
  return typeof s === 'number' && Number.isFinite(s) ? formatSeconds(s) : '';
}

/**
 * A run cut short (the wait ended first, or the run failed) before all its iterations were done: its scores and averages
 * cover only the iterations done, so the reports say so. Undefined when every iteration is done (or none is known).
 */
export interface PartialRun {
  done: number;
  total: number;
  /** `the wait ended after 3 of 28 iterations`, `the run failed after 6 of 14 iterations`. */
  why: string;
}

export function partialRun(o: RunOutcome): PartialRun | undefined {
  const run = o.detail.run;
  if (!o.stopped && run.status !== 'failed' && run.status !== 'cancelled') return undefined;
  const total = run.totalIterations ?? 0;
  const done = (run.completedIterations ?? 0) + (run.failedIterations ?? 0);
  if (!total || done >= total) return undefined;
  const of = `${done} of ${total} iteration${total === 1 ? '' : 's'}`;
  const why = o.stopped
    ? `the wait ended after ${of}${o.stopped.kind === 'error' ? '' : ' (the run goes on)'}`
    : `the run ${run.status === 'cancelled' ? 'was cancelled' : 'failed'} after ${of}`;
  return { done, total, why };
}

/** What the reports print for a run cut short: a label (bold) and a sentence. */
export function partialNote(p: PartialRun): { label: string; text: string } {
  if (p.done === 0) return { label: 'No scores yet', text: `${p.why}.` };
  return { label: 'Partial averages', text: `${p.why}; every score and average here covers those ${p.done} only.` };
}

/**
 * A failed gate in a few words, for a headline: `2 failed iterations, none allowed`,
 * `overall 0.700 < 0.8`, `tone 0.512 < 0.7`, `overall score dropped 0.120 > 0.05`,
 * `1 significant regression`. The gates table has the whole message.
 */
export function gateBrief(g: GateResult): string {
  const value = (v: number | null) => (v === null ? 'none' : fmtScore(v));
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  if (g.gate.startsWith('--min-score')) return `overall ${value(g.actual)} < ${g.threshold}`;
  const criterion = /^--min-criterion (.+)=[^=]*$/.exec(g.gate);
  if (criterion) return `${criterion[1]} ${value(g.actual)} < ${g.threshold}`;
  if (g.gate.startsWith('--allow-failed-iterations'))
    return `${plural(g.actual ?? 0, 'failed iteration')}, ${g.threshold === 0 ? 'none' : g.threshold} allowed`;
  const drop = /^--max-drop \S+ \((.+)\)$/.exec(g.gate);
  if (drop) return `${drop[1]} dropped ${(g.actual ?? 0).toFixed(3)} > ${g.threshold}`;
  if (g.gate === '--fail-on-regression') return 'a significant regression';
  if (g.gate.startsWith('--min-pass-rate')) return `pass^k ${value(g.actual)} < ${g.threshold}`;
  return g.gate;
}

/**
 * The baseline verdict in a few words, apart from the gates, with its family-wise level: `▼ regressed at family-wise error 1%:
 * overall -0.052 (98% CI -0.087 to -0.017), 1 of 4 criteria, against #4`; an undecided one also says how many scored
 * iterations per scenario would decide a change of min-effect.
 */
export function verdictBrief(c: RunComparison): string {
  const level = `at family-wise error ${percent(c.method.alpha)}`;
  const o = c.overallChange;
  const ci = o.ci ? ` (${percent(c.method.confidence)} CI ${ciText(o.ci)})` : '';
  const overall =
    o.delta === null
      ? 'no overall change to estimate'
      : c.verdict === 'no significant change'
        ? `overall ${signed(o.delta)} within ±${c.method.minEffect}`
        : `overall ${signed(o.delta)}${ci}`;
  const rows = (v: 'regressed' | 'improved') => {
    const parts: string[] = [];
    const s = c.scenarios.filter((x) => x.verdict === v).length;
    const k = c.criteria.filter((x) => x.verdict === v).length;
    if (s) parts.push(`${s} of ${c.scenarios.length} scenario${c.scenarios.length === 1 ? '' : 's'}`);
    if (k) parts.push(`${k} of ${c.criteria.length} criteri${c.criteria.length === 1 ? 'on' : 'a'}`);
    return parts.length ? `, ${parts.join(' and ')}` : '';
  };
  const against = `, against #${c.baseline.runNumber}${c.pooled.baseline.runs > 1 ? ` and ${c.pooled.baseline.runs - 1} more` : ''}`;
  if (c.verdict === 'regressed' || c.verdict === 'improved') return `${VERDICT_MARK[c.verdict]} ${c.verdict} ${level}: ${overall}${rows(c.verdict)}${against}`;
  if (c.verdict === 'no significant change') return `${VERDICT_MARK[c.verdict]} no significant change ${level}: ${overall}${against}`;
  return `${VERDICT_MARK[c.verdict]} undecided ${level}: ${overall}${against}${c.toDecide ? `; ${decideText(c.toDecide, c.method.minEffect)}` : ''}`;
}

/** `100 calls of at most 300`, `50 calls (no budget)`: the calls spent and the budget. */
export function callsBrief(o: RunOutcome): string {
  const spent = o.adaptive?.calls ?? o.detail.run.totalIterations ?? 0;
  const max = o.adaptive?.maxCalls ?? o.maxCalls;
  return `${spent} call${spent === 1 ? '' : 's'}${max !== undefined ? ` of at most ${max}` : ' (no --max-calls budget)'}`;
}

/** Per scenario, the share of iterations that passed and pass^k, over every result (pooled runs too). */
export function passRatesOf(o: RunOutcome): PassRates {
  return passRates(o.results, o.minScore);
}
