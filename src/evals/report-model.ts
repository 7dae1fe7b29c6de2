import type { RunResult, TranscriptLine } from '../api/evals.js';
import { fmtScore } from './gates.js';
import { formatSeconds, roleWord } from '../ui/values.js';
import type { RunOutcome } from './outcome.js';
import { summarizeCriteria, summarizeScenarios, type CriterionSummary, type ScenarioSummary } from './summary.js';
import type { CriterionComparison, ScenarioComparison, Verdict } from './verdict.js';

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
  for (let i = 1; i < lines.length; i++) if ((lines[i - 1]!.ordinal ?? 0) > (lines[i]!.ordinal ?? 0)) return [...lines].sort((a, b) => (a.ordinal ?? 0) - (b.ordinal ?? 0));
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

/** Marks beside a verdict in the Markdown report (GitHub shows them as emoji). */
export const VERDICT_ICON: Record<Verdict, string> = {
  regressed: '🔻',
  improved: '🔺',
  'no significant change': '➖',
  'too few iterations': '⚪',
};

/** Marks beside a verdict in the HTML report (plain symbols: no emoji font needed, and they print). */
export { VERDICT_MARK } from './verdict.js';

export function iterationsText(s: ScenarioSummary): string {
  return s.failed ? `${s.iterations} (${s.failed} failed)` : String(s.iterations);
}

export { fmtScore };

/** 134 → "2m 14s"; 45 → "45s"; nothing for none (src/ui/values.ts). */
export function seconds(s: number | null | undefined): string {
  return typeof s === 'number' && Number.isFinite(s) ? formatSeconds(s) : '';
}
