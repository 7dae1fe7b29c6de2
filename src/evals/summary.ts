import type { ChalkInstance } from 'chalk';
import type { CriterionAggregate, Run, RunDetail, RunResult } from '../api/evals.js';
import { withPolicy } from '../ui/columns.js';
import type { Column } from '../ui/format.js';
import { safeText, trusted } from '../ui/safe-text.js';
import type { TableFit } from '../ui/table.js';
import { decideText, fmtScore, type GateResult } from './gates.js';
import type { BaselineOutcome } from './outcome.js';
import { countsText, methodText, percent, VERDICT_MARK, type Comparison, type RunComparison, type Verdict } from './verdict.js';

/** One scenario of a run: its iterations and the mean of its completed iterations' scores. */
export interface ScenarioSummary {
  scenarioId: string;
  name: string;
  iterations: number;
  completed: number;
  failed: number;
  /** Mean overallScore of the completed iterations; null when none completed. */
  meanScore: number | null;
  /** Errors of the failed iterations, in iteration order. */
  errors: string[];
  results: RunResult[];
}

export interface CriterionSummary {
  key: string;
  name: string | null;
  average: number | null;
  max: number | null;
  weight: number | null;
}

/** Results grouped by scenario, in the order the API gave them (scenario, then iteration). */
export function summarizeScenarios(results: readonly RunResult[]): ScenarioSummary[] {
  const byId = new Map<string, ScenarioSummary>();
  for (const r of results) {
    let s = byId.get(r.evalScenarioId);
    if (!s) {
      s = {
        scenarioId: r.evalScenarioId,
        name: r.scenarioName || r.evalScenarioId,
        iterations: 0,
        completed: 0,
        failed: 0,
        meanScore: null,
        errors: [],
        results: [],
      };
      byId.set(r.evalScenarioId, s);
    }
    s.iterations++;
    s.results.push(r);
    if (r.status === 'failed') {
      s.failed++;
      s.errors.push(r.error || 'the iteration failed');
    } else if (r.status === 'completed') s.completed++;
  }
  for (const s of byId.values()) s.meanScore = mean(s.results.filter((r) => r.status !== 'failed').map((r) => r.overallScore));
  return [...byId.values()];
}

export function summarizeCriteria(criteria: readonly CriterionAggregate[]): CriterionSummary[] {
  return criteria.map((c) => ({
    key: c.criterionKey,
    name: typeof c.name === 'string' ? c.name : null,
    average: num(c.averageScore),
    max: num(c.maxScore),
    weight: num(c.weight),
  }));
}

