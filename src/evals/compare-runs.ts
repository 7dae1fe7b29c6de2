import type { ApiClient } from '../api/client.js';
import { FINISHED_RUN_STATUSES, getRun, getSuite, listRunResults, listRuns, type RunDetail, type RunResult } from '../api/evals.js';
import { CliError, UsageError } from '../errors.js';
import { safe } from '../ui/safe-text.js';
import { baselineArg, resolvePooledBaseline } from './baseline.js';
import { diffRuns, type RunDiff, type RunSide } from './diff.js';
import { resumeCommand, verdictSettings } from './follow.js';
import { checkCriterionKeys, evaluateGates, type GateResult, type GateSpec } from './gates.js';
import type { RunOutcome } from './outcome.js';
import { preloadReports, reportNeeds, type ReportTarget } from './reports.js';
import type { RunComparison } from './verdict.js';

/** Run B against run A (named, or a pooled baseline): the diff, the verdicts, the gates on B, and the outcome the reports are written from. */
export interface RunsCompared {
  diff: RunDiff;
  comparison: RunComparison | undefined;
  gates: GateResult[];
  outcome: RunOutcome;
}

/** The runs compared: run B (`b`) with run A (`a`), or with the baseline of `spec` when A is not named. */
export interface CompareRef {
  agentId: string;
  evalId: string;
  a?: string;
  b: string;
}

/**
 * Compares two runs that have ended (`vap evals runs diff`, the MCP tool). A run A still
 * going, an unknown criterion key or a missing baseline is an error before any verdict.
 */
export async function compareRuns(
  api: ApiClient,
  ref: CompareRef,
  spec: GateSpec,
  s: { reports: ReportTarget[]; env: Record<string, string | undefined>; signal?: AbortSignal },
): Promise<RunsCompared> {
  const { agentId, evalId, a, b } = ref;
  const reports = s.reports;
  const needs = reportNeeds(reports, s.env);
  // Everything at once: both runs and their results (run A when named), the suite and its runs.
  const [detailB, resultsB, runs, suite, namedA] = await Promise.all([
    // Once B's answer is in, every request is out: the report builders compile while the rest arrives.
    getRun(api, agentId, evalId, b, s.signal).then((d) => {
      if (reports.length) preloadReports(reports, s.env);
      return d;
    }),
    listRunResults(api, agentId, evalId, b, s.signal),
    needs.history || (spec.baseline && spec.baseline.kind !== 'run') ? listRuns(api, agentId, evalId, s.signal) : undefined,
    needs.suite ? getSuite(api, agentId, evalId, s.signal).catch(() => undefined) : undefined,
    a ? Promise.all([getRun(api, agentId, evalId, a, s.signal), listRunResults(api, agentId, evalId, a, s.signal)]) : undefined,
  ]);
  let detailA: RunDetail;
  let resultsA: RunResult[];
  let pooledA: RunDetail[];
  if (namedA) {
    [detailA, resultsA] = namedA;
    pooledA = [detailA];
  } else {
    // `previous` and `version:<n>`: every completed run of that version, pooled.
    const found = await resolvePooledBaseline(api, { agentId, evalId }, spec.baseline!, detailB.run, s.signal, runs);
    if (found.missing !== undefined)
      throw new UsageError(`--baseline ${baselineArg(spec.baseline!)}: ${found.missing}`, 'name run A instead: `diff <runA> <runB>`');
    ({ newest: detailA, results: resultsA, runs: pooledA } = found);
  }
  checkCriterionKeys(
    spec,
    detailB.aggregates.criteria.map((c) => c.criterionKey),
  );
  for (const [label, d] of [
    ['A', detailA],
    ['B', detailB],
  ] as const) {
    if (!FINISHED_RUN_STATUSES.has(d.run.status)) {
      throw new CliError(
        `run ${label} (${d.run.id}) is still ${d.run.status}`,
        1,
        `wait for it first: ${resumeCommand({ agentId, evalId, runId: d.run.id }, { gates: { minCriteria: [], allowFailedIterations: 0 }, reports: [] })}`,
      );
    }
  }
  const sideA: RunSide = { detail: detailA, results: resultsA };
  const sideB: RunSide = { detail: detailB, results: resultsB };
  const { compareSides } = await import('./compare.js');
  const comparison =
    detailA.run.status === 'completed'
      ? compareSides({ runs: [detailB], results: resultsB }, { runs: pooledA, results: resultsA }, verdictSettings(spec))
      : undefined;
  const missing = comparison ? undefined : `run A #${detailA.run.runNumber} (${detailA.run.id}) ${detailA.run.status}: it has no scores to compare with`;
  const gates = detailB.run.status === 'completed' ? evaluateGates(spec, detailB, detailA, { comparison, missing }, { results: resultsB }) : [];
  const diff = diffRuns(sideA, sideB);

  const outcome: RunOutcome = {
    agentId,
    evalId,
    detail: detailB,
    results: resultsB,
    gates,
    baseline: { spec: spec.baseline ? baselineArg(spec.baseline) : detailA.run.id, comparison, side: sideA, missing },
    suite: suite ? { name: suite.name } : undefined,
    history: needs.history ? runs : undefined,
  };
  return { diff, comparison, gates, outcome };
}

/** Why the comparison fails: run B failed (exit 1), or it is below gates (exit 3); undefined when it passed. */
export function comparedFailure(c: RunsCompared): { kind: 'failed'; message: string } | { kind: 'gates'; failed: GateResult[]; message: string } | undefined {
  const run = c.outcome.detail.run;
  if (run.status === 'failed') return { kind: 'failed', message: safe`run B #${run.runNumber} (${run.id}) failed${run.error ? `: ${run.error}` : ''}` };
  const failed = c.gates.filter((g) => !g.passed);
  if (failed.length)
    return { kind: 'gates', failed, message: `run B #${run.runNumber} (${run.id}) is below ${failed.length === 1 ? 'a gate' : `${failed.length} gates`}` };
  return undefined;
}
