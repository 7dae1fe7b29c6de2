import type { ChalkInstance } from 'chalk';
import type { Run, RunDetail, RunResult } from '../api/evals.js';
import { fmtScore, type GateResult } from './gates.js';
import { withPolicy } from '../ui/columns.js';
import { safeText, trusted } from '../ui/safe-text.js';
import type { TableFit } from '../ui/table.js';
import { messageText } from '../ui/fit.js';
import { gateMark, summarizeCriteria, summarizeScenarios, verdictCell, verdictWord } from './summary.js';
import { countsText, methodText, type RunComparison } from './verdict.js';

export interface RunSide {
  detail: RunDetail;
  results: RunResult[];
}

export interface DiffRow {
  key: string;
  name: string;
  a: number | null;
  b: number | null;
  /** b − a, rounded to 3 decimals; null when either side has no score. */
  delta: number | null;
}

export interface RunDiff {
  a: RunBrief;
  b: RunBrief;
  overall: DiffRow;
  scenarios: DiffRow[];
  criteria: DiffRow[];
}

export interface RunBrief {
  id: string;
  runNumber: number;
  status: string;
  agentVersion: number | null;
  overallScore: number | null;
  failedIterations: number;
  totalIterations: number;
}

const brief = (r: Run): RunBrief => ({
  id: r.id,
  runNumber: r.runNumber,
  status: r.status,
  agentVersion: r.agentVersion ?? null,
  overallScore: typeof r.overallScore === 'number' ? r.overallScore : null,
  failedIterations: r.failedIterations ?? 0,
  totalIterations: r.totalIterations,
});

const delta = (a: number | null, b: number | null) => (a === null || b === null ? null : Math.round((b - a) * 1000) / 1000);
const row = (key: string, name: string, a: number | null, b: number | null): DiffRow => ({ key, name, a, b, delta: delta(a, b) });

/** Scenarios matched by id (A's order, then B's new ones); criteria by key. */
export function diffRuns(A: RunSide, B: RunSide): RunDiff {
  const sa = summarizeScenarios(A.results);
  const sb = new Map(summarizeScenarios(B.results).map((s) => [s.scenarioId, s]));
  const scenarios: DiffRow[] = sa.map((s) => row(s.scenarioId, s.name, s.meanScore, sb.get(s.scenarioId)?.meanScore ?? null));
  for (const s of sb.values()) if (!sa.some((x) => x.scenarioId === s.scenarioId)) scenarios.push(row(s.scenarioId, s.name, null, s.meanScore));
  const ca = summarizeCriteria(A.detail.aggregates.criteria);
  const cb = new Map(summarizeCriteria(B.detail.aggregates.criteria).map((c) => [c.key, c]));
  const criteria: DiffRow[] = ca.map((c) => row(c.key, c.name ?? c.key, c.average, cb.get(c.key)?.average ?? null));
  for (const c of cb.values()) if (!ca.some((x) => x.key === c.key)) criteria.push(row(c.key, c.name ?? c.key, null, c.average));
  const a = brief(A.detail.run);
  const b = brief(B.detail.run);
  return { a, b, overall: row('overall', 'overall score', a.overallScore, b.overallScore), scenarios, criteria };
}

function deltaText(d: number | null, chalk: ChalkInstance): string {
  if (d === null) return '–';
  if (d > 0) return chalk.green(`+${d.toFixed(3)}`);
  if (d < 0) return chalk.red(d.toFixed(3));
  return chalk.dim('0.000');
}

/** The delta as a table cell: vap's own coloured figure, passed through as it is. */
const deltaCell = (d: number | null, chalk: ChalkInstance) => trusted(deltaText(d, chalk));

/** Headline (the two runs and their agent versions), then scenario and criterion tables (with each row's verdict), then gates. */
export async function renderDiff(
  diff: RunDiff,
  gates: readonly GateResult[],
  chalk: ChalkInstance,
  comparison?: RunComparison,
  fit: TableFit = {},
): Promise<string> {
  const { renderTable } = await import('../ui/table.js');
  const side = (label: string, r: RunBrief) =>
    `${label}: run #${r.runNumber} (${r.id}) ${r.status}, agent version ${r.agentVersion ?? '?'}, overall ${fmtScore(r.overallScore)}, ${r.failedIterations} of ${r.totalIterations} iterations failed`;
  const scenarioVerdicts = new Map((comparison?.scenarios ?? []).map((x) => [x.scenarioId, x]));
  const criterionVerdicts = new Map((comparison?.criteria ?? []).map((x) => [x.key, x]));
  // The table is for the change: the row's name, the delta and the verdict never go.
  const columns = (first: string, verdicts: Map<string, RunComparison['scenarios'][number] | RunComparison['criteria'][number]>) =>
    withPolicy<DiffRow>(
      [
        { header: first, value: (x: DiffRow) => safeText(x.name) },
        { header: 'A', value: (x: DiffRow) => fmtScore(x.a) },
        { header: 'B', value: (x: DiffRow) => fmtScore(x.b) },
        { header: 'delta', value: (x: DiffRow) => deltaCell(x.delta, chalk) },
        ...(comparison ? [{ header: 'verdict', value: (x: DiffRow) => trusted(verdictCell(verdicts.get(x.key), chalk)) }] : []),
      ],
      { keep: [first, 'delta', ...(comparison ? ['verdict'] : [])] },
    );
  // Run ids, statuses and gate texts are data: shown safe; the tables make their cells safe.
  // On a terminal the lines wrap at word boundaries and the tables fit its width.
  const parts = [
    messageText(safeText(side('A', diff.a)), fit.width),
    messageText(safeText(side('B', diff.b)), fit.width),
    `overall ${fmtScore(diff.overall.a)} → ${fmtScore(diff.overall.b)} (${deltaText(diff.overall.delta, chalk)})`,
  ];
  if (comparison)
    parts.push(
      messageText(`verdict: ${verdictWord(comparison.verdict, chalk)}: ${safeText(countsText(comparison.counts))}`, fit.width),
      chalk.dim(messageText(`Verdicts: ${methodText(comparison.method)}.`, fit.width)),
    );
  if (diff.scenarios.length) parts.push('', renderTable(diff.scenarios, columns('scenario', scenarioVerdicts), chalk, undefined, fit));
  if (diff.criteria.length)
    parts.push(
      '',
      renderTable(
        diff.criteria.map((c) => ({ ...c, name: c.key })),
        columns('criterion', criterionVerdicts),
        chalk,
        undefined,
        fit,
      ),
    );
  if (gates.length) parts.push('', ...gates.map((g) => messageText(safeText(`${g.gate}: ${g.message}`), fit.width, `${gateMark(g.passed, chalk)} `)));
  return parts.join('\n');
}