export function mean(values: ReadonlyArray<number | null | undefined>): number | null {
  const xs = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000 : null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** `done/total` iterations and the failed ones. */
export function progressText(run: Run): string {
  const completed = run.completedIterations ?? 0;
  const failed = run.failedIterations ?? 0;
  return `${completed} completed, ${failed} failed of ${run.totalIterations} iterations`;
}

/** `Run #3 (run_…) completed: overall 0.812, agent version 4, 6 completed, 0 failed of 6 iterations`. */
export function headline(run: Run): string {
  const parts = [`Run #${run.runNumber} (${run.id}) ${run.status}`];
  const details = [`overall ${fmtScore(run.overallScore)}`, `agent version ${run.agentVersion ?? '?'}`, progressText(run)];
  if (run.error) details.push(`error: ${safeText(run.error)}`);
  return `${parts[0]}: ${details.join(', ')}`;
}

const SCENARIO_COLUMNS: Column<ScenarioSummary>[] = [
  { header: 'scenario', value: (s) => safeText(s.name) },
  { header: 'iterations', value: (s) => s.iterations },
  { header: 'failed', value: (s) => s.failed },
  { header: 'mean score', value: (s) => fmtScore(s.meanScore) },
];

const CRITERION_COLUMNS: Column<CriterionSummary>[] = [
  { header: 'criterion', value: (c) => safeText(c.key) },
  { header: 'name', value: (c) => safeText(c.name ?? '') },
  { header: 'average', value: (c) => fmtScore(c.average) },
  { header: 'max', value: (c) => fmtScore(c.max) },
  { header: 'weight', value: (c) => (c.weight === null ? '' : c.weight.toFixed(2)) },
];

const signed = (v: number | null | undefined) => (typeof v === 'number' ? `${v > 0 ? '+' : ''}${v.toFixed(3)}` : '–');

/**
 * A verdict, its mark and its word (`▼ regressed`), coloured: regressed red, improved
 * green, too few iterations dim. The mark and the word carry it without colour too.
 */
export function verdictWord(v: Verdict, chalk: ChalkInstance): string {
  const text = `${VERDICT_MARK[v] ?? ''} ${v}`.trim();
  return v === 'regressed' ? chalk.red(text) : v === 'improved' ? chalk.green(text) : v === 'too few iterations' ? chalk.dim(text) : text;
}

/** A gate's outcome: a mark and a word (`✓ passed`, `✗ FAILED`), coloured, so that colour is never the only sign. */
export function gateMark(passed: boolean, chalk: ChalkInstance): string {
  return passed ? chalk.green('✓ passed') : chalk.red.bold('✗ FAILED');
}

/** The verdict of a row ('–' when it has none). */
export function verdictCell(c: Comparison | undefined, chalk: ChalkInstance): string {
  return c ? verdictWord(c.verdict, chalk) : '–';
}

/** `Against run #4 (run_x, agent version 3): regressed: 1 regressed, 2 too few iterations` and the method. */
export function baselineLines(b: BaselineOutcome | undefined, chalk: ChalkInstance): string[] {
  if (!b) return [];
  const c = b.comparison;
  if (!c) return [chalk.yellow(`No baseline (--baseline ${safeText(b.spec)}): ${safeText(b.missing ?? '')}`)];
  const v = chalk.bold(verdictWord(c.verdict, chalk));
  const more = c.pooled.baseline.runs > 1 ? ` and ${c.pooled.baseline.runs - 1} more of its version, ${c.pooled.baseline.calls} calls` : '';
  const mine = c.pooled.current.runs > 1 ? ` (this side: ${c.pooled.current.runs} runs, ${c.pooled.current.calls} calls)` : '';
  const lines = [
    `Against run #${c.baseline.runNumber} (${safeText(c.baseline.id)}, agent version ${c.baseline.agentVersion ?? '?'}${more})${mine}: ${v} at family-wise error ${percent(c.method.alpha)}: overall ${safeText(c.overallChange.reason)}; rows: ${countsText(c.counts)}`,
  ];
  if (c.toDecide) lines.push(`Undecided: ${decideText(c.toDecide, c.method.minEffect)}.`);
  lines.push(chalk.dim(`Verdicts: ${methodText(c.method)}.`));
  return lines;
}

/** The end-of-run report for a person: headline, scenario table, criterion table (with the baseline's columns and verdicts when there is one), gates. */
export async function renderRunSummary(
  detail: RunDetail,
  results: readonly RunResult[],
  gates: readonly GateResult[],
  chalk: ChalkInstance,
  baseline?: BaselineOutcome,
  fit: TableFit = {},
): Promise<string> {
  // The table and the text fitting are loaded when a summary is rendered (a command that only evaluates gates loads neither).
  const [{ renderTable }, { messageText }] = await Promise.all([import('../ui/table.js'), import('../ui/fit.js')]);
  const scenarios = summarizeScenarios(results);
  const criteria = summarizeCriteria(detail.aggregates.criteria);
  const c = baseline?.comparison;
  // The headline and gate lines carry ids, statuses, errors and criterion keys: shown safe; the tables make their cells safe.
  // On a terminal the headline and gate lines wrap at word boundaries, and the tables fit its width.
  const parts = [chalk.bold(messageText(safeText(headline(detail.run)), fit.width))];
  const bl = baselineLines(baseline, chalk);
  if (bl.length) parts.push(...bl.map((l) => messageText(l, fit.width)));
  if (scenarios.length) {
    const cmp = new Map((c?.scenarios ?? []).map((x) => [x.scenarioId, x]));
    const cols: Column<ScenarioSummary>[] = c
      ? [
          ...SCENARIO_COLUMNS,
          { header: 'baseline', value: (s) => fmtScore(cmp.get(s.scenarioId)?.baseline.mean) },
          { header: 'delta', value: (s) => signed(cmp.get(s.scenarioId)?.delta) },
          { header: 'verdict', value: (s) => trusted(verdictCell(cmp.get(s.scenarioId), chalk)) },
        ]
      : SCENARIO_COLUMNS;
    // With a baseline the table is for the change: the verdict and the delta never go.
    const policy = c ? { keep: ['scenario', 'delta', 'verdict'] } : { keep: ['scenario', 'mean score'] };
    parts.push('', renderTable(scenarios, withPolicy(cols, policy), chalk, undefined, fit));
  }
  if (criteria.length) {
    const cmp = new Map((c?.criteria ?? []).map((x) => [x.key, x]));
    const cols: Column<CriterionSummary>[] = c
      ? [
          ...CRITERION_COLUMNS,
          { header: 'baseline', value: (x) => fmtScore(cmp.get(x.key)?.baseline.mean) },
          { header: 'delta', value: (x) => signed(cmp.get(x.key)?.delta) },
          { header: 'verdict', value: (x) => trusted(verdictCell(cmp.get(x.key), chalk)) },
        ]
      : CRITERION_COLUMNS;
    const policy = c
      ? { keep: ['criterion', 'delta', 'verdict'], repeats: { name: 'criterion' } }
      : { keep: ['criterion', 'average'], repeats: { name: 'criterion' } };
    parts.push('', renderTable(criteria, withPolicy(cols, policy), chalk, undefined, fit));
  }
  if (gates.length) {
    parts.push('', ...gates.map((g) => messageText(`${safeText(g.gate)}: ${safeText(g.message)}`, fit.width, `${gateMark(g.passed, chalk)} `)));
  }
  return parts.join('\n');
}

/** TSV for `-o tsv`: one record per line, its kind first (run, scenario, criterion, gate; with a baseline: baseline, verdict). */
export function runSummaryTsv(detail: RunDetail, results: readonly RunResult[], gates: readonly GateResult[], comparison?: RunComparison): unknown[][] {
  const r = detail.run;
  const rows: unknown[][] = [
    ['run', r.id, r.runNumber, r.status, r.overallScore ?? '', r.agentVersion ?? '', r.completedIterations ?? '', r.failedIterations ?? '', r.totalIterations],
  ];
  for (const s of summarizeScenarios(results)) rows.push(['scenario', s.scenarioId, s.name, s.iterations, s.failed, s.meanScore ?? '']);
  for (const c of summarizeCriteria(detail.aggregates.criteria)) rows.push(['criterion', c.key, c.name ?? '', c.average ?? '', c.max ?? '', c.weight ?? '']);
  for (const g of gates) rows.push(['gate', g.gate, g.passed ? 'passed' : 'failed', g.actual ?? '', g.threshold]);
  if (comparison) {
    const b = comparison.baseline;
    rows.push(['baseline', b.id, b.runNumber, comparison.verdict, b.overallScore ?? '', b.agentVersion ?? '']);
    for (const x of comparison.scenarios) rows.push(['verdict', 'scenario', x.scenarioId, x.name, x.verdict, x.delta ?? '', x.ci?.[0] ?? '', x.ci?.[1] ?? '']);
    for (const x of comparison.criteria) rows.push(['verdict', 'criterion', x.key, x.name ?? '', x.verdict, x.delta ?? '', x.ci?.[0] ?? '', x.ci?.[1] ?? '']);
  }
  return rows;
}
